#include "app/scenes/nbody/nbody_controller.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "app/faults/fault_injection.h"

namespace graphsim::app {

NBodyController::NBodyController(const NBodyConfig& initial, std::int64_t maxBodies)
    : params_(initial.params), enabled_(initial.enabled), bodies_(initial.bodies), substeps_(initial.substeps),
      maxBodies_(std::max(maxBodies, initial.bodies)) {}

void NBodyController::setStageEnabled(NBodyStage stage, bool enabled) { enabled_[static_cast<int>(stage)] = enabled; }

void NBodyController::setParams(const NBodyParams& params) { params_ = params; }

void NBodyController::setBodies(std::int64_t bodies) {
  if (bodies < 1 || bodies > maxBodies_) {
    throw std::invalid_argument("bodies must be 1.." + std::to_string(maxBodies_) +
                                " (the render buffers' size), got " + std::to_string(bodies));
  }
  bodies_ = bodies;
}

void NBodyController::setSubsteps(int substeps) {
  if (substeps < 1 || substeps > kMaxSubsteps) {
    throw std::invalid_argument("substeps must be 1.." + std::to_string(kMaxSubsteps) + ", got " +
                                std::to_string(substeps));
  }
  substeps_ = substeps;
}

double NBodyController::applyTo(NBodyBackend& backend, const FrameEdits& edits) {
  const NBodyConfig& current = backend.config();
  if (edits.reset || bodies_ != current.bodies || substeps_ != current.substeps) {
    NBodyConfig config = current;
    config.bodies = bodies_;
    config.substeps = substeps_;
    config.params = params_;
    config.enabled = enabled_;
    backend.reset(config);
    applied_ = params_;
    simTime_ = 0;
    lastStructural_ = std::string(edits.reset ? "reset" : "structural change") + ": " + std::to_string(bodies_) +
                      " bodies, " + std::to_string(substeps_) + " substep" + (substeps_ > 1 ? "s" : "");
  }
  for (const NBodyStageInfo& row : kNBodyStages) {
    const bool want = enabled_[static_cast<std::size_t>(row.stage)];
    if (backend.stageEnabled(row.stage) != want) backend.setStageEnabled(row.stage, want);
  }
  if (backend.diagnosticsEnabled() != diagnosticsEnabled_) backend.setDiagnosticsEnabled(diagnosticsEnabled_);
  NBodyParams effective = params_;
  if (!edits.advance) effective.dt = 0.0f; // time stands still; the frame still runs
  if (applied_ != effective) {
    backend.setParams(effective);
    applied_ = effective;
  }
  if (edits.advance && backend.stageEnabled(NBodyStage::Integrate)) {
    simTime_ += static_cast<double>(params_.dt) * substeps_;
  }
  return simTime_;
}

// The non-finite fault's hook (declared in app/faults/fault_injection.h) is defined here, next to the controller it
// goes through, so that app/faults, below the scenes, needs nothing of app/run.
void injectIntoController(const FaultPlan& plan, std::uint64_t k, NBodyController& controller) {
  if (plan.fault != Fault::NonFinite || k != plan.frame) return;
  NBodyParams params = controller.params();
  params.dt = std::numeric_limits<float>::quiet_NaN();
  controller.setParams(params);
}

} // namespace graphsim::app
