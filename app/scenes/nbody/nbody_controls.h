// The n-body scene's live controls as JSON, for session recording and replay (SceneProducer::controls and
// setControls, app/record): what the panel, the keys and the mouse change while it runs.
//
//   {"live": {"params": {...}, "stages": {...}, "bodies": N, "substeps": S},   scene-file keys, as the controller
//    "point_radius": R, "paused": P, "step": B, "reset": B}                    wants them before the next frame
//
// "paused", "step" and "reset" are SceneProducer's (app/scenes/scene.h); these functions write and read the rest.
#pragma once

#include <functional>

#include <nlohmann/json_fwd.hpp>

#include "compute/nbody/nbody.h"

namespace graphsim::app {

class JsonReader;
class NBodyController;

// The params object of a scene file (floats exact: float -> double is exact and JSON prints the shortest text that
// reads back as the same double).
nlohmann::json nbodyParamsJson(const NBodyParams& params);
// The scene file's "stages" object: the stages the controller wants enabled.
nlohmann::json nbodyStagesJson(const NBodyController& controller);

nlohmann::json nbodyControls(const NBodyController& controller, float pointRadius);
// Checks everything first (the live keys as a scene file's, through the scene's applyJson; UsageError naming the
// key); the function returned hands the values to the controller as the panel would.
std::function<void()> checkNBodyControls(const JsonReader& controls, NBodyController& controller, float& pointRadius);

} // namespace graphsim::app
