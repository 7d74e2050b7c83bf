#include "app/scenes/fluid/fluid_controls.h"

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/base/errors.h"
#include "app/base/json_reader.h"
#include "app/scenes/fluid/fluid_controller.h"
#include "app/scenes/fluid/fluid_scene.h"
#include "app/scenes/param_json.h"

namespace graphsim::app {

using nlohmann::json;

json fluidPhysicsJson(const fluid::FluidParams& p) { return liveParamsJson(p, fluid::kFluidParams); }

json fluidEnabledJson(const FluidController& c) {
  json enabled = json::object();
  for (const fluid::FluidToggleInfo& row : fluid::kFluidToggles) enabled[std::string(row.name)] = c.wanted(row.toggle);
  return enabled;
}

json fluidControls(const FluidController& c) {
  json live = fluidPhysicsJson(c.params());
  live["enabled"] = fluidEnabledJson(c);
  live["particles"] = c.particles();
  live["solver"] = fluid::kFluidSolverNames[static_cast<int>(c.solver())];
  return {{"live", std::move(live)}};
}

std::function<void()> checkFluidControls(const JsonReader& r, const fluid::FluidConfig& running, FluidController& c) {
  r.allowOnly({"live", "paused", "step", "reset"});
  SceneSettings wanted = fluidScene().defaults();
  fluid::FluidConfig& config = fluidConfig(wanted);
  config = running;
  config.params = c.params();
  for (const fluid::FluidToggleInfo& row : fluid::kFluidToggles)
    config.enabled[static_cast<std::size_t>(row.toggle)] = c.wanted(row.toggle);
  config.particles = c.particles();
  config.solver = c.solver();
  if (r.has("live")) {
    const JsonReader live = r.child("live");
    static constexpr auto kLiveKeys = paramKeys(fluid::kFluidParams, true); // not the box: structural
    std::vector<std::string_view> allowed(kLiveKeys.view().begin(), kLiveKeys.view().end());
    allowed.insert(allowed.end(), {"enabled", "particles", "solver"});
    live.allowOnly(allowed);
    fluidScene().applyJson(wanted, live);
    if (config.particles > c.maxParticles())
      live.fail("particles",
                std::to_string(config.particles) + " exceeds this run's capacity " + std::to_string(c.maxParticles()));
    try { // what only the whole settings show: a count whose dam-break block does not fit the box
      fluidScene().checkSettings(wanted);
    } catch (const UsageError& e) {
      throw UsageError(live.source() + ": live: " + e.what());
    }
  }
  return [&c, next = config] {
    c.setParams(next.params);
    for (const fluid::FluidToggleInfo& row : fluid::kFluidToggles)
      c.setEnabled(row.toggle, next.enabled[static_cast<std::size_t>(row.toggle)]);
    if (next.particles != c.particles()) c.setParticles(next.particles);
    c.setSolver(next.solver);
  };
}

} // namespace graphsim::app
