// The graphsim command line (CLI11): subcommands, flags, validation, help text.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <functional>
#include <map>

#include "app/bench/bench_options.h"
#include "app/reliability/soak.h"
#include "app/run/run_options.h"

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace graphsim::app {

struct ListGpusCommand {};
struct ExitNow {
  int code;
}; // --help, --version or a parse error: already printed

using Command = std::variant<RunOptions, ListGpusCommand, ExitNow, BenchOptions, SoakOptions>;

// Parses and validates everything that can be checked without touching a GPU: flags, the scene preset, the
// --config file, capture paths, body counts. Bad input throws UsageError (exit 2) with a one-line reason.
Command parseCommandLine(int argc, char** argv);

// Shared by the subcommands' parsers (cli.cpp, app/cli/bench_cli.cpp).
//
// Number flags are bound to strings and converted here, not by CLI11: CLI11 2.1 saturates an out-of-range integer to
// INT64_MAX and wraps "-1" for an unsigned type, so its value could not be quoted back. A refusal repeats the text
// as typed, e.g. "--frames: must be 0..1000000000000, got 99999999999999999999" (UsageError, exit 2).
// The text as a whole signed decimal number (an optional sign, digits, nothing else), or nullopt; `overflow` says
// whether it had that shape but did not fit 64 bits.
std::optional<std::int64_t> wholeNumber(const std::string& text, bool& overflow);
CLI::Option* addIntegerOption(CLI::App& app, const std::string& name, std::string& text, const std::string& help);
std::int64_t parseIntegerFlag(const std::string& flag, const std::string& text, std::int64_t lo, std::int64_t hi);
std::uint64_t parseSeedFlag(const std::string& flag, const std::string& text); // 0..2^64-1
// --diagnostics-every K (issue 15, docs/DIAGNOSTICS.md), for run and bench: adds the flag, and applies its text to
// the scene's settings when it was given: 0..1000000, refused (UsageError) for a scene without diagnostics.
// defaultEvery: what leaving the flag out means for this command (run: kDefaultDiagnosticsEvery; bench: 0, so that
// a measurement is of the frame alone, comparable with earlier figures and NVIDIA's sample).
CLI::Option* addDiagnosticsEveryOption(CLI::App& app, std::string& text, int defaultEvery);
void applyDiagnosticsEvery(const CLI::App& app, const std::string& text, SceneSettings& settings);
// The element-count flags: one per count noun of the registered scenes (Scene::countNoun: --bodies, --particles),
// so that a new scene with a new noun gets its flag without an edit here. Only the run's scene's flag applies;
// another scene's is refused naming the right one ("--bodies: the fluid scene counts particles; use --particles").
class CountFlags {
public:
  // purpose: said in each flag's help ("Number of", "Bodies/particles for the soak: ...").
  void add(CLI::App& command, const std::string& helpSuffix);
  // The text given for the scene's own flag, or nullptr. UsageError for another scene's flag.
  const std::string* given(const Scene& scene) const;
  // The flag of a scene: "--bodies".
  static std::string flagOf(const Scene& scene) { return "--" + std::string(scene.countNoun()); }
  // The capacity flags (issue 14): --max-<noun> for the nouns of scenes with a capacity (Scene::capacityHelp:
  // --max-bodies). The text given for the scene's own, or nullptr; UsageError for one the scene does not take.
  const std::string* givenCapacity(const Scene& scene) const;
  static std::string capacityFlagOf(const Scene& scene) { return "--max-" + std::string(scene.countNoun()); }

private:
  struct Flag {
    std::string text;
    CLI::Option* option = nullptr;
  };
  std::map<std::string, Flag, std::less<>> flags_;      // by noun; map nodes stay put (CLI11 binds to text)
  std::map<std::string, Flag, std::less<>> capacities_; // the same, for --max-<noun>
};

// --max-<noun> when given: its value (1..maxCount), refused (UsageError, exit 2) below `count`, which came from
// `countSource` ("--bodies", "the soak's --bodies"); nullopt when not given.
std::optional<std::int64_t> parseCapacityFlag(const Scene& scene, const CountFlags& counts, std::int64_t count,
                                              const std::string& countSource);

// The largest --frames of run and replay.
inline constexpr std::int64_t kMaxFrames = 1'000'000'000'000;
// A flag's value as typed, for a message: escaped and clipped (app/io/user_text.h); "an empty value" when empty.
std::string asTyped(const std::string& text);
// --capture PATH must end in .png with a stem and be creatable now (UsageError, exit 2): checked before any GPU work.
// numberLength: the characters --capture-every adds to the name ("_000042"), 0 without it.
void checkCapturePath(const std::string& capture, std::size_t numberLength);

// --frames-in-flight and, when given, the scene's count and capacity flags into `settings` (the capacity must hold
// the count, whichever layer gave each), then the checks both need together
// (the render buffers fit this machine's memory, the scene's own checks such as two-body = 2 bodies; the GPU's
// memory is checked once the device is known, by the session). Returns the frames in flight. settingsFile: where the
// settings came from beside the preset ("--config FILE", "--load-state FILE"; empty: nowhere): the scene's own
// refusals then start with it, since the file's values (a box, an initial shape) may be what does not fit.
std::uint32_t parseCountAndFramesInFlight(SceneSettings& settings, const CountFlags& counts,
                                          const std::string& framesInFlight, const std::string& settingsFile = {});
// `--scene list`: one line per scene with its description (stdout).
void printSceneList();
// The scenes for --help: "nbody | fluid".
std::string sceneChoices();

// The flags run, bench and soak share: --backend, --interop, --validation, --gpu, --wait-timeout-ms and --quiet,
// each defined (name, value range, conversion, message) once here. A subcommand adds each where its --help lists it
// and reads each where its validation checks it, so its help text and the order of its refusals are its own. The
// values are bound to this object: it must outlive parsing and stay where it is.
class SharedFlags {
public:
  // The backends the subcommand offers, in --help order (run and soak: auto, cpu, cuda; bench: cpu, cuda).
  SharedFlags(std::vector<BackendKind> backends, BackendKind defaultBackend);
  SharedFlags(const SharedFlags&) = delete;
  SharedFlags& operator=(const SharedFlags&) = delete;

  void addBackend(CLI::App& command);
  void addInterop(CLI::App& command); // auto | on | off (InteropMode, app/run/run_options.h)
  void addValidation(CLI::App& command, const std::string& whatFails); // "... any message fails the <whatFails>"
  void addGpu(CLI::App& command, const std::string& help);
  void addGpus(CLI::App& command); // --gpus LIST (docs/MULTI-GPU.md)
  void addWaitTimeout(CLI::App& command);
  void addThrottleWait(CLI::App& command);
  void addQuiet(CLI::App& command, const std::string& help);
  void addRenderMode(CLI::App& command); // --render-mode particles|surface over the scene file's render.mode
  // --rendezvous FILE|mpi: one process per GPU (docs/MULTI-GPU.md, "One process per GPU"). `roles` says in the help
  // what rank 0 and the other ranks do in this subcommand.
  void addRendezvous(CLI::App& command, const std::string& roles);
  void addForces(CLI::App& command); // --forces direct|tree|auto (n-body, docs/FORCES.md)

  // After a successful parse; a bad value throws UsageError naming the flag.
  BackendKind backend() const;
  InteropMode interop() const;
  bool validation() const { return validation_; }
  std::optional<int> gpu() const; // nullopt when --gpu was not given
  // nullopt when --gpus was not given; UsageError for bad syntax, a repeated index, --gpus with --gpu, or --gpus
  // with a backend other than cuda/auto.
  std::optional<GpuList> gpus() const;
  std::chrono::milliseconds waitTimeout() const;
  render::ThrottleWait throttleWait() const;
  bool quiet() const { return quiet_; }
  // --rendezvous when given: the launcher's placement and the file (app/run/ranks.h). UsageError when no launcher
  // variables are set (or one is wrong), the backend is not cuda, --gpu or --gpus is given (each rank's GPU is its
  // local rank's), the scene does not run on several GPUs, or FILE is not a file name.
  std::optional<LaunchedRank> rendezvous(const Scene& scene) const;
  // When --forces was given, its mode into settings.sim.forces; UsageError for another word or scene, and for
  // forces: tree (from the flag or the scene file) with --gpus or --rendezvous (the tree runs on one GPU).
  void applyForces(SceneSettings& settings) const;
  // When --render-mode was given, its mode into render.mode; UsageError for another word.
  void applyRenderMode(RenderSettings& render) const;

private:
  std::vector<BackendKind> backends_;
  std::string backend_, interop_ = "auto", gpu_, gpus_, waitTimeoutMs_, throttleWait_, renderMode_;
  CLI::Option* renderModeOption_ = nullptr;
  bool validation_ = false, quiet_ = false;
  CLI::Option* gpuOption_ = nullptr;
  CLI::Option* gpusOption_ = nullptr;
  CLI::Option* rendezvousOption_ = nullptr;
  std::string rendezvous_;
  CLI::Option* forcesOption_ = nullptr;
  std::string forces_;
};

} // namespace graphsim::app
