#include "app/cli/cli.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <optional>
#include <utility>

#include <CLI/CLI.hpp>

#include "app/base/errors.h"
#include "app/base/output_paths.h"
#include "app/base/standard_streams.h"
#include "app/cli/bench_cli.h"
#include "app/cli/driver_manifests.h"
#include "app/cli/replay_cli.h"
#include "app/cli/video_flags.h"
#include "app/io/user_text.h"
#include "app/snapshot/snapshot.h"
#include "app/ui/keys.h"
#include "app/ui/resize_storm.h"
#include "app/version.h"
#include "compute/protocol.h"

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;

const std::string kRunFooter = std::string(R"(
Order of settings: the scene's preset (assets/scenes/<scene>.json, embedded in the binary), then --config FILE
(same keys, all optional), then the flags above.

Backends: cuda is the product (one CUDA graph per frame, Vulkan<->CUDA shared memory and timeline semaphores);
cpu runs the same stages on the CPU (reference, and for machines without an NVIDIA GPU). auto picks cuda when a
CUDA device exists, else cpu, and says so. --interop picks how the cuda backend's frames reach the renderer.

Window: without --headless graphsim opens a window (GLFW + Vulkan swapchain) and runs until Esc or the window
closes, or for --frames N frames when given; --capture PATH then captures the last frame with the panel, and
--capture-every K every K-th frame while the window is open. A period longer than the run captures nothing, and
graphsim says so after the run.
Keys and mouse:
)") + keys::kHelp + R"(

Progress (stderr, none with --quiet): on a terminal one line updated in place; to a pipe or file a line per 10 %
of the frames or per 10 s, whichever comes first (every 10 s when the window runs until closed).

Ctrl-C (SIGINT), SIGTERM and SIGHUP (a closed terminal or ssh session) end the run between frames: the frame in
flight finishes, both APIs are drained and released, and graphsim exits 128 + the signal (130, 143, 129).

Outputs (PNG, DOT) are written atomically (temporary + fsync + rename); a failed write says "cannot write output:
PATH: REASON", exit 1. A non-finite position or velocity (a blow-up) ends a headless run with exit 1 naming the
frame and stage; a window pauses and shows it in red.

Exit codes: 0 success, 1 internal error, CUDA error, timeout, unwritable output or blow-up, 2 bad usage or input,
3 the machine lacks what was asked (no Vulkan device, no CUDA device, no display; with --interop on also no Vulkan
device with the CUDA GPU's UUID, or a missing extension), 129/130/143 interrupted (above).)";

// A flag's value as typed, for a message: escaped and clipped (app/io/user_text.h).

// --dump-graph FILE: only the cuda backend has a graph to write, and FILE must be creatable.
void checkDumpGraphPath(const std::string& dumpGraph, BackendKind backend) {
  checkOutputPath("--dump-graph", dumpGraph);
  if (backend == BackendKind::Cpu) throw UsageError("--dump-graph: only the cuda backend has a CUDA graph");
}

std::string expandStorm(const std::string& text) {
  const std::string spec = text.substr(6);
  const std::size_t colon = spec.find(':');
  const std::string count = spec.substr(0, colon), seed = colon == std::string::npos ? "1" : spec.substr(colon + 1);
  const auto isNumber = [](const std::string& s) {
    return !s.empty() && s.size() <= 6 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!isNumber(count) || !isNumber(seed) || std::stoi(count) < 1 || std::stoi(count) > 100000)
    throw UsageError("--window-script " + asTyped(text) +
                     ": want storm=N[:SEED] with N in 1..100000 and SEED in 0..999999");
  return resizeStormScript(std::stoi(count), std::stoull(seed));
}

render::PresentMode parsePresentMode(const std::string& name) {
  if (name == "fifo") return render::PresentMode::Fifo;
  if (name == "mailbox") return render::PresentMode::Mailbox;
  if (name == "immediate") return render::PresentMode::Immediate;
  throw UsageError("--present: unknown mode '" + name + "' (allowed: fifo, mailbox, immediate)");
}

// --window-script "TICK:resize=WxH,TICK:minimise,TICK:restore" (ticks ascending): scripted window changes for tests.
// "storm=N[:SEED]" stands for N rapid resizes (app/ui/resize_storm.h).
std::vector<WindowEvent> parseWindowScript(const std::string& script) {
  const std::string text = script.rfind("storm=", 0) == 0 ? expandStorm(script) : script;
  std::vector<WindowEvent> events;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    const auto bad = [&] {
      return UsageError("--window-script: bad item '" + item +
                        "' (want TICK:resize=WxH, TICK:minimise or TICK:restore)");
    };
    const std::size_t colon = item.find(':');
    if (colon == std::string::npos || colon == 0) throw bad();
    WindowEvent e;
    try {
      std::size_t used = 0;
      e.tick = std::stoull(item.substr(0, colon), &used);
      if (used != colon) throw bad();
      const std::string what = item.substr(colon + 1);
      if (what == "minimise") {
        e.kind = WindowEvent::Kind::Minimise;
      } else if (what == "restore") {
        e.kind = WindowEvent::Kind::Restore;
      } else if (what.rfind("resize=", 0) == 0) {
        const std::string size = what.substr(7);
        const std::size_t x = size.find('x');
        if (x == std::string::npos) throw bad();
        const unsigned long w = std::stoul(size.substr(0, x)), h = std::stoul(size.substr(x + 1));
        if (w < 1 || h < 1 || w > kMaxImageSize || h > kMaxImageSize) throw bad();
        e.kind = WindowEvent::Kind::Resize;
        e.width = static_cast<std::uint32_t>(w);
        e.height = static_cast<std::uint32_t>(h);
      } else {
        throw bad();
      }
    } catch (const std::logic_error&) { // stoull/stoul: not a number or out of range
      throw bad();
    }
    if (!events.empty() && e.tick < events.back().tick) throw bad();
    events.push_back(e);
  }
  return events;
}

} // namespace

namespace {

// `graphsim run`: its flags, bound as typed, and their validation into RunOptions.
class RunCommandLine {
public:
  explicit RunCommandLine(CLI::App& app);

  CLI::App* subcommand() const { return run_; }
  bool parsed() const { return run_->parsed(); }
  bool listScenes() const { return scene_ == "list"; } // --scene list
  // After a successful parse. Bad input throws UsageError naming the flag (exit 2).
  RunOptions options() const;

private:
  void applyLoadState(RunOptions& options) const; // --load-state: the file's scene, settings and state
  void applyOutputFlags(RunOptions& options) const;

  CLI::App* run_ = nullptr;
  SharedFlags shared_{{BackendKind::Auto, BackendKind::Cpu, BackendKind::Cuda}, BackendKind::Auto};
  std::string scene_ = defaultSceneName(), config_, capture_, dumpGraph_, present_ = "fifo", windowScript_, inject_;
  std::string loadState_, saveState_, record_, recordEvery_ = std::to_string(RunOptions{}.recordCheckpointEvery);
  // Number flags as typed (parseIntegerFlag): defaults shown by --help are the strings.
  std::string frames_, captureEvery_, seed_, framesInFlight_ = std::to_string(RunOptions{}.framesInFlight);
  std::string diagnosticsEvery_;
  CountFlags counts_; // --bodies, --particles
  bool headless_ = false, profile_ = false, panel_ = false;
};

RunCommandLine::RunCommandLine(CLI::App& app) {
  run_ = app.add_subcommand("run", "Run a scene in a window with the graph panel, or headless with captures.");
  run_->add_option("--scene", scene_, "Scene to run: " + sceneChoices() + "; list: print the scenes and exit")
      ->capture_default_str();
  counts_.add(*run_, "default: the preset's; ");
  shared_.addBackend(*run_);
  shared_.addInterop(*run_);
  run_->add_flag("--headless", headless_, "Render offscreen, no window (no display needed)");
  addIntegerOption(*run_, "--frames", frames_,
                   "Frames to simulate and render, 0.." + std::to_string(kMaxFrames) +
                       " (default: 300 headless; windowed: until closed)");
  run_->add_option("--capture", capture_, "Write the last frame as PNG to PATH (with --capture-every: a pattern)");
  addIntegerOption(*run_, "--capture-every", captureEvery_,
                   "Capture every K-th frame, K >= 1, to <stem>_<frame>.png (needs --capture; without it only the "
                   "last frame is captured)");
  addVideoFlags(*run_,
                "every frame rendered, as the window shows it (the panel too while it is visible; headless: "
                "the offscreen image, with --panel the panel), at the scene's render size");
  addCameraPathFlag(*run_);
  addIntegerOption(*run_, "--seed", seed_, "Seed of the initial conditions, 0..2^64-1 (default: the preset's)");
  addDiagnosticsEveryOption(*run_, diagnosticsEvery_, kDefaultDiagnosticsEvery);
  run_->add_option("--config", config_, "Scene file (JSON) overriding the preset");
  shared_.addValidation(*run_, "run");
  shared_.addGpu(*run_, "cpu backend: Vulkan device index; cuda backend: CUDA device index (see list-gpus)");
  shared_.addGpus(*run_);
  shared_.addForces(*run_);
  shared_.addRendezvous(*run_,
                        "Rank 0 runs as without it (window or headless, panel, captures); the other ranks run their "
                        "share of the frame headless and apply rank 0's edits in the same frame.");
  addIntegerOption(*run_, "--frames-in-flight", framesInFlight_,
                   "Frames in flight F, 1.." + std::to_string(kMaxFramesInFlight) + " (render buffers in the ring)")
      ->capture_default_str();
  run_->add_option("--dump-graph", dumpGraph_, "cuda backend: write the frame's CUDA graph as DOT to FILE");
  run_->add_option("--save-state", saveState_,
                   "Write a snapshot of the state after the last frame to FILE (F5 in the window: "
                   "graphsim_state_<frame>.gss beside the captures); docs/SNAPSHOTS.md")
      ->type_name("FILE");
  run_->add_option("--load-state", loadState_,
                   "Resume from a snapshot FILE: its scene, count, parameters and state replace the preset's (backend "
                   "auto: the one that saved it); --config, --seed, another --scene or count are refused")
      ->type_name("FILE");
  run_->add_option("--record", record_,
                   "Record the session to FILE (JSON): the scene, its settings and every change made in the window "
                   "(panel, keys, mouse, camera, F12 captures) with its frame, and state checkpoints; replay it with "
                   "'graphsim replay FILE' (docs/RECORDING.md)");
  addIntegerOption(*run_, "--record-checkpoint-every", recordEvery_,
                   "With --record: a checkpoint (the state's hash, and its positions up to 65536 elements) after "
                   "every K-th frame, 1..1000000, and after the last")
      ->capture_default_str();
  shared_.addWaitTimeout(*run_);
  shared_.addThrottleWait(*run_);
  shared_.addRenderMode(*run_);
  shared_.addQuiet(*run_, "No progress lines (see 'Progress' below)");
  run_->add_option("--present", present_, "Window present mode: fifo | mailbox | immediate (falls back to fifo)")
      ->capture_default_str();
  run_->add_flag("--profile", profile_,
                 "Per-node times in the panel (CUDA: GPU time between event-record nodes; CPU: wall time per stage)");
  run_->add_flag("--panel,!--no-panel", panel_, "Draw the ImGui panel (default: on in a window, off headless)");
  // Test hooks: scripted window resizes and minimise/restore at loop iterations (docs/UI.md), and a fault
  // to inject, FAULT[:STAGE][@FRAME] (docs/RELIABILITY.md).
  run_->add_option("--window-script", windowScript_, "")->group("");
  run_->add_option("--inject", inject_, "")->group("");
  run_->footer("\nScenes: " + sceneChoices() + " ('graphsim run --scene list' says what each is). The element count\n" +
               "is --bodies for nbody and --particles for fluid; the other scene's flag is refused. nbody's\n" +
               "--max-bodies (scene-file key max_bodies) is the capacity its buffers are sized for: body-count\n" +
               "changes up to it are kernel-node updates of the CUDA graph (docs/FRAME.md, Body count).\n" +
               kRunFooter);
}

RunOptions RunCommandLine::options() const {
  RunOptions options;
  options.headless = headless_;
  options.validation = shared_.validation();
  options.quiet = shared_.quiet();
  options.profile = profile_;
  options.backend = shared_.backend();
  options.interop = shared_.interop();
  if (run_->count("--load-state") > 0) {
    applyLoadState(options);
  } else {
    options.scene = loadPreset(scene_);
    if (run_->count("--config") > 0 && config_.empty()) throw UsageError("--config: empty path");
    if (!config_.empty()) applyConfigFile(options.scene, config_);
  }
  if (run_->count("--frames") > 0) options.frames = parseIntegerFlag("--frames", frames_, 0, kMaxFrames);
  options.untilClosed = !options.headless && run_->count("--frames") == 0;
  options.presentMode = parsePresentMode(present_);
  options.panel = run_->count("--panel") + run_->count("--no-panel") > 0 ? panel_ : !options.headless;
  options.windowScript = parseWindowScript(windowScript_);
  if (run_->count("--inject") > 0 && inject_.empty()) throw UsageError("--inject: empty (want FAULT[:STAGE][@FRAME])");
  options.inject = parseFault(inject_);
  if (!options.windowScript.empty() && options.headless)
    throw UsageError("--window-script: needs a window (drop --headless)");
  const std::string settingsFile = !loadState_.empty() ? fileNamedBy("--load-state", loadState_)
                                   : !config_.empty()  ? fileNamedBy("--config", config_)
                                                       : std::string();
  options.framesInFlight = parseCountAndFramesInFlight(options.scene, counts_, framesInFlight_, settingsFile);
  if (run_->count("--seed") > 0) {
    const Scene& scene = findScene(options.scene.scene);
    const std::uint64_t seed = parseSeedFlag("--seed", seed_);
    if (!scene.seeded())
      throw UsageError("--seed: the " + std::string(scene.name()) + " scene has no random initial conditions");
    scene.setSeed(options.scene, seed);
  }
  applyDiagnosticsEvery(*run_, diagnosticsEvery_, options.scene);
  options.gpu = shared_.gpu();
  options.gpus = shared_.gpus();
  options.rank = shared_.rendezvous(findScene(options.scene.scene));
  shared_.applyForces(options.scene);
  // The diagnostics' energy sums every pair (docs/DIAGNOSTICS.md): beside a tree's frame one sample costs as much as
  // a direct-summation frame (at 1,048,576 bodies, 36 frames of the tree's), so only --diagnostics-every asks for it.
  if (run_->count("--diagnostics-every") == 0 && options.scene.scene == "nbody" && usesTree(options.scene.sim) &&
      options.scene.sim.diagnosticsEvery > 0) {
    options.scene.sim.diagnosticsEvery = 0;
    if (!shared_.quiet())
      std::fprintf(stderr,
                   "graphsim: forces: tree: live diagnostics off (their energy sums every pair); "
                   "--diagnostics-every K turns them on\n");
  }
  if (options.rank && options.loadState)
    throw UsageError("--load-state: one process per GPU (--rendezvous) starts from the scene, not from a snapshot");
  applyOutputFlags(options);
  options.waitTimeout = shared_.waitTimeout();
  options.throttleWait = shared_.throttleWait();
  shared_.applyRenderMode(options.scene.render);
  return options;
}

// The output flags (captures, graph dump, snapshot, recording, video and its camera path), each checked, and no two
// naming the same file.
void RunCommandLine::applyOutputFlags(RunOptions& options) const {
  if (run_->count("--capture-every") > 0) {
    // 0 used to mean "the last frame only", which is what leaving the flag out does: one way to say it.
    bool overflow = false;
    if (const std::optional<std::int64_t> k = wholeNumber(captureEvery_, overflow); k && *k < 1)
      throw UsageError("--capture-every: must be >= 1 (omit it to capture only the last frame), got " +
                       asTyped(captureEvery_));
    options.captureEvery = parseIntegerFlag("--capture-every", captureEvery_, 1, kMaxFrames);
    if (capture_.empty()) throw UsageError("--capture-every: needs --capture PATH.png as the name pattern");
  }
  if (run_->count("--capture") > 0) {
    // --capture-every adds "_<frame>" (6 digits, more past frame 999,999) to the name.
    const std::int64_t lastFrame = options.untilClosed ? kMaxFrames : options.frames;
    const std::size_t digits = std::max<std::size_t>(6, std::to_string(lastFrame).size());
    checkCapturePath(capture_, options.captureEvery > 0 ? 1 + digits : 0);
    if (!options.untilClosed && options.frames == 0)
      throw UsageError("--capture: --frames 0 renders no frame to capture");
    options.capture = fs::path(capture_);
  }
  if (run_->count("--dump-graph") > 0) {
    checkDumpGraphPath(dumpGraph_, options.backend);
    options.dumpGraph = fs::path(dumpGraph_);
  }
  if (run_->count("--save-state") > 0) options.saveState = checkOutputPath("--save-state", saveState_);
  if (run_->count("--record-checkpoint-every") > 0 && run_->count("--record") == 0)
    throw UsageError("--record-checkpoint-every: needs --record FILE");
  options.recordCheckpointEvery =
      static_cast<std::uint64_t>(parseIntegerFlag("--record-checkpoint-every", recordEvery_, 1, 1'000'000));
  if (run_->count("--record") > 0) {
    if (options.loadState)
      throw UsageError(
          "--record: a run resumed with --load-state cannot be recorded yet (the replay starts from "
          "the scene's initial conditions)");
    if (!options.untilClosed && options.frames == 0)
      throw UsageError("--record: --frames 0 records no frame to replay");
    options.record = checkOutputPath("--record", record_);
  }
  options.video = parseVideoFlags(*run_, options.scene.render.width, options.scene.render.height);
  if (options.video && !options.untilClosed && options.frames == 0)
    throw UsageError("--video: --frames 0 renders nothing to record");
  options.cameraPath = parseCameraPathFlag(*run_, options.video);
  OutputRegistry outputs = registerOutputs(options);
  if (options.dumpGraph) outputs.add("--dump-graph", *options.dumpGraph);
  if (options.saveState) outputs.add("--save-state", *options.saveState);
  if (options.record) outputs.add("--record", *options.record);
  outputs.check();
}

// The file's scene, count and parameters are the run's: flags that would change them are refused rather than ranked.
void RunCommandLine::applyLoadState(RunOptions& options) const {
  if (loadState_.empty()) throw UsageError("--load-state: empty path");
  auto state = std::make_shared<SceneState>(readSnapshotFile(loadState_));
  const std::string& name = state->source; // "--load-state PATH"
  if (run_->count("--scene") > 0 && scene_ != state->scene)
    throw UsageError("--scene " + asTyped(scene_) + " contradicts " + name + ", which holds a state of the " +
                     state->scene + " scene (leave --scene out)");
  if (run_->count("--config") > 0)
    throw UsageError("--config: the scene's parameters come from " + name + "; give one of the two");
  if (run_->count("--seed") > 0) throw UsageError("--seed: the state comes from " + name + "; leave --seed out");
  options.scene = settingsOfSnapshot(*state);
  const Scene& scene = findScene(state->scene);
  if (const std::string* text = counts_.given(scene)) {
    const std::string flag = CountFlags::flagOf(scene);
    if (parseIntegerFlag(flag, *text, 1, scene.maxCount()) != state->count)
      throw UsageError(flag + " " + asTyped(*text) + " contradicts " + name + ", which holds " +
                       std::to_string(state->count) + " " + std::string(scene.countNoun()) + " (leave " + flag +
                       " out)");
  }
  // auto: a CPU-saved state resumes on the CPU (bit for bit: the backends round differently); a CUDA-saved one where
  // auto would run (CUDA where a device exists).
  if (options.backend == BackendKind::Auto && state->backend == "cpu") options.backend = BackendKind::Cpu;
  options.loadState = std::move(state);
}

// `graphsim soak` (app/reliability/soak.h, docs/RELIABILITY.md): headless, live graph edits, checked against a CPU
// replay. Its flags, bound as typed, and their validation into SoakOptions.
class SoakCommandLine {
public:
  explicit SoakCommandLine(CLI::App& app);

  CLI::App* subcommand() const { return soak_; }
  bool parsed() const { return soak_->parsed(); }
  SoakOptions options() const; // after a successful parse; bad input throws UsageError (exit 2)

private:
  CLI::App* soak_ = nullptr;
  SharedFlags shared_{{BackendKind::Auto, BackendKind::Cpu, BackendKind::Cuda}, BackendKind::Auto};
  std::string scene_ = defaultSceneName(), frames_, seed_, checkpointEvery_; // as typed; the defaults are SoakOptions'
  CountFlags counts_;                                                        // --bodies, --particles
};

SoakCommandLine::SoakCommandLine(CLI::App& app) {
  const SoakOptions defaults;
  frames_ = std::to_string(defaults.frames);
  seed_ = std::to_string(defaults.seed);
  checkpointEvery_ = std::to_string(defaults.checkpointEvery);
  soak_ = app.add_subcommand(
      "soak",
      "Headless soak: seeded random toggles, parameter moves and structural changes, checked against a CPU replay.");
  soak_->add_option("--scene", scene_, "Scene to soak: " + sceneChoices())->capture_default_str();
  shared_.addBackend(*soak_);
  shared_.addInterop(*soak_);
  addIntegerOption(*soak_, "--frames", frames_, "Frames to run, 1.." + std::to_string(kMaxFrames))
      ->capture_default_str();
  counts_.add(
      *soak_,
      "the CPU replay runs the same N: keep it small; default: nbody 1024 (at least 2), fluid 4096 (at least 2048); ");
  addIntegerOption(*soak_, "--seed", seed_, "Seed of the initial conditions and of the change sequence")
      ->capture_default_str();
  addIntegerOption(*soak_, "--checkpoint-every", checkpointEvery_, "Frames between comparisons with the replay, >= 2")
      ->capture_default_str();
  shared_.addValidation(*soak_, "soak");
  shared_.addGpu(*soak_, "As for run");
  shared_.addGpus(*soak_);
  shared_.addForces(*soak_);
  shared_.addRendezvous(*soak_,
                        "Rank 0 makes the changes, checks against the replay and reports; the other ranks follow.");
  shared_.addWaitTimeout(*soak_);
  shared_.addQuiet(*soak_, "No progress lines");
  soak_->footer(
      "Prints a report (frames, changes by kind, graph updates, checkpoint errors, validation messages).\n"
      "Exit codes as for run (130/143/129 when interrupted by SIGINT/SIGTERM/SIGHUP), and 1 when a\n"
      "checkpoint or the validation fails. See docs/RELIABILITY.md.");
}

SoakOptions SoakCommandLine::options() const {
  SoakOptions soak;
  soak.validation = shared_.validation();
  soak.quiet = shared_.quiet();
  soak.backend = shared_.backend();
  soak.interop = shared_.interop();
  soak.frames = parseIntegerFlag("--frames", frames_, 1, kMaxFrames);
  const Scene& scene = findScene(scene_);
  soak.scene = scene_;
  // n-body: the replay needs two bodies to interact; checkCount adds this machine's memory.
  const Scene::SoakCounts counts = scene.soakCounts();
  const std::string flag = CountFlags::flagOf(scene);
  const std::string* count = counts_.given(scene);
  soak.count = count != nullptr ? parseIntegerFlag(flag, *count, counts.min, scene.maxCount()) : counts.byDefault;
  soak.capacity =
      parseCapacityFlag(scene, counts_, soak.count, count != nullptr ? flag : "the soak's default").value_or(0);
  scene.checkCount(soakSettings(scene, soak), soak.framesInFlight, flag, 0);
  soak.seed = parseSeedFlag("--seed", seed_);
  soak.checkpointEvery = parseIntegerFlag("--checkpoint-every", checkpointEvery_, 2, kMaxFrames);
  soak.gpu = shared_.gpu();
  soak.gpus = shared_.gpus();
  soak.rank = shared_.rendezvous(scene);
  SceneSettings forces = soakSettings(scene, soak);
  shared_.applyForces(forces);
  if (forces.scene == "nbody") soak.forces = forces.sim.forces;
  soak.waitTimeout = shared_.waitTimeout();
  return soak;
}

// The value typed for a flag of a parsed subcommand; nullopt when the flag was not given.
std::optional<std::string> typedValue(const CLI::App& command, const std::string& flag) {
  const CLI::Option* option = command.get_option_no_throw(flag);
  if (option == nullptr || option->count() == 0 || option->results().empty()) return std::nullopt;
  return option->results().back();
}

// bench's output flags and --variants, checked before the rest of its validation (app/cli/bench_cli.cpp) so that
// each output path is refused as what is wrong with it (empty, too long, a parent that is a file, a symlink loop,
// two flags naming one file) before minutes of benchmarking.
void checkBenchFlags(const CLI::App& bench) {
  OutputRegistry outputs;
  for (const char* flag :
       {"--json", "--csv", "--frame-log", "--video"}) // --video: it replaced a report of the same name
    if (const std::optional<std::string> value = typedValue(bench, flag))
      outputs.add(flag, checkOutputPath(flag, *value));
  const std::optional<std::string> dir = typedValue(bench, "--capture-dir");
  if (dir && dir->empty()) throw UsageError("--capture-dir: empty path (name a directory, or leave --capture-dir out)");
  if (dir) { // any frame number: --capture-every is checked later
    for (const char* extension : {".png", ".json"})
      outputs.addNumbered("--capture-dir's files", fs::path(*dir) / (std::string(kBenchCaptureStem) + extension), 1, 0);
  }
  outputs.check();
  if (const std::optional<std::string> list = typedValue(bench, "--variants");
      list && *list != "all" && *list != "none") {
    for (const char* word : {"all", "none"}) {
      const std::string item = "," + *list + ",";
      if (item.find(std::string(",") + word + ",") != std::string::npos)
        throw UsageError("--variants " + shownText(*list) + ": '" + word +
                         "' stands alone (all: every variant; none: the product path only), not in a list");
    }
  }
}

} // namespace

Command parseCommandLine(int argc, char** argv) {
  checkStandardStreamsAtExit(); // --help, list-gpus, the soak report, the bench table: stdout's failures are exit 1
  CLI::App app{"graphsim — particle simulations (scenes: " + sceneChoices() +
                   "): CUDA graph per frame, Vulkan renderer, shared memory and semaphores.",
               "graphsim"};
  app.set_version_flag("--version", std::string(kVersionLine));
  app.require_subcommand(0, 1);
  app.footer("Run 'graphsim run --help' for the simulation flags.");
  // The subcommands in --help order; their flags are bound to these objects.
  RunCommandLine run(app);
  CLI::App* listGpus = app.add_subcommand("list-gpus", "List Vulkan devices (with UUIDs) and CUDA devices.");
  BenchCommandLine bench(app);
  SoakCommandLine soak(app);
  ReplayCommandLine replay(app);

  if (argc <= 1) {
    std::cout << app.help();
    return ExitNow{kExitOk};
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << (run.parsed()         ? run.subcommand()->help()
                  : listGpus->parsed() ? listGpus->help()
                  : bench.parsed()     ? bench.subcommand()->help()
                  : soak.parsed()      ? soak.subcommand()->help()
                  : replay.parsed()    ? replay.subcommand()->help()
                                       : app.help());
    return ExitNow{kExitOk};
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return ExitNow{kExitOk};
  } catch (const CLI::CallForVersion&) {
    std::cout << kVersionLine << "\n";
    return ExitNow{kExitOk};
  } catch (const CLI::ParseError& e) {
    std::cerr << "graphsim: " << oneLineMessage(e.what()) << " (see --help)\n";
    return ExitNow{kExitUsage};
  }
  if (listGpus->parsed()) return ListGpusCommand{};
  if (run.parsed() && run.listScenes()) {
    printSceneList();
    return ExitNow{kExitOk};
  }
  if (bench.parsed()) {
    checkBenchFlags(*bench.subcommand());
    BenchOptions options = bench.options(argc, argv);
    if (!options.simOnly) checkVulkanDriverManifests();
    return options;
  }
  if (soak.parsed()) {
    SoakOptions options = soak.options();
    checkVulkanDriverManifests();
    return options;
  }
  if (replay.parsed()) {
    RunOptions options = replay.options();
    checkVulkanDriverManifests();
    return options;
  }
  if (!run.parsed()) {
    std::cout << app.help();
    return ExitNow{kExitUsage};
  }
  RunOptions options = run.options();
  checkVulkanDriverManifests(); // after the flags: a usage error is exit 2 on any machine
  return options;
}

} // namespace graphsim::app
