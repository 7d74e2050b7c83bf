// The n-body scene's snapshot (issue 15, docs/SNAPSHOTS.md): what NBodyProducer::saveState writes and loadState
// reads. Arrays posMass, vel (the leapfrog half-step velocity) and accel (what the next frame's first kick uses), 4
// floats per body each; settings: the scene-file keys initial, bodies, seed, substeps, params and stages.
#pragma once

#include "app/scenes/scene_state.h"
#include "compute/nbody/nbody_backend.h"

namespace graphsim::app {

class NBodyController;

// Waits for the backend's frames (CUDA downloads). Parameters and stages as the controller wants them (a paused run
// has dt 0 on the backend, not in the file).
SceneState saveNBodyState(NBodyBackend& backend, const NBodyController& controller);
// Everything is checked before anything changes: the scene, the body count and substeps (structural: the run must
// have been made with them), the arrays and the settings; then the backend takes the state (NBodyBackend::setState, on
// either backend).
void loadNBodyState(const SceneState& state, NBodyBackend& backend, NBodyController& controller);

} // namespace graphsim::app
