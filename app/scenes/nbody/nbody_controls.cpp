#include "app/scenes/nbody/nbody_controls.h"

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "app/base/errors.h"
#include "app/base/json_reader.h"
#include "app/scenes/nbody/nbody_controller.h"
#include "app/scenes/nbody/nbody_scene.h"
#include "app/scenes/param_json.h"
#include "compute/nbody/nbody_params.h"

namespace graphsim::app {

using nlohmann::json;

json nbodyParamsJson(const NBodyParams& p) { return liveParamsJson(p, kNBodyParams); }

json nbodyStagesJson(const NBodyController& c) {
  json stages = json::object();
  for (const NBodyStageInfo& row : kNBodyStages) stages[std::string(row.name)] = c.stageWanted(row.stage);
  return stages;
}

json nbodyControls(const NBodyController& c, float pointRadius) {
  return {{"live",
           {{"params", nbodyParamsJson(c.params())},
            {"stages", nbodyStagesJson(c)},
            {"bodies", c.bodies()},
            {"substeps", c.substeps()}}},
          {"point_radius", pointRadius}};
}

std::function<void()> checkNBodyControls(const JsonReader& r, NBodyController& c, float& pointRadius) {
  r.allowOnly({"live", "point_radius", "paused", "step", "reset"});
  SceneSettings wanted;
  wanted.sim.params = c.params();
  for (const NBodyStageInfo& row : kNBodyStages)
    wanted.sim.enabled[static_cast<std::size_t>(row.stage)] = c.stageWanted(row.stage);
  wanted.sim.bodies = c.bodies();
  wanted.sim.substeps = c.substeps();
  if (r.has("live")) {
    const JsonReader live = r.child("live");
    live.allowOnly({"params", "stages", "bodies", "substeps"});
    nbodyScene().applyJson(wanted, live);
    if (wanted.sim.bodies > c.maxBodies())
      live.fail("bodies",
                std::to_string(wanted.sim.bodies) + " exceeds this run's capacity " + std::to_string(c.maxBodies()));
  }
  float radius = pointRadius;
  r.number("point_radius", radius, 1e-4, 1.0);
  return [&c, &pointRadius, sim = wanted.sim, radius] {
    c.setParams(sim.params);
    for (const NBodyStageInfo& row : kNBodyStages)
      c.setStageEnabled(row.stage, sim.enabled[static_cast<std::size_t>(row.stage)]);
    if (sim.bodies != c.bodies()) c.setBodies(sim.bodies);
    if (sim.substeps != c.substeps()) c.setSubsteps(sim.substeps);
    pointRadius = radius;
  };
}

} // namespace graphsim::app
