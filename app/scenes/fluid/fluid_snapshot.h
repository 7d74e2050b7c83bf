// The fluid scene's snapshot (issue 15, docs/SNAPSHOTS.md): what FluidProducer::saveState writes and loadState reads.
// Arrays pos and vel (4 floats per particle; pos.w is carried as the stages carry it) and density (1 float: the last
// density stage's, which the colour by density reads); the simulated time is FluidState::time; settings: every
// scene-file key of the fluid scene but render.
#pragma once

#include "app/scenes/scene_state.h"
#include "compute/fluid/fluid_backend.h"

namespace graphsim::app {

class FluidController;

// Waits for the backend's frames (CUDA downloads). Parameters and switches as the controller wants them.
SceneState saveFluidState(fluid::FluidBackend& backend, const FluidController& controller);
// Everything is checked before anything changes: the scene, the particle count and what else the run was made with
// and cannot change live (initial block, box, frameDt, colour), the arrays and the settings; then the backend takes
// the state (FluidBackend::setState, on either backend).
void loadFluidState(const SceneState& state, fluid::FluidBackend& backend, FluidController& controller);

} // namespace graphsim::app
