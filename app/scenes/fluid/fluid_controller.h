// The fluid panel's logic without ImGui (as app/scenes/nbody/nbody_controller.h is n-body's): what a slider, a toggle,
// a key or the soak asks for, and how it reaches a FluidBackend at the start of the next frame.
//
//   parameters (rest density, stiffness, viscosity, gravity, CFL, max substeps, obstacle)
//                     -> FluidBackend::setParams once per frame (CUDA: node updates of the kernels whose arguments
//                        changed; the WHILE body's kernels are updated through the parent graph's exec)
//   toggles           -> FluidBackend::setEnabled (kFluidToggles says each one's mechanism)
//   particle count    -> FluidBackend::reset (the lattice spacing, and with it h, the radius and the grid, follow
//                        from the count: the particle radius is derived from the count, not set on its own)
//   pause             -> frameDt 0: frames keep running (CUDA: the graph and its semaphores go on) with no substep
//                        (pause, step and reset are SceneProducer's, app/scenes/scene.h: applyTo gets its decision)
//   diagnostics node  -> FluidBackend::setDiagnosticsEnabled (the sampling's switch; docs/DIAGNOSTICS.md)
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "app/scenes/scene.h" // FrameEdits
#include "compute/fluid/fluid_backend.h"

namespace graphsim::app {

class FluidController {
public:
  // maxParticles: what the render buffers hold; the particle-count control stays within it.
  FluidController(const fluid::FluidConfig& initial, std::int64_t maxParticles);

  void setParams(const fluid::FluidParams& params) { params_ = params; } // spacing and box are ignored
  void setEnabled(fluid::FluidToggle toggle, bool enabled) { enabled_[static_cast<std::size_t>(toggle)] = enabled; }
  void setDiagnosticsEnabled(bool enabled) { diagnosticsEnabled_ = enabled; }
  void setSolver(fluid::FluidSolver solver) { solver_ = solver; } // live: the graph's SWITCH (no rebuild)
  fluid::FluidSolver solver() const { return solver_; }
  bool diagnosticsWanted() const { return diagnosticsEnabled_; }
  void setParticles(std::int64_t particles); // std::invalid_argument outside [1, maxParticles]
  // The wanted states the Graph section's checkboxes set (SceneProducer::nodeSwitch).
  bool& toggleSwitch(fluid::FluidToggle toggle) { return enabled_[static_cast<std::size_t>(toggle)]; }
  bool& diagnosticsSwitch() { return diagnosticsEnabled_; }

  const fluid::FluidParams& params() const { return params_; }
  bool wanted(fluid::FluidToggle toggle) const { return enabled_[static_cast<std::size_t>(toggle)]; }
  std::int64_t particles() const { return particles_; }
  std::int64_t maxParticles() const { return maxParticles_; }
  float frameDt() const { return frameDt_; }

  // Applies everything requested since the last call, with the frame's reset and advance (frameDt 0 when it does
  // not). Throws what the backend throws (std::invalid_argument for a config it refuses).
  void applyTo(fluid::FluidBackend& backend, const FrameEdits& edits);
  // Called once the frame is known done (FluidBackend::lastFrame): the simulated time of the state shown.
  void frameDone(const std::optional<fluid::FluidFrameInfo>& info);
  double simTime() const { return simTime_; }
  // "reset: 65536 particles (radius 4.6 mm)" and the like; empty until something structural happened.
  const std::string& lastStructuralChange() const { return lastStructural_; }

private:
  fluid::FluidParams params_;
  fluid::FluidSwitches enabled_;
  std::int64_t particles_;
  std::int64_t maxParticles_;
  float frameDt_;
  bool diagnosticsEnabled_ = true;
  fluid::FluidSolver solver_;
  std::optional<fluid::FluidParams> applied_;
  float appliedFrameDt_ = -1;
  std::uint64_t lastCountedFrame_ = UINT64_MAX;
  double simTime_ = 0;
  std::string lastStructural_;
};

} // namespace graphsim::app
