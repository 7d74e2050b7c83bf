// Panel logic without ImGui: what a click or a key asks for, and how it reaches the simulation backend at the start
// of the next frame. The ImGui panel (panel.cpp) and the keys only call the request functions; tests call them too.
//
//   toggles          -> NBodyBackend::setStageEnabled (CUDA: cudaGraphNodeSetEnabled on every instance of the stage)
//   parameters       -> NBodyBackend::setParams once per frame (CUDA: only the kernel nodes whose arguments changed)
//   bodies, substeps -> NBodyBackend::reset (CUDA: a body count within the capacity is kernel-node updates only;
//                       beyond it, or another substep count, whole-graph update or re-instantiation, with the reason)
//   pause            -> frames keep running with dt = 0 (CUDA: the graph and the frame protocol go on; 3 node updates
//                       on pause and on resume); the CPU backend skips its step instead. Pause, step and reset are
//                       SceneProducer's (app/scenes/scene.h): applyTo gets its decision for the frame.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "app/scenes/scene.h" // FrameEdits
#include "compute/nbody/nbody_backend.h"

namespace graphsim::app {

class NBodyController {
public:
  // maxBodies: the capacity, what the render buffers (and the CUDA arrays) hold; the body-count control stays within
  // it.
  NBodyController(const NBodyConfig& initial, std::int64_t maxBodies);

  void setStageEnabled(NBodyStage stage, bool enabled);
  // The diagnostics node's toggle (NBodyBackend::setDiagnosticsEnabled; docs/DIAGNOSTICS.md).
  void setDiagnosticsEnabled(bool enabled) { diagnosticsEnabled_ = enabled; }
  bool diagnosticsWanted() const { return diagnosticsEnabled_; }
  void setParams(const NBodyParams& params);
  void setBodies(std::int64_t bodies);
  void setSubsteps(int substeps);
  // The wanted states the Graph section's checkboxes set (SceneProducer::nodeSwitch).
  bool& stageSwitch(NBodyStage stage) { return enabled_[static_cast<int>(stage)]; }
  bool& diagnosticsSwitch() { return diagnosticsEnabled_; }

  const NBodyParams& params() const { return params_; }
  std::int64_t bodies() const { return bodies_; }
  int substeps() const { return substeps_; }
  std::int64_t maxBodies() const { return maxBodies_; }
  // The wanted state of a stage: the backend's once applied (the panel shows the backend's own read-back).
  bool stageWanted(NBodyStage stage) const { return enabled_[static_cast<int>(stage)]; }

  // Applies everything requested since the last call, with the frame's reset and advance (dt = 0 when it does not);
  // returns the simulated time. Throws what the backend throws (std::invalid_argument for a stage that cannot be
  // disabled).
  double applyTo(NBodyBackend& backend, const FrameEdits& edits);
  // The simulated time of the state shown (sum of dt over advancing frames x substeps), reset with the scene.
  double simTime() const { return simTime_; }
  // A loaded snapshot's simulated time (app/snapshot): the count goes on from there.
  void restoreSimTime(double simTime) { simTime_ = simTime; }
  // "reset: 8192 bodies, 2 substeps" and the like; empty until something structural happened.
  const std::string& lastStructuralChange() const { return lastStructural_; }

private:
  NBodyParams params_;
  std::array<bool, kStageCount> enabled_{};
  bool diagnosticsEnabled_ = true;
  std::int64_t bodies_;
  int substeps_;
  std::int64_t maxBodies_;
  std::optional<NBodyParams> applied_; // what the backend was last given (dt = 0 while paused)
  double simTime_ = 0;
  std::string lastStructural_;
};

} // namespace graphsim::app
