// One adapter from a backend to a frame producer (issue 27), for every scene and every path to the renderer:
//   CpuMapped    the CPU backend steps frame k, then writes the mapped slot (no renderer: the step alone)
//   Interop      the CUDA graph writes the exported slot and signals simDone = k + 1 (the render waits on the GPU)
//   HostCopy     the CUDA graph, then the host waits for the frame and copies it into the slot's staging buffer
//   ComputeOnly  the CUDA graph alone (bench --sim-only, the fluid's measurements)
//
// SceneEngine is what a backend is asked per frame, the same for every scene; BackendEngine<Backend, Rules> writes it
// once over the members every backend has (name, config, nodes, counters, blowUp and stepFrame + writeRender on the
// CPU, launchFrame + copyRenderOutput + synchronize on CUDA). A scene adds a Rules struct of two functions: its count
// and the notice of its blow-up. FrameFeed is the hand-off itself, used by SceneProducer and by every bench producer.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/faults/fault_injection.h"
#include "compute/interop.h"
#include "compute/nbody/nbody_backend.h" // NodeInfo, UpdateCounters, Float4

namespace graphsim::render {
class ParticleRenderer;
}

namespace graphsim::app {

// A notice the run shows (and, headless, ends with, exit 1): a blow-up.
struct SceneNotice {
  std::string what; // "the simulation blew up in frame 6, stage integrate: non-finite velocity (...)"
  std::string hint; // the panel's second line: what to change
};

enum class FeedPath { CpuMapped, Interop, HostCopy, ComputeOnly };

// The path of a backend with this renderer: its body-buffer mode (HostVisible, Exported, Staged), none: simulation
// only.
FeedPath feedPath(bool cuda, const render::ParticleRenderer* renderer);
// Interop: the renderer's exported handles, with the import-fail test hook applied; nullopt on the other paths.
std::optional<InteropDesc> interopFor(FeedPath path, render::ParticleRenderer* renderer, const FaultPlan& inject);

// What a running scene asks of its backend, whichever backend and path.
class SceneEngine {
public:
  virtual ~SceneEngine() = default;
  virtual std::string_view name() const = 0; // "cpu" | "cuda"
  virtual bool cuda() const = 0;
  virtual std::int64_t count() const = 0; // elements in the render buffer
  // Frame k: the CPU steps it (blocks, the blow-up report names k); CUDA launches it (never waits).
  virtual void runFrame(std::uint64_t k) = 0;
  // The render output into host memory: the CPU writes its state; CUDA waits for the last frame and copies it.
  virtual void writeRender(Float4* dst) = 0;
  virtual void waitForFrame(std::uint64_t k) = 0; // bounded; the CPU's frames are done when runFrame returns
  virtual void synchronize() = 0;                 // bounded
  virtual double gpuMs() const = 0;               // CUDA: the last completed frame's GPU time; < 0 unknown or CPU
  virtual double updateHostUs() const = 0;        // host time of the last frame's node updates (CPU: 0)
  virtual UpdateCounters counters() const = 0;
  virtual const std::vector<NodeInfo>& nodes() const = 0;
  virtual bool setProfiling(bool on) = 0;                              // whether this backend measures nodes
  virtual void dumpGraph(const std::filesystem::path& path) const = 0; // CUDA: DOT through the output writer
  virtual std::optional<SceneNotice> blowUp() const = 0;               // never waits
};

// Writes a graph dump made by `dump` (which writes a file itself, e.g. cudaGraphDebugDotPrint) to `path` through
// the output writer: `dump` writes a private temporary, whose bytes then reach `path` atomically (OutputError).
void dumpThroughWriter(const std::function<void(const std::filesystem::path&)>& dump,
                       const std::filesystem::path& path);

// SceneEngine over a backend. Rules: `static std::int64_t count(const Config&)` and
// `static std::optional<SceneNotice> notice(const NBodyBlowUp&)` of the scene.
template <class Backend, class Rules>
class BackendEngine final : public SceneEngine {
public:
  static constexpr bool kCuda = requires(Backend & b) { b.launchFrame(std::uint64_t{0}); };

  template <class... Args>
  explicit BackendEngine(Args&&... args) : sim_(std::forward<Args>(args)...) {}

  Backend& backend() { return sim_; }

  std::string_view name() const override { return sim_.name(); }
  bool cuda() const override { return kCuda; }
  std::int64_t count() const override { return Rules::count(sim_.config()); }
  void runFrame(std::uint64_t k) override {
    if constexpr (kCuda) sim_.launchFrame(k);
    else sim_.stepFrame(k);
  }
  void writeRender(Float4* dst) override {
    if constexpr (kCuda) sim_.copyRenderOutput(dst);
    else sim_.writeRender(dst);
  }
  // n-body's wait for one frame is an instrument (bench reaches it through NBodyCudaInstruments): the product waits for
  // all.
  void waitForFrame(std::uint64_t k) override {
    if constexpr (requires { sim_.waitForFrame(k); }) sim_.waitForFrame(k);
    else synchronize();
  }
  void synchronize() override {
    if constexpr (kCuda) sim_.synchronize();
  }
  double gpuMs() const override {
    if constexpr (kCuda) return sim_.lastSimGpuMs();
    return -1;
  }
  double updateHostUs() const override {
    if constexpr (kCuda) return sim_.lastUpdateHostUs();
    return 0;
  }
  UpdateCounters counters() const override { return sim_.counters(); }
  const std::vector<NodeInfo>& nodes() const override { return sim_.nodes(); }
  bool setProfiling(bool on) override {
    if constexpr (requires { sim_.setProfiling(on); }) return sim_.setProfiling(on);
    return false;
  }
  void dumpGraph(const std::filesystem::path& path) const override {
    if constexpr (kCuda) dumpThroughWriter([&](const std::filesystem::path& file) { sim_.dumpGraphDot(file); }, path);
  }
  std::optional<SceneNotice> blowUp() const override {
    const auto b = sim_.blowUp();
    if (!b) return std::nullopt;
    return Rules::notice(*b);
  }

private:
  Backend sim_;
};

// A producer (a scene's, bench's) over an engine it owns and the engine's backend: Producer(unique_ptr, Backend&, ...).
template <class Producer, class Engine, class... Args>
std::unique_ptr<Producer> makeOver(std::unique_ptr<Engine> engine, Args&&... args) {
  auto& backend = engine->backend();
  return std::make_unique<Producer>(std::move(engine), backend, std::forward<Args>(args)...);
}

// The hand-off of frame k from an engine to the renderer (FrameProducer's work), on one path. A paused frame
// (advance false) skips the CPU's step; CUDA runs it (the scene gave it nothing to simulate), so that every frame k
// keeps its graph launch and simDone = k + 1. The fault plan's cuda-semaphore-stall skips a launch.
class FrameFeed {
public:
  FrameFeed(SceneEngine& engine, render::ParticleRenderer* renderer, FaultPlan inject = {});

  std::optional<std::uint64_t> produce(std::uint64_t k, bool advance = true);
  // Interop: the launch alone, ordered by the graph's wait node (FrameProducer::gpuOrdered).
  bool gpuOrdered() const { return path_ == FeedPath::Interop; }
  void waitProduced(std::uint64_t k) { engine_.waitForFrame(k); }
  void finish() { engine_.synchronize(); }
  FeedPath path() const { return path_; }
  // The last frame's simulation time: the CPU step's wall time, or the CUDA graph's GPU time; < 0 unknown.
  double simMs() const { return engine_.cuda() ? engine_.gpuMs() : stepMs_; }
  double lastWaitUs() const { return waitUs_; } // host copy: waiting for the frame and copying it out of CUDA
  const SceneEngine& engine() const { return engine_; }

private:
  SceneEngine& engine_;
  render::ParticleRenderer* renderer_;
  FeedPath path_;
  FaultPlan inject_;
  double stepMs_ = -1;
  double waitUs_ = 0;
};

} // namespace graphsim::app
