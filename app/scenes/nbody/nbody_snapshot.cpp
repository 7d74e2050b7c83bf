#include "app/scenes/nbody/nbody_snapshot.h"

#include <array>
#include <string_view>

#include <nlohmann/json.hpp>

#include "app/base/errors.h"
#include "app/scenes/nbody/nbody_controller.h"
#include "app/scenes/nbody/nbody_controls.h"
#include "app/snapshot/snapshot.h"
#include "compute/nbody/nbody_backend.h"

namespace graphsim::app {
namespace {

constexpr auto kArrays = std::to_array<std::string_view>({"posMass", "vel", "accel"});

nlohmann::json settingsJson(const NBodyConfig& config, const NBodyController& controller) {
  // Floats go through JSON as doubles: float -> double is exact and the writer prints the shortest text that reads
  // back as the same double, so every parameter returns bit for bit.
  return {{"scene", "nbody"},
          {"initial", config.initial},
          {"bodies", config.bodies},
          {"seed", config.seed},
          {"substeps", config.substeps},
          {"params", nbodyParamsJson(controller.params())},
          {"stages", nbodyStagesJson(controller)}};
}

} // namespace

SceneState saveNBodyState(NBodyBackend& backend, const NBodyController& controller) {
  BodyState bodies;
  std::vector<float> colour; // recomputed from the velocities on load (the colour stage's own rule)
  backend.download(bodies, colour);
  const std::vector<Float4> accel = backend.downloadAccelerations();
  const NBodyConfig& config = backend.config();
  SceneState state;
  state.scene = "nbody";
  state.count = config.bodies;
  state.simTime = controller.simTime();
  state.backend = std::string(backend.name());
  state.settings = settingsJson(config, controller).dump();
  state.arrays.push_back(floatArray("posMass", bodies.posMass));
  state.arrays.push_back(floatArray("vel", bodies.vel));
  state.arrays.push_back(floatArray("accel", accel));
  return state;
}

void loadNBodyState(const SceneState& state, NBodyBackend& backend, NBodyController& controller) {
  const std::string source = sourceOf(state);
  requireSceneAndCount(state, "nbody", backend.config().bodies, "bodies");
  requireOnlyArrays(state, kArrays);
  BodyState bodies{toFloat4s(requireArray(state, "posMass", 4)), toFloat4s(requireArray(state, "vel", 4))};
  std::vector<Float4> accel = toFloat4s(requireArray(state, "accel", 4));
  const NBodyConfig saved = settingsOfSnapshot(state).sim;
  if (saved.substeps != backend.config().substeps)
    throw UsageError(source + ": holds a state of " + std::to_string(saved.substeps) +
                     " substeps per frame, this run has " + std::to_string(backend.config().substeps));
  // Nothing above changed the run; the arrays' sizes are the count's, so the backend takes the state.
  backend.setState(std::move(bodies), std::move(accel));
  controller.setParams(saved.params);
  for (const NBodyStageInfo& row : kNBodyStages)
    controller.setStageEnabled(row.stage, saved.enabled[static_cast<int>(row.stage)]);
  controller.restoreSimTime(state.simTime);
}

} // namespace graphsim::app
