#include "app/scenes/fluid/fluid_controls.h"

#include <string>

#include "app/base/json_reader.h"
#include "app/scenes/fluid/fluid_controller.h"
#include "app/scenes/fluid/fluid_scene.h"

namespace graphsim::app {

using nlohmann::json;

namespace {
json vec3(const float (&v)[3]) { return {v[0], v[1], v[2]}; }
} // namespace

json fluidPhysicsJson(const fluid::FluidParams& p) {
  return {{"restDensity", p.restDensity},
          {"stiffness", p.stiffness},
          {"viscosity", p.viscosity},
          {"gravity", vec3(p.gravity)},
          {"cflNumber", p.cflNumber},
          {"maxSubsteps", p.maxSubsteps},
          {"wallRestitution", p.wallRestitution},
          {"obstacle", {{"centre", vec3(p.obstacleCentre)}, {"radius", p.obstacleRadius}}}};
}

json fluidEnabledJson(const FluidController& c) {
  json enabled = json::object();
  for (const fluid::FluidToggleInfo& row : fluid::kFluidToggles) enabled[std::string(row.name)] = c.wanted(row.toggle);
  return enabled;
}

json fluidControls(const FluidController& c) {
  json live = fluidPhysicsJson(c.params());
  live["enabled"] = fluidEnabledJson(c);
  live["particles"] = c.particles();
  return {{"live", std::move(live)}, {"paused", c.paused()}, {"step", c.stepPending()}, {"reset", c.resetPending()}};
}

void applyFluidControls(const json& controls, const fluid::FluidConfig& running, FluidController& c) {
  const JsonReader r(controls, "the recorded controls", "");
  r.allowOnly({"live", "paused", "step", "reset"});
  SceneSettings wanted = fluidScene().defaults();
  fluid::FluidConfig& config = fluidConfig(wanted);
  config = running;
  config.params = c.params();
  for (const fluid::FluidToggleInfo& row : fluid::kFluidToggles)
    config.enabled[static_cast<std::size_t>(row.toggle)] = c.wanted(row.toggle);
  config.particles = c.particles();
  if (r.has("live")) {
    const JsonReader live = r.child("live");
    live.allowOnly({"restDensity", "stiffness", "viscosity", "gravity", "cflNumber", "maxSubsteps", "wallRestitution",
                    "obstacle", "enabled", "particles"});
    fluidScene().applyJson(wanted, live);
    if (config.particles > c.maxParticles())
      live.fail("particles",
                std::to_string(config.particles) + " exceeds this run's capacity " + std::to_string(c.maxParticles()));
  }
  bool paused = c.paused(), step = false, reset = false;
  r.boolean("paused", paused);
  r.boolean("step", step);
  r.boolean("reset", reset);

  c.setParams(config.params);
  for (const fluid::FluidToggleInfo& row : fluid::kFluidToggles)
    c.setEnabled(row.toggle, config.enabled[static_cast<std::size_t>(row.toggle)]);
  if (config.particles != c.particles()) c.setParticles(config.particles);
  c.setPaused(paused);
  if (step && !c.stepPending()) c.requestStep();
  if (reset && !c.resetPending()) c.requestReset();
}

} // namespace graphsim::app
