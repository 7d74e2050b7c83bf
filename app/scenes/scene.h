// A scene as the app sees it (issue 13): the one interface the frame loop (app/run/session), the panel, bench,
// soak, captures and the command line use for any scene. docs/SCENES.md shows it and the files a new scene adds.
//
//   Scene          the registry entry: name, description, preset and scene-file keys, the element count and its
//                  limits, and the factories of what runs it (producer, soak, bench plan). Stateless.
//   SceneProducer  one running scene on one backend: fills frame k's render buffer (FrameProducer), takes the
//                  panel's, keys' and soak's edits at the start of the next frame, draws its panel section, maps
//                  its state to the render (camera, box, palette, point radius) and reports its costs.
//
// Nothing outside app/scenes/<scene>/ names a scene: app/cli/registry.cpp lists them, one line each.
#pragma once

#include <any>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <glm/glm.hpp>
#include <nlohmann/json_fwd.hpp>

#include "app/faults/fault_injection.h"
#include "app/frame/frame_driver.h"
#include "app/scenes/panel_layout.h"
#include "app/scenes/scene_engine.h"
#include "app/scenes/scene_state.h"
#include "compute/nbody/nbody.h"
#include "compute/nbody/nbody_backend.h" // NodeInfo, UpdateCounters
#include "compute/process_rank.h"
#include "render/camera.h"

namespace graphsim::app {

class JsonReader;
struct FrameStats;
struct BenchOptions;
struct BenchReport;
struct SoakOptions;
enum class BackendKind;

// The default scene: the registry's first (app/cli/registry.cpp).
std::string defaultSceneName();

struct RenderSettings {
  std::uint32_t width = 1280;
  std::uint32_t height = 720;
  float pointRadius = 0.018f;
  render::Camera camera;
  bool cameraGiven = false; // the preset or scene file set render.camera (else the scene frames itself)
  render::RenderMode mode = render::RenderMode::Particles; // render.mode: "particles" | "surface"
  render::SurfaceStyle surface; // render.smoothing_radius, smoothing_iterations, absorption, foam
};

// What a run of a scene is set up with: built from the scene's embedded preset (assets/scenes/<scene>.json), then
// a --config file, then command-line flags, each layer validated by the scene.
struct SceneSettings {
  std::string scene = defaultSceneName(); // the registry name (Scene::name)
  RenderSettings render;
  // The n-body scene's simulation config. It lives here rather than in `config` because callers (tests among them)
  // set settings.sim directly; the other scenes ignore it.
  NBodyConfig sim;
  std::any config; // any other scene's own configuration (the fluid scene: fluid::FluidConfig)
};

// How a producer reaches the renderer: the renderer's body-buffer mode says which path (HostVisible: the CPU
// writes; Exported: CUDA interop; Staged: CUDA through the host). renderer == nullptr: simulation only.
struct ProducerRequest {
  bool cuda = false;
  render::ParticleRenderer* renderer = nullptr;
  int cudaDevice = 0;
  std::vector<int> gpus; // several GPUs (--gpus): gpus[0] == cudaDevice; empty or one: cudaDevice alone
  std::chrono::milliseconds waitTimeout{5000};
  FaultPlan inject;
  const ProcessRank* rank = nullptr; // rank 0 of a job of one process per GPU (--rendezvous); cudaDevice is its GPU
};

class Scene;

// What the base decided at the start of frame k (SceneProducer::applyEdits).
struct FrameEdits {
  std::uint64_t frame = 0;
  bool reset = false;  // a reset was requested (R, the Reset button, a replayed reset): start the scene over
  bool advance = true; // this frame simulates (paused frames still run on CUDA, with nothing to simulate)
};

// One running scene on one backend. The base does, once for every scene: the frame's hand-off (FrameFeed over the
// scene's SceneEngine, app/scenes/scene_engine.h), pause, step and reset, the simulated time, the controls' common
// keys, and what the panel and the session read of the backend. A scene writes the virtuals: edits, look, panel, state.
class SceneProducer : public FrameProducer {
public:
  ~SceneProducer() override;
  // The scene this producer runs: a scene's own code downcasts a producer of its scene to its producer type with a
  // static_cast after comparing this (nbodyController, fluidBackend, ...): checked, without RTTI.
  const Scene& scene() const { return scene_; }

  // FrameProducer: the feed.
  std::optional<std::uint64_t> produce(std::uint64_t k) final { return feed_.produce(k, advance_); }
  bool gpuOrdered() const final { return feed_.gpuOrdered(); }
  void waitProduced(std::uint64_t k) final { feed_.waitProduced(k); }
  void finish() final { feed_.finish(); }

  std::string_view backendName() const { return engine_->name(); } // "cpu" | "cuda"
  std::int64_t count() const { return engine_->count(); }          // elements in the render buffer this frame
  // Start of frame k (after the throttle): whether it advances simulated time, and the edits since the last
  // (applyEdits).
  void beginFrame(std::uint64_t k);

  // Controls shared by every scene (panel buttons, keys).
  void togglePause() { paused_ = !paused_; }
  void requestStep() { stepRequested_ = true; }
  void requestReset() { resetRequested_ = true; }
  bool paused() const { return paused_; }
  bool advances() const { return advance_; } // whether the last beginFrame simulated
  double simTime() const { return simTime_; }

  double simMs() const { return feed_.simMs(); } // last frame: CPU wall time / CUDA GPU time; < 0 unknown
  double updateHostUs() const { return engine_->updateHostUs(); } // host time of the last frame's node updates
  UpdateCounters counters() const { return engine_->counters(); }
  const std::vector<NodeInfo>& nodes() const { return engine_->nodes(); }
  // Whether the Graph section's checkbox of a node is live, what it does, and its tooltip (empty: none).
  bool nodeTogglable(const NodeInfo& node) { return node.togglable && nodeSwitch(node, nullptr) != nullptr; }
  void setNodeEnabled(const NodeInfo& node, bool enabled);
  std::string nodeTooltip(const NodeInfo& node);
  bool setProfiling(bool on) { return engine_->setProfiling(on); }
  bool hasGraph() const { return engine_->cuda(); }
  void dumpGraph(const std::filesystem::path& path) const { engine_->dumpGraph(path); }
  std::optional<SceneNotice> blowUp() const { return engine_->blowUp(); } // never waits
  std::string describeState() const; // the run's summary: "16384 bodies", "65536 particles"

  // Session recording and replay (issue 15, app/record, docs/RECORDING.md): the live controls as the panel, keys
  // and mouse left them before the next frame (the scene's liveControls, then pause and the pending step and reset)
  // as JSON; setControls takes such a JSON back, checked whole first (UsageError naming the key), then applied as
  // the panel would apply it, at the start of the next frame.
  nlohmann::json controls() const;
  void setControls(const nlohmann::json& controls);
  // setControls' check alone, nothing applied; the UsageError's message starts with `source` (a replay checks every
  // recorded change this way before its first frame, naming the file and the event).
  void checkRecordedControls(const nlohmann::json& controls, const std::string& source);

  // Fills what the scene decides about the frame's look: palette, box, colour scale, point radius when physical.
  virtual void styleFrame(render::FrameSubmit& submit) const = 0;
  // The panel (ImGui, between NewFrame and Render): the Parameters section and the scene's Stats lines. Widgets
  // are recorded in `layout` under "param:<name>" / "toggle:<name>" for the scripted UI tests.
  virtual void drawParameters(const FrameStats& stats, PanelLayout& layout) = 0;
  virtual void drawStats(const FrameStats& stats) = 0;
  // Hold A: the scene's pointer (the n-body attractor, the fluid obstacle) follows `point` (on the plane through the
  // orbit target); `pressed` on the first frame of the hold.
  virtual void pointAt(const glm::vec3& point, bool pressed) = 0;
  // What the last finished frame did, for the progress line and the summary ("last frame 12 substeps, dt 1.39 ms");
  // empty when nothing is worth saying. Never waits (CUDA: an asynchronous readback, a frame or more late).
  virtual std::string frameDetail() const { return {}; }
  // A line for the run's summary on the live diagnostics (issue 15, docs/DIAGNOSTICS.md): the first and last sample
  // and their drift; empty when the scene has none or took no sample. Never waits.
  virtual std::string diagnosticsSummary() const { return {}; }

  // Snapshots (issue 15, app/snapshot/, docs/SNAPSHOTS.md). saveState: the state after the last produced frame,
  // enough for a bit-exact resume on the backend that saved it (settings as scene-file JSON, per-element arrays,
  // simulated time); CUDA downloads it (waits for the frames in flight). loadState: replaces the running state with
  // one this scene saved, at the same count and settings (the session makes the producer from settingsOfSnapshot),
  // through the backend's setState (CUDA uploads it). Every check comes first: another scene, another count, a
  // missing or misshapen array is a UsageError that leaves the running state as it was.
  virtual SceneState saveState() = 0;
  virtual void loadState(const SceneState& state) = 0;

protected:
  SceneProducer(const Scene& scene, std::unique_ptr<SceneEngine> engine, render::ParticleRenderer* renderer,
                const FaultPlan& inject);

  // Frame k's edits, applied to the backend: parameters, switches, count, a reset; returns the simulated time of the
  // state shown. Throws what the backend throws.
  virtual double applyEdits(const FrameEdits& edits) = 0;
  // The wanted state a node's checkbox sets (its stage's, its toggle's, the diagnostics sampling's; nullptr: none),
  // and with `tooltip` what it does. The panel asks every frame without a tooltip: that must not allocate.
  virtual bool* nodeSwitch(const NodeInfo& node, std::string* tooltip) = 0;
  // The scene's keys of controls() (besides "paused", "step", "reset"); checkControls checks a recorded JSON's
  // (UsageError naming the key, allowOnly of all keys) and returns what applies them once the common keys are read.
  virtual nlohmann::json liveControls() const = 0;
  virtual std::function<void()> checkControls(const JsonReader& controls) = 0;

  const FaultPlan& inject() const { return inject_; }
  void setSimTime(double simTime) { simTime_ = simTime; } // a loaded snapshot's

private:
  const Scene& scene_;
  std::unique_ptr<SceneEngine> engine_;
  FrameFeed feed_;
  FaultPlan inject_;
  bool paused_ = false, stepRequested_ = false, resetRequested_ = false, advance_ = true;
  double simTime_ = 0;
};

// One scene's soak (app/reliability/soak.cpp runs the loop): seeded changes through the session's producer, the
// replay and the checks at checkpoints, and the report lines.
class SceneSoak {
public:
  virtual ~SceneSoak() = default;
  // Before frame k's tick: the changes due now.
  virtual void change(std::uint64_t k, SceneProducer& run) = 0;
  // After frame k's tick: the replay's frame, and a checkpoint when due.
  virtual void afterFrame(std::uint64_t k, SceneProducer& run, bool checkpoint) = 0;
  virtual void printChanges() const = 0;     // "changes: ..."
  virtual void printCheckpoints() const = 0; // "checkpoints: ...", "checkpoint errors: ..."
  virtual bool passed() const = 0;
};

// What a run costs on one backend, for the warning before a configuration that takes minutes (app/run/slow_config.h).
struct CostEstimate {
  double frameSeconds = 0;      // one frame
  double startupSeconds = 0;    // before the first frame
  double worstFrameSeconds = 0; // a frame whose motion needs every allowed substep (the fluid's maxSubsteps); 0: none
  std::string basis;            // how it was estimated: "N^2 = 65536^2 pair interactions per forces stage at ..."
  std::string advice;           // what is practical instead: "--backend cuda or fewer bodies is practical"
};

// What a rank other than 0 did (SceneCapabilities::followRank0).
struct FollowedRun {
  std::string summary;      // "followed rank 0 for 300 frames (2 resets, 30 gathers)"
  bool rank0Failed = false; // rank 0 ended the run with an error
};

// What a scene is and can do, as data (issue 27): one record instead of a virtual per capability. The command line,
// the panel, bench and soak read it; a scene fills it once.
struct SceneCapabilities {
  std::string_view name;        // the registry name: --scene, scene files, messages
  std::string_view description; // one line, for `run --scene list` and --help
  // The element count's noun ("bodies", "particles"): the flag --<noun> sets it, messages and the summary use it.
  std::string_view countNoun;
  std::int64_t maxCount = 1;
  // Scene-file keys besides "scene" and "render", in --help order.
  std::span<const std::string_view> jsonKeys;
  bool seeded = false;      // --seed means something (setSeed)
  bool diagnostics = false; // --diagnostics-every means something (setDiagnosticsEvery; docs/DIAGNOSTICS.md)
  bool severalGpus = false; // --gpus runs it on several GPUs (docs/MULTI-GPU.md)
  // The count's capacity (issue 14), for scenes whose simulation buffers are sized to one so that count changes up
  // to it need no new buffers (n-body: kernel-node updates only): its --help text; empty: no capacity, no
  // --max-<noun>. See capacity()/setCapacity().
  std::string capacityHelp;
  // A soak's count by default and its smallest.
  std::int64_t soakDefaultCount = 1, soakMinCount = 1;
  // Scenes that run as one process per GPU (--rendezvous; docs/MULTI-GPU.md, "Roles"): a rank other than 0, on its
  // CUDA device, builds the compute-only graph of its share from the same settings as rank 0 (capacity: the render
  // buffers' of rank 0, which size the simulation's arrays too) and follows rank 0 until it ends the run. nullptr:
  // the scene does not.
  FollowedRun (*followRank0)(const SceneSettings& settings, std::int64_t capacity, int device, const ProcessRank& rank,
                             std::chrono::milliseconds waitTimeout) = nullptr;
};

class Scene {
public:
  explicit Scene(SceneCapabilities capabilities) : capabilities_(std::move(capabilities)) {}
  virtual ~Scene() = default;
  const SceneCapabilities& capabilities() const { return capabilities_; }
  std::string_view name() const { return capabilities_.name; }
  std::string_view description() const { return capabilities_.description; }
  std::string_view countNoun() const { return capabilities_.countNoun; }
  std::int64_t maxCount() const { return capabilities_.maxCount; }
  std::span<const std::string_view> jsonKeys() const { return capabilities_.jsonKeys; }
  bool seeded() const { return capabilities_.seeded; }
  bool hasDiagnostics() const { return capabilities_.diagnostics; }
  const std::string& capacityHelp() const { return capabilities_.capacityHelp; }
  struct SoakCounts {
    std::int64_t byDefault, min;
  };
  SoakCounts soakCounts() const { return {capabilities_.soakDefaultCount, capabilities_.soakMinCount}; }

  // Scene files: applying the keys of capabilities().jsonKeys (JsonReader says where and why a value is refused).
  // Called for the preset, then the --config file.
  virtual void applyJson(SceneSettings& settings, const JsonReader& top) const = 0;
  // A fresh settings object before the preset is applied.
  virtual SceneSettings defaults() const = 0;

  // The settings every scene may have, as places in its configuration: the count (--<noun>), the seed, the live
  // diagnostics' interval (0: off) and the capacity (0: none given, the scene's default rule). The helpers below
  // read and write them; a field a scene lacks is nullptr (its flag is refused by the capabilities).
  struct Fields {
    std::int64_t* count = nullptr;
    std::uint64_t* seed = nullptr;    // seeded scenes
    int* diagnosticsEvery = nullptr;  // scenes with capabilities().diagnostics
    std::int64_t* capacity = nullptr; // scenes with a capacityHelp
  };
  virtual Fields fields(SceneSettings& settings) const = 0;
  // fields() only takes addresses: reading through it changes nothing.
  std::int64_t count(const SceneSettings& settings) const {
    return *fields(const_cast<SceneSettings&>(settings)).count;
  }
  void setCount(SceneSettings& settings, std::int64_t count) const { *fields(settings).count = count; } // [1, max]
  void setSeed(SceneSettings& settings, std::uint64_t seed) const { set(fields(settings).seed, seed); }
  void setDiagnosticsEvery(SceneSettings& settings, int every) const { set(fields(settings).diagnosticsEvery, every); }
  // The count's capacity, for scenes with a capacityHelp: --max-<noun> (app/cli: CountFlags) and a scene-file key of
  // its own; capacity() is the one given by a layer (nullopt: the scene's default rule, which renderCapacity
  // applies). Refusals (UsageError, exit 2) name the key or flag: a capacity below the count, above maxCount.
  std::optional<std::int64_t> capacity(const SceneSettings& settings) const {
    const std::int64_t* c = fields(const_cast<SceneSettings&>(settings)).capacity;
    return c != nullptr && *c > 0 ? std::optional<std::int64_t>(*c) : std::nullopt;
  }
  void setCapacity(SceneSettings& settings, std::int64_t capacity) const { set(fields(settings).capacity, capacity); }
  // Refuses (UsageError naming `flag`) a count this machine cannot hold, before anything is allocated:
  // host memory, and GPU memory when the CUDA device is known (cudaTotalMemory > 0).
  virtual void checkCount(const SceneSettings& settings, std::uint32_t framesInFlight, const std::string& flag,
                          std::size_t cudaTotalMemory) const = 0;
  // Checks that need the whole settings (after every layer): UsageError naming the flag or key.
  virtual void checkSettings(const SceneSettings& settings) const = 0;
  // The camera a run starts with: the scene file's, else the scene's own framing.
  virtual render::Camera initialCamera(const SceneSettings& settings) const = 0;
  // Capacity of each render buffer: room for the count controls to grow without new buffers. For a scene with a
  // capacity (below) the same number sizes its simulation buffers.
  virtual std::int64_t renderCapacity(const SceneSettings& settings) const = 0;

  // Throws InteropImportError when CUDA cannot import the renderer's exports (the session may fall back to host
  // copy), EnvironmentError, UsageError (a fault the backend cannot take).
  virtual std::unique_ptr<SceneProducer> makeProducer(const SceneSettings& settings,
                                                      const ProducerRequest& request) const = 0;
  virtual std::unique_ptr<SceneSoak> makeSoak(const SceneSettings& settings, const SoakOptions& options,
                                              std::int64_t maxCount) const = 0;
  // graphsim bench for this scene: runs the product path and its comparisons and fills the report.
  virtual void runBench(const BenchOptions& options, BenchReport& report) const = 0;
  // The cost of these settings on the cpu backend (cpu = true: a rate measured on this machine now, ~10 ms) or the
  // cuda one (a rate measured on an H100, docs/PERFORMANCE.md); nullopt when no backend takes long at this size.
  virtual std::optional<CostEstimate> estimateCost(const SceneSettings& settings, bool cpu) const = 0;

private:
  template <class T>
  static void set(T* field, T value) {
    if (field != nullptr) *field = value;
  }

  SceneCapabilities capabilities_;
};

// The registry (app/cli/registry.cpp), in --help order.
std::span<const Scene* const> scenes();

// UsageError "--scene: unknown scene 'x' (available: nbody, fluid)".
const Scene& findScene(std::string_view name);
// --gpus: UsageError unless the scene runs on several GPUs, naming those that do.
void checkSeveralGpus(const Scene& scene);
// The embedded preset of a scene (assets/scenes/<name>.json), applied to its defaults.
SceneSettings loadPreset(std::string_view scene);

// Helpers the scenes share.
// The run summary's diagnostics line: "<summary> (every K frames)"; empty without a sample.
inline std::string everyFrames(const std::string& summary, int every) {
  return summary.empty() ? summary : summary + " (every " + std::to_string(every) + " frames)";
}
void recordWidget(PanelLayout& layout, std::string_view id); // the last ImGui item's rectangle under `id`
// The Parameters section's cost lines: this frame's node-update time, the running counts of node updates, enable
// toggles, whole-graph updates and re-instantiations, the last fallback reason and `lastStructural` (if any).
void drawUpdateCounters(const FrameStats& stats, const std::string& lastStructural);

} // namespace graphsim::app
