// The flags and parsers the commands share (cli.h): counts and their capacity, seeds, diagnostics intervals, the
// backend, interop, GPU and wait flags, and the whole-number parsing with messages that name the flag.
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "app/base/errors.h"
#include "app/base/output_paths.h"
#include "app/cli/cli.h"
#include "app/io/user_text.h"
#include "app/run/ranks.h"
#include "compute/protocol.h"

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;

const char* backendFlagName(BackendKind kind) {
  switch (kind) {
  case BackendKind::Auto: return "auto";
  case BackendKind::Cpu: return "cpu";
  case BackendKind::Cuda: return "cuda";
  }
  return "unknown";
}

} // namespace

std::optional<std::int64_t> wholeNumber(const std::string& text, bool& overflow) {
  overflow = false;
  const std::size_t digits = text.empty() || (text[0] != '+' && text[0] != '-') ? 0 : 1;
  if (text.size() == digits || text.find_first_not_of("0123456789", digits) != std::string::npos) return std::nullopt;
  // from_chars takes a '-' but not a '+'.
  const char* first = text.data() + (text[0] == '+' ? 1 : 0);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(first, text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) overflow = true;
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string asTyped(const std::string& text) { return text.empty() ? "an empty value" : shownText(text); }

// A capture must be creatable now: checked before any GPU work so a typo fails in milliseconds, not after a run.
// `numberLength`: the characters --capture-every adds to the name ("_000042"), 0 without it.
void checkCapturePath(const std::string& capture, std::size_t numberLength) {
  const fs::path path(capture);
  if (path.filename() == ".png")
    throw UsageError(fileNamedBy("--capture", capture) + ": the file name needs a stem before .png (e.g. " +
                     shownText((path.parent_path() / "frame.png").string(), kShownPathLimit) + ")");
  if (path.extension() != ".png") throw UsageError(fileNamedBy("--capture", capture) + ": must end in .png");
  checkOutputPath("--capture", capture, numberLength);
}

CLI::Option* addIntegerOption(CLI::App& app, const std::string& name, std::string& text, const std::string& help) {
  return app.add_option(name, text, help)->type_name("INT");
}

std::int64_t parseIntegerFlag(const std::string& flag, const std::string& text, std::int64_t lo, std::int64_t hi) {
  bool overflow = false;
  const std::optional<std::int64_t> value = wholeNumber(text, overflow);
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  if (!value && !overflow) throw UsageError(flag + ": must be a whole number " + range + ", got " + asTyped(text));
  if (!value || *value < lo || *value > hi) throw UsageError(flag + ": must be " + range + ", got " + asTyped(text));
  return *value;
}

CLI::Option* addDiagnosticsEveryOption(CLI::App& app, std::string& text, int defaultEvery) {
  text = std::to_string(defaultEvery);
  return addIntegerOption(app, "--diagnostics-every", text,
                          "Live diagnostics (nbody: energy, momentum, angular momentum; fluid: mass, density "
                          "deviation, compression, speed) every K frames, 0.." +
                              std::to_string(kMaxDiagnosticsEvery) + "; 0: off, no diagnostics node (default: " +
                              std::to_string(defaultEvery) + "; docs/DIAGNOSTICS.md)");
}

void applyDiagnosticsEvery(const CLI::App& app, const std::string& text, SceneSettings& settings) {
  const Scene& scene = findScene(settings.scene);
  if (app.count("--diagnostics-every") == 0) { // the command's default (the text addDiagnosticsEveryOption set)
    if (scene.hasDiagnostics()) scene.setDiagnosticsEvery(settings, std::stoi(text));
    return;
  }
  const auto every = static_cast<int>(parseIntegerFlag("--diagnostics-every", text, 0, kMaxDiagnosticsEvery));
  if (!scene.hasDiagnostics())
    throw UsageError("--diagnostics-every: the " + std::string(scene.name()) + " scene has no live diagnostics yet");
  scene.setDiagnosticsEvery(settings, every);
}

std::uint64_t parseSeedFlag(const std::string& flag, const std::string& text) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  const std::string range = "0.." + std::to_string(kMax);
  // An optional sign, as the other number flags take it; a '-' is then out of range.
  const std::size_t sign = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
  const bool negative = sign == 1 && text[0] == '-';
  if (text.size() == sign || text.find_first_not_of("0123456789", sign) != std::string::npos)
    throw UsageError(flag + ": must be a whole number " + range + ", got " + asTyped(text));
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data() + sign, text.data() + text.size(), value);
  if (negative || ec != std::errc() || end != text.data() + text.size())
    throw UsageError(flag + ": must be " + range + ", got " + asTyped(text));
  return value;
}

void CountFlags::add(CLI::App& command, const std::string& helpSuffix) {
  for (const Scene* scene : scenes()) {
    const std::string noun(scene->countNoun());
    const auto [it, added] = flags_.try_emplace(noun);
    if (!added) continue;
    std::string owners;
    for (const Scene* other : scenes())
      if (other->countNoun() == noun) owners += (owners.empty() ? "" : ", ") + std::string(other->name());
    it->second.option = addIntegerOption(command, "--" + noun, it->second.text,
                                         "Number of " + noun + " (scene " + owners + "; " + helpSuffix + "1.." +
                                             std::to_string(scene->maxCount()) + ")");
  }
  for (const Scene* scene : scenes()) {
    const std::string help = scene->capacityHelp();
    if (help.empty()) continue;
    const auto [it, added] = capacities_.try_emplace(std::string(scene->countNoun()));
    if (!added) continue;
    it->second.option = addIntegerOption(command, capacityFlagOf(*scene), it->second.text,
                                         "Capacity (scene " + std::string(scene->name()) + "): " + help);
  }
}

const std::string* CountFlags::givenCapacity(const Scene& scene) const {
  const Flag* own = nullptr;
  for (const auto& [noun, flag] : capacities_) {
    if (flag.option == nullptr || flag.option->count() == 0) continue;
    if (noun == scene.countNoun() && !scene.capacityHelp().empty()) {
      own = &flag;
      continue;
    }
    throw UsageError("--max-" + noun + ": the " + std::string(scene.name()) + " scene counts " +
                     std::string(scene.countNoun()) + " and has no capacity flag");
  }
  return own != nullptr ? &own->text : nullptr;
}

std::optional<std::int64_t> parseCapacityFlag(const Scene& scene, const CountFlags& counts, std::int64_t count,
                                              const std::string& countSource) {
  const std::string* text = counts.givenCapacity(scene);
  if (text == nullptr) return std::nullopt;
  const std::string flag = CountFlags::capacityFlagOf(scene);
  const std::int64_t capacity = parseIntegerFlag(flag, *text, 1, scene.maxCount());
  if (capacity < count)
    throw UsageError(flag + ": " + std::to_string(capacity) + " is less than " + std::to_string(count) + " " +
                     std::string(scene.countNoun()) + " (" + countSource + "); the capacity must hold them");
  return capacity;
}

const std::string* CountFlags::given(const Scene& scene) const {
  const Flag* own = nullptr;
  for (const auto& [noun, flag] : flags_) {
    if (flag.option == nullptr || flag.option->count() == 0) continue;
    if (noun == scene.countNoun()) {
      own = &flag;
      continue;
    }
    throw UsageError("--" + noun + ": the " + std::string(scene.name()) + " scene counts " +
                     std::string(scene.countNoun()) + "; use " + flagOf(scene));
  }
  return own != nullptr ? &own->text : nullptr;
}

std::uint32_t parseCountAndFramesInFlight(SceneSettings& settings, const CountFlags& counts,
                                          const std::string& framesInFlight, const std::string& settingsFile) {
  const Scene& scene = findScene(settings.scene);
  const auto f =
      static_cast<std::uint32_t>(parseIntegerFlag("--frames-in-flight", framesInFlight, 1, kMaxFramesInFlight));
  const std::string flag = CountFlags::flagOf(scene);
  const std::string* countText = counts.given(scene);
  if (countText != nullptr) scene.setCount(settings, parseIntegerFlag(flag, *countText, 1, scene.maxCount()));
  const std::int64_t count = scene.count(settings);
  if (const std::optional<std::int64_t> capacity =
          parseCapacityFlag(scene, counts, count, countText != nullptr ? flag : "the preset or scene file")) {
    scene.setCapacity(settings, *capacity);
  } else if (const std::optional<std::int64_t> fromFile = scene.capacity(settings); fromFile && *fromFile < count) {
    throw UsageError(flag + ": " + std::to_string(count) + " exceeds the capacity " + std::to_string(*fromFile) +
                     " given by the scene file; raise it with " + CountFlags::capacityFlagOf(scene));
  }
  scene.checkCount(settings, f, flag, 0);
  try {
    scene.checkSettings(settings);
  } catch (const UsageError& e) {
    if (settingsFile.empty()) throw;
    throw UsageError(settingsFile + ": " + e.what());
  }
  return f;
}

std::string sceneChoices() {
  std::string list;
  for (const Scene* scene : scenes()) list += (list.empty() ? "" : " | ") + std::string(scene->name());
  return list;
}

void printSceneList() {
  for (const Scene* scene : scenes()) {
    std::printf("%-8s %s (count: --%s)\n", std::string(scene->name()).c_str(),
                std::string(scene->description()).c_str(), std::string(scene->countNoun()).c_str());
  }
}

SharedFlags::SharedFlags(std::vector<BackendKind> backends, BackendKind defaultBackend)
    : backends_(std::move(backends)), backend_(backendFlagName(defaultBackend)),
      waitTimeoutMs_(std::to_string(RunOptions{}.waitTimeout.count())) {} // BenchOptions' and SoakOptions' too

void SharedFlags::addBackend(CLI::App& command) {
  std::string names;
  for (BackendKind kind : backends_) names += (names.empty() ? "" : " | ") + std::string(backendFlagName(kind));
  command.add_option("--backend", backend_, names)->capture_default_str();
}

void SharedFlags::addInterop(CLI::App& command) {
  command
      .add_option("--interop", interop_,
                  "auto | on | off: auto (default) falls back to copying frames through the host when Vulkan-CUDA "
                  "interop is unavailable (no device with the CUDA GPU's UUID, a missing extension, a failed "
                  "import) and says so; on: such a failure exits 3; off: always copy through the host")
      ->type_name("MODE")
      ->capture_default_str();
}

void SharedFlags::addValidation(CLI::App& command, const std::string& whatFails) {
  command.add_flag("--validation", validation_,
                   "Enable the Khronos validation layer; any message fails the " + whatFails);
}

void SharedFlags::addGpu(CLI::App& command, const std::string& help) {
  gpuOption_ = addIntegerOption(command, "--gpu", gpu_, help);
}

void SharedFlags::addGpus(CLI::App& command) {
  gpusOption_ = command
                    .add_option("--gpus", gpus_,
                                "cuda backend, n-body scene: run the frame on several GPUs through NCCL, e.g. 0,1 or "
                                "all; the first renders (docs/MULTI-GPU.md)")
                    ->type_name("LIST");
}

void SharedFlags::addRendezvous(CLI::App& command, const std::string& roles) {
  rendezvousOption_ =
      command
          .add_option("--rendezvous", rendezvous_,
                      "One process per GPU, started by a launcher (mpirun, srun, torchrun; docs/MULTI-GPU.md): rank "
                      "0 hands NCCL's id to the others through FILE, on a path every rank reads (or through MPI "
                      "with the word mpi, where graphsim was built with MPI). " +
                          roles + " Needs --backend cuda; each rank drives the GPU of its local rank")
          ->type_name("FILE|mpi");
}

std::optional<LaunchedRank> SharedFlags::rendezvous(const Scene& scene) const {
  if (rendezvousOption_ == nullptr || rendezvousOption_->count() == 0) return std::nullopt;
  const std::optional<RankPlace> place = rankFromEnvironment();
  if (!place) {
    throw UsageError(
        "--rendezvous: no launcher variables (OMPI_COMM_WORLD_RANK, SLURM_PROCID or RANK/WORLD_SIZE/"
        "LOCAL_RANK): start one graphsim per GPU with mpirun, srun or such a launcher");
  }
  if (backend() != BackendKind::Cuda) throw UsageError("--rendezvous: needs --backend cuda");
  if (gpu() || (gpusOption_ != nullptr && gpusOption_->count() > 0))
    throw UsageError("--rendezvous: each rank's GPU is picked by its local rank; drop --gpu and --gpus");
  if (scene.capabilities().followRank0 == nullptr)
    throw UsageError("--rendezvous: the " + std::string(scene.name()) + " scene runs on one GPU");
  // mpi is no file (kMpiRendezvous); a file of that name is given as ./mpi.
  if (rendezvous_ != kMpiRendezvous && (rendezvous_.empty() || fs::is_directory(rendezvous_)))
    throw UsageError("--rendezvous " + asTyped(rendezvous_) + ": not a file name");
  return LaunchedRank{*place, rendezvous_};
}

void SharedFlags::addForces(CLI::App& command) {
  forcesOption_ =
      command
          .add_option("--forces", forces_,
                      "n-body: how the forces stage sums: direct (every pair, O(N^2)), tree (an octree's "
                      "multipoles, O(N log N); theta, leaf_size and tree_tolerance are parameters), auto (tree from " +
                          std::to_string(kTreeFromBodies) +
                          " bodies); default: the scene file's \"forces\" (direct). docs/FORCES.md")
          ->type_name("MODE");
}

void SharedFlags::applyForces(SceneSettings& settings) const {
  const bool nbody = settings.scene == "nbody";
  if (forcesOption_ != nullptr && forcesOption_->count() > 0) {
    if (!nbody) throw UsageError("--forces: the " + settings.scene + " scene has no forces stage (n-body only)");
    const std::optional<NBodyForces> forces = forcesFromName(forces_);
    if (!forces) throw UsageError("--forces: unknown mode " + asTyped(forces_) + " (allowed: direct, tree, auto)");
    settings.sim.forces = *forces;
  }
  if (!nbody || settings.sim.forces != NBodyForces::Tree) return;
  const char* several = gpusOption_ != nullptr && gpusOption_->count() > 0               ? "--gpus"
                        : rendezvousOption_ != nullptr && rendezvousOption_->count() > 0 ? "--rendezvous"
                                                                                         : nullptr;
  if (several != nullptr) {
    throw UsageError(std::string(several) +
                     ": forces: tree runs on one GPU (several GPUs sum directly: forces direct, or auto)");
  }
}

void SharedFlags::addWaitTimeout(CLI::App& command) {
  addIntegerOption(command, "--wait-timeout-ms", waitTimeoutMs_, "Timeout of every host wait, in ms, 1..600000")
      ->capture_default_str();
}

void SharedFlags::addThrottleWait(CLI::App& command) {
  throttleWait_ = std::string(render::throttleWaitName(render::RendererConfig{}.throttleWait));
  command
      .add_option("--throttle-wait", throttleWait_,
                  "How the host waits for a free frame slot: block (sleep in the driver), poll (check every 50 us), "
                  "spin (a busy core), hybrid (sleep, then spin near the expected signal); docs/PERFORMANCE.md "
                  "compares their host cost and CPU time")
      ->type_name("MODE")
      ->capture_default_str();
}

void SharedFlags::addQuiet(CLI::App& command, const std::string& help) { command.add_flag("--quiet", quiet_, help); }

void SharedFlags::addRenderMode(CLI::App& command) {
  renderModeOption_ =
      command
          .add_option(
              "--render-mode", renderMode_,
              "How particles are drawn: particles (shaded spheres, one per particle) or surface (a screen-space "
              "liquid surface: smoothed depth, refraction, absorption; docs/FLUID.md); default: the scene "
              "file's render.mode, else particles")
          ->type_name("MODE");
}

void SharedFlags::applyRenderMode(RenderSettings& render) const {
  if (renderModeOption_ == nullptr || renderModeOption_->count() == 0) return;
  if (renderMode_ == "particles") {
    render.mode = render::RenderMode::Particles;
  } else if (renderMode_ == "surface") {
    render.mode = render::RenderMode::Surface;
  } else {
    throw UsageError("--render-mode: unknown mode " + asTyped(renderMode_) + " (allowed: particles, surface)");
  }
}

BackendKind SharedFlags::backend() const {
  std::string allowed;
  for (BackendKind kind : backends_) {
    if (backend_ == backendFlagName(kind)) return kind;
    allowed += (allowed.empty() ? "" : ", ") + std::string(backendFlagName(kind));
  }
  throw UsageError("--backend: unknown backend '" + backend_ + "' (allowed: " + allowed + ")");
}

InteropMode SharedFlags::interop() const {
  if (interop_ == "auto") return InteropMode::Auto;
  if (interop_ == "on") return InteropMode::On;
  if (interop_ == "off") return InteropMode::Off;
  throw UsageError("--interop: unknown mode '" + asTyped(interop_) + "' (allowed: auto, on, off)");
}

std::optional<int> SharedFlags::gpu() const {
  if (gpuOption_ == nullptr || gpuOption_->count() == 0) return std::nullopt;
  return static_cast<int>(parseIntegerFlag("--gpu", gpu_, 0, std::numeric_limits<int>::max()));
}

std::optional<GpuList> SharedFlags::gpus() const {
  if (gpusOption_ == nullptr || gpusOption_->count() == 0) return std::nullopt;
  if (gpuOption_ != nullptr && gpuOption_->count() > 0) {
    throw UsageError("--gpu and --gpus: give one (with --gpus the first GPU listed is the one that renders)");
  }
  if (backend_ == "cpu") throw UsageError("--gpus: needs --backend cuda (the cpu backend runs on the host)");
  GpuList list;
  if (gpus_ == "all") {
    list.all = true;
    return list;
  }
  std::size_t start = 0;
  while (start <= gpus_.size()) {
    const std::size_t comma = std::min(gpus_.find(',', start), gpus_.size());
    const std::string item = gpus_.substr(start, comma - start);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 6) {
      throw UsageError("--gpus: expected CUDA device indices separated by commas (e.g. 0,1) or all, got '" +
                       asTyped(gpus_) + "'");
    }
    const int index = std::stoi(item);
    if (std::find(list.indices.begin(), list.indices.end(), index) != list.indices.end()) {
      throw UsageError("--gpus: GPU " + item + " is listed twice");
    }
    list.indices.push_back(index);
    start = comma + 1;
  }
  return list;
}

render::ThrottleWait SharedFlags::throttleWait() const {
  if (const std::optional<render::ThrottleWait> w = render::throttleWaitFromName(throttleWait_)) return *w;
  throw UsageError("--throttle-wait: unknown mode '" + asTyped(throttleWait_) +
                   "' (allowed: block, poll, spin, hybrid)");
}

std::chrono::milliseconds SharedFlags::waitTimeout() const {
  return std::chrono::milliseconds(parseIntegerFlag("--wait-timeout-ms", waitTimeoutMs_, 1, 600000));
}

} // namespace graphsim::app
