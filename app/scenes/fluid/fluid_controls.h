// The fluid scene's live controls as JSON, for session recording and replay (SceneProducer::controls and
// setControls, app/record): what the panel, the keys and the obstacle drag change while it runs.
//
//   {"live": {"restDensity": …, "stiffness": …, "viscosity": …, "gravity": […], "cflNumber": …, "maxSubsteps": …,
//             "wallRestitution": …, "obstacle": {"centre": […], "radius": …}, "enabled": {…}, "particles": N,
//             "solver": "wcsph" | "dfsph"},
//    "paused": P, "step": B, "reset": B}
//
// "paused", "step" and "reset" are SceneProducer's (app/scenes/scene.h); these functions write and read the rest.
#pragma once

#include <functional>

#include <nlohmann/json_fwd.hpp>

#include "compute/fluid/fluid_backend.h"

namespace graphsim::app {

class FluidController;
class JsonReader;

// The scene-file keys of the live physics: kFluidParams' Live rows (floats exact through JSON's doubles).
nlohmann::json fluidPhysicsJson(const fluid::FluidParams& params);
// The scene file's "enabled" object: the switches the controller wants.
nlohmann::json fluidEnabledJson(const FluidController& controller);

nlohmann::json fluidControls(const FluidController& controller);
// Checks everything first (the live keys as a scene file's, through the scene's applyJson, against the running
// config: box, spacing rule; UsageError naming the key); the function returned hands the values to the controller as
// the panel would.
std::function<void()> checkFluidControls(const JsonReader& controls, const fluid::FluidConfig& running,
                                         FluidController& controller);

} // namespace graphsim::app
