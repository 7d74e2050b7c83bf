// The frame's work as the panel, bench and the tests see it, for every scene and backend: one NodeInfo a node (CUDA)
// or stage instance (CPU), and the counters of how changes reached the graph.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace graphsim {

// One entry of the frame's work as the panel and the tests see it, in execution order.
struct NodeInfo {
  std::string name; // stage name ("forces"), with "#k" for substep k > 0; semaphore nodes "wait_render_done"...
  std::string type; // "kernel", "semaphore wait", "semaphore signal", "memcpy", "memset", "cpu"
  // The row of the scene's step table this node is an instance of (n-body: the NBodyStage's value); -1 for nodes that
  // are no step (semaphore, report and timing nodes).
  int step = -1;
  int substep = 0; // which substep's instance (0 for once-per-frame steps and non-step nodes)
  bool togglable = false, enabled = true;
  std::string whyNotTogglable; // empty when togglable
  double ms = -1;              // with profiling on: the node's time in the last measured frame (CUDA: GPU time
                               // between event-record nodes; CPU: wall time); negative when not measured
  bool diagnostics = false;    // the diagnostics node (kDiagnosticsNodeName): no step; toggled by the backend's
                               // setDiagnosticsEnabled; `enabled` is that setting, not this frame's
};

// The node of a step row's instance: its name, type and why the panel cannot switch it off (empty: it can); step:
// the row's index (-1: none), substep: which instance.
inline NodeInfo rowNode(std::string_view name, std::string_view type, std::string_view whyNot, int step = -1,
                        int substep = 0) {
  return {.name = std::string(name),
          .type = std::string(type),
          .step = step,
          .substep = substep,
          .togglable = whyNot.empty(),
          .whyNotTogglable = std::string(whyNot)};
}

// Counters of how parameter and structure changes were applied (all zero on the CPU backend's graph fields).
struct UpdateCounters {
  std::uint64_t nodeUpdates = 0;       // individual node parameter updates
  std::uint64_t enableToggles = 0;     // node enable/disable calls
  std::uint64_t wholeGraphUpdates = 0; // cudaGraphExecUpdate successes
  std::uint64_t reinstantiations = 0;  // fallbacks to a fresh instantiation
  std::string lastFallbackReason;
};

// What every scene's backend interface shares (NBodyBackend, fluid::FluidBackend): one owner, never copied; a name;
// the frame's nodes and update counters; the diagnostics node's switch.
class SceneBackend {
public:
  virtual ~SceneBackend() = default;
  SceneBackend() = default;
  SceneBackend(const SceneBackend&) = delete;
  SceneBackend& operator=(const SceneBackend&) = delete;

  virtual std::string_view name() const = 0;
  // The frame's nodes in execution order. Always the same vector (valid while the backend lives), refreshed when
  // read after something it shows changed: rebuilt after a structural change (reset, profiling on/off), updated in
  // place after a toggle or a profiled frame. Reading it without changes allocates nothing and (CUDA) makes no CUDA
  // call, so the panel can read it every frame. Not thread-safe: read it on the thread that drives the backend.
  virtual const std::vector<NodeInfo>& nodes() const = 0;
  virtual UpdateCounters counters() const = 0;
  // The live diagnostics node's switch (docs/DIAGNOSTICS.md), with config().diagnosticsEvery > 0: on by default; off,
  // no new sample (the node stays disabled) and the last stays readable. Not a stage: toggling it changes no result.
  virtual void setDiagnosticsEnabled(bool enabled) = 0;
  virtual bool diagnosticsEnabled() const = 0;
};

// The members that name a scene's own types: its configuration (structural) and its live parameters.
template <class Config, class Params>
class SceneBackendOf : public SceneBackend {
public:
  // Structural change (the count, initial conditions, seed, substeps, box): resets the state. Throws
  // std::invalid_argument for a configuration the scene refuses, before changing anything.
  virtual void reset(const Config& config) = 0;
  // Applied to the next frame; only what changed is pushed down (CUDA: node updates of the kernels it changes).
  virtual void setParams(const Params& params) = 0;
  virtual const Config& config() const = 0;
  virtual void step() = 0; // one frame; blocks until done
};

} // namespace graphsim
