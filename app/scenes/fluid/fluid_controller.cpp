#include "app/scenes/fluid/fluid_controller.h"

#include <cstdio>
#include <stdexcept>
#include <utility>

namespace graphsim::app {

FluidController::FluidController(const fluid::FluidConfig& initial, std::int64_t maxParticles)
    : params_(initial.params), enabled_(initial.enabled), particles_(initial.particles),
      maxParticles_(std::max(maxParticles, initial.particles)), frameDt_(initial.frameDt), solver_(initial.solver) {}

void FluidController::setParticles(std::int64_t particles) {
  if (particles < 1 || particles > maxParticles_) {
    throw std::invalid_argument("particles must be 1.." + std::to_string(maxParticles_) +
                                " (the render buffers' size), got " + std::to_string(particles));
  }
  particles_ = particles;
}

void FluidController::applyTo(fluid::FluidBackend& backend, const FrameEdits& edits) {
  const fluid::FluidConfig& current = backend.config();
  fluid::FluidParams next = params_;
  for (int a = 0; a < 3; ++a) next.boxSize[a] = current.params.boxSize[a]; // structural: not edited live
  if (edits.reset || particles_ != current.particles) {
    fluid::FluidConfig config = current;
    config.particles = particles_;
    config.params = next;
    config.frameDt = frameDt_;
    config.enabled = enabled_;
    config.solver = solver_;
    backend.reset(config); // the spacing follows from the count
    applied_ = backend.config().params;
    appliedFrameDt_ = -1;
    simTime_ = 0;
    lastCountedFrame_ = UINT64_MAX;
    char text[128];
    std::snprintf(text, sizeof text, "%s: %lld particles (radius %.2f mm)", edits.reset ? "reset" : "structural change",
                  static_cast<long long>(particles_), 1e3 * 0.5 * static_cast<double>(backend.config().params.spacing));
    lastStructural_ = text;
  }
  for (const fluid::FluidToggleInfo& row : fluid::kFluidToggles) {
    const bool want = wanted(row.toggle);
    if (backend.enabled(row.toggle) != want) backend.setEnabled(row.toggle, want);
  }
  if (backend.diagnosticsEnabled() != diagnosticsEnabled_) backend.setDiagnosticsEnabled(diagnosticsEnabled_);
  if (backend.config().solver != solver_) backend.setSolver(solver_);
  next.spacing = backend.config().params.spacing;
  if (!applied_ || *applied_ != next) { // every field (FluidParams::operator==)
    backend.setParams(next);
    applied_ = next;
  }
  const float frameDt = edits.advance ? frameDt_ : 0.0f; // time stands still; the frame still runs
  if (frameDt != appliedFrameDt_) {
    backend.setFrameDt(frameDt);
    appliedFrameDt_ = frameDt;
  }
}

void FluidController::frameDone(const std::optional<fluid::FluidFrameInfo>& info) {
  if (!info || info->frame == lastCountedFrame_) return;
  lastCountedFrame_ = info->frame;
  simTime_ = info->simTime; // the backend's own sum: right even when the asynchronous report skipped frames
}

} // namespace graphsim::app
