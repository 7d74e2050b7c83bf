// What every simulation backend offers the app: the named stage list, parameter updates, stage toggles and stepping.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compute/nbody.h"

namespace graphsim {

// One entry of the frame's work as the panel and the tests see it, in execution order.
struct NodeInfo {
  std::string name;       // stage name ("forces"), with "#k" for substep k > 0; semaphore nodes "wait_render_done"...
  std::string type;       // "kernel", "semaphore wait", "semaphore signal", "memcpy", "memset", "cpu"
  bool togglable = false;
  bool enabled = true;
  std::string whyNotTogglable; // empty when togglable
  double ms = -1;              // with profiling on: the node's time in the last measured frame (CUDA: GPU time
                               // between event-record nodes; CPU: wall time); negative when not measured
};

// Counters of how parameter and structure changes were applied (all zero on the CPU backend's graph fields).
struct UpdateCounters {
  std::uint64_t nodeUpdates = 0;       // individual node parameter updates
  std::uint64_t enableToggles = 0;     // node enable/disable calls
  std::uint64_t wholeGraphUpdates = 0; // cudaGraphExecUpdate successes
  std::uint64_t reinstantiations = 0;  // fallbacks to a fresh instantiation
  std::string lastFallbackReason;
};

class SimBackend {
public:
  virtual ~SimBackend() = default;
  SimBackend() = default;
  SimBackend(const SimBackend&) = delete;
  SimBackend& operator=(const SimBackend&) = delete;

  virtual std::string_view name() const = 0;
  // Structural change: new body count, substeps, initial conditions or seed. Resets the state.
  virtual void reset(const SceneConfig& config) = 0;
  // Applied to the next step; only what changed is pushed down.
  virtual void setParams(const NBodyParams& params) = 0;
  virtual void setStageEnabled(Stage stage, bool enabled) = 0;
  virtual bool stageEnabled(Stage stage) const = 0;
  // One frame: substeps x (forces, attractor, integrate, damping, boundary), then colour. Blocks until done.
  virtual void step() = 0;
  // Current bodies (position+mass, half-step velocity) and per-body colour attribute, copied to the host.
  virtual void download(BodyState& state, std::vector<float>& colour) = 0;
  // The accelerations the next step's first kick uses (what the forces stage last computed), copied to the host.
  virtual std::vector<Float4> downloadAccelerations() = 0;
  virtual std::vector<NodeInfo> nodes() const = 0;
  // Per-node timing for nodes()[i].ms. Returns whether this backend can measure it.
  virtual bool setProfiling(bool enabled) = 0;
  virtual UpdateCounters counters() const = 0;
  virtual const SceneConfig& config() const = 0;
};

} // namespace graphsim
