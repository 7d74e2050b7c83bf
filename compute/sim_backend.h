// What every simulation backend offers the app: the named stage list, parameter updates, stage toggles and stepping.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compute/nbody.h"
#include "compute/nbody_diagnostics.h"

namespace graphsim {

// One entry of the frame's work as the panel and the tests see it, in execution order.
struct NodeInfo {
  std::string name; // stage name ("forces"), with "#k" for substep k > 0; semaphore nodes "wait_render_done"...
  std::string type; // "kernel", "semaphore wait", "semaphore signal", "memcpy", "memset", "cpu"
  std::optional<Stage> stage; // the stage this node is an instance of; none for semaphore, report and timing nodes
  int substep = 0;            // which substep's instance (0 for once-per-frame stages and non-stage nodes)
  bool togglable = false;
  bool enabled = true;
  std::string whyNotTogglable; // empty when togglable
  double ms = -1;              // with profiling on: the node's time in the last measured frame (CUDA: GPU time
                               // between event-record nodes; CPU: wall time); negative when not measured
  bool diagnostics = false;    // the diagnostics node (kDiagnosticsNodeName): no stage; toggled with
                               // SimBackend::setDiagnosticsEnabled; `enabled` is that setting, not this frame's
};

// Counters of how parameter and structure changes were applied (all zero on the CPU backend's graph fields).
struct UpdateCounters {
  std::uint64_t nodeUpdates = 0;       // individual node parameter updates
  std::uint64_t enableToggles = 0;     // node enable/disable calls
  std::uint64_t wholeGraphUpdates = 0; // cudaGraphExecUpdate successes
  std::uint64_t reinstantiations = 0;  // fallbacks to a fresh instantiation
  std::string lastFallbackReason;
};

// The first non-finite position, velocity or acceleration a backend's stages wrote since its last reset (issue 12):
// the integration blew up (softening too small for dt, an extreme attractor). Every later frame is non-finite
// everywhere, so only the first report is kept; reset() clears it.
struct BlowUp {
  // Frame index k, 0-based: the k of CudaBackend::launchFrame(k) / CpuBackend::stepFrame(k). step() numbers its
  // frames 0, 1, 2, ... over the backend's life (reset() does not restart them; on the CPU they continue from the
  // last stepFrame(k)).
  std::uint64_t frame = 0;
  // The earliest stage instance in the frame's order that wrote one. Accelerations are checked where they enter the
  // state: forces is named (with "non-finite acceleration") when integrate of its substep kicked a body with one.
  Stage stage = Stage::Forces;
  int substep = 0;  // which instance of it: nodes() names it stageInstanceName(stage, substep)
  std::string what; // "non-finite velocity"; the CPU backend adds the body and its value
};

// One line for a log or a notice: "frame 12, stage integrate#1: non-finite velocity".
inline std::string describe(const BlowUp& b) {
  return "frame " + std::to_string(b.frame) + ", stage " + stageInstanceName(b.stage, b.substep) + ": " + b.what;
}

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
  // Replaces the bodies with a downloaded state (a snapshot: positions+mass, half-step velocities and the
  // accelerations the next kick uses), so that stepping on resumes bit for bit. Clears blowUp() and starts a new
  // diagnostics series. Throws std::invalid_argument when the sizes disagree (CUDA: or differ from config().bodies;
  // a count change is a reset), before changing anything.
  virtual void setState(BodyState state, std::vector<Float4> accel) = 0;
  // The frame's nodes in execution order. Always the same vector (valid while the backend lives), refreshed when
  // read after something it shows changed: rebuilt after a structural change (reset, profiling on/off), updated in
  // place after a toggle or a profiled frame. Reading it without changes allocates nothing and (CUDA) makes no CUDA
  // call, so the panel can read it every frame. Not thread-safe: read it on the thread that drives the backend.
  virtual const std::vector<NodeInfo>& nodes() const = 0;
  // Per-node timing for nodes()[i].ms. Returns whether this backend can measure it.
  virtual bool setProfiling(bool enabled) = 0;
  virtual UpdateCounters counters() const = 0;
  virtual const SceneConfig& config() const = 0;
  // The first blow-up since the last reset(), as far as it is known now; never waits. CPU: exact once step()
  // returns. CUDA: known once the GPU has run the frame's report node (docs/FRAME.md, "Blow-up detection"): with
  // frames in flight it may appear a few frames after the frame it names.
  virtual std::optional<BlowUp> blowUp() const = 0;

  // Live diagnostics (compute/nbody_diagnostics.h, docs/DIAGNOSTICS.md), with config().diagnosticsEvery > 0 (else
  // there is nothing to toggle and no sample). On by default; off: no samples (the node stays disabled), the last
  // one stays readable. Not a stage: it changes no state, so toggling it changes no result.
  virtual void setDiagnosticsEnabled(bool enabled) = 0;
  virtual bool diagnosticsEnabled() const = 0;
  // The latest sample known now; never waits. CPU: of the frames stepped so far. CUDA: of the frames the GPU has
  // completed (the diagnostics kernel writes mapped pinned memory; with frames in flight a sample of frame k is
  // seen once frame k completed, at the latest when frame k + F is launched). None before the first sample.
  virtual std::optional<DiagnosticsSample> diagnostics() const = 0;
};

} // namespace graphsim
