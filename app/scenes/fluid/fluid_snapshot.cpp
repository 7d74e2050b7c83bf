#include "app/scenes/fluid/fluid_snapshot.h"

#include <array>
#include <string_view>

#include <nlohmann/json.hpp>

#include "app/base/errors.h"
#include "app/scenes/fluid/fluid_controller.h"
#include "app/scenes/fluid/fluid_controls.h"
#include "app/scenes/fluid/fluid_scene.h"
#include "app/snapshot/snapshot.h"
#include "compute/fluid/fluid_backend.h"

namespace graphsim::app {
namespace {

using fluid::FluidConfig;

constexpr auto kArrays = std::to_array<std::string_view>({"pos", "vel", "density"});

nlohmann::json vec3(const float (&v)[3]) { return {v[0], v[1], v[2]}; }

// Floats go through JSON as doubles: float -> double is exact and the writer prints the shortest text that reads
// back as the same double, so every parameter returns bit for bit.
nlohmann::json settingsJson(const FluidConfig& config, const FluidController& controller) {
  nlohmann::json settings = fluidPhysicsJson(controller.params());
  settings.update({{"scene", "fluid"},
                   {"initial", config.initial},
                   {"particles", config.particles},
                   {"box", vec3(config.params.boxSize)}, // structural: the backend's, never edited live
                   {"frameDt", controller.frameDt()},
                   {"colourBy", config.colourBy == fluid::ColourBy::Speed ? "speed" : "density"},
                   {"colourScale", config.colourScale},
                   {"enabled", fluidEnabledJson(controller)}});
  return settings;
}

// What the run was made with and cannot change live: a state saved with other values would not resume as it ran.
void requireSameStructure(const FluidConfig& saved, const FluidConfig& running, const std::string& source) {
  const auto refuse = [&](const std::string& what) {
    throw UsageError(source + ": holds a state with another " + what + " than this run's");
  };
  const float* a = saved.params.boxSize;
  const float* b = running.params.boxSize;
  if (a[0] != b[0] || a[1] != b[1] || a[2] != b[2]) refuse("box");
  if (fluid::spacingFor(saved) != running.params.spacing) refuse("lattice spacing (initial block)");
  if (saved.frameDt != running.frameDt) refuse("frameDt");
  if (saved.colourBy != running.colourBy || saved.colourScale != running.colourScale) refuse("colour mapping");
}

} // namespace

SceneState saveFluidState(fluid::FluidBackend& backend, const FluidController& controller) {
  fluid::FluidState particles;
  backend.download(particles);
  const FluidConfig& config = backend.config();
  SceneState state;
  state.scene = "fluid";
  state.count = config.particles;
  state.simTime = particles.time;
  state.backend = std::string(backend.name());
  state.settings = settingsJson(config, controller).dump();
  state.arrays.push_back(floatArray("pos", particles.pos));
  state.arrays.push_back(floatArray("vel", particles.vel));
  state.arrays.push_back(floatArray("density", particles.density));
  return state;
}

void loadFluidState(const SceneState& state, fluid::FluidBackend& backend, FluidController& controller) {
  const std::string source = sourceOf(state);
  requireSceneAndCount(state, "fluid", backend.config().particles, "particles");
  requireOnlyArrays(state, kArrays);
  fluid::FluidState particles;
  particles.pos = toFloat4s(requireArray(state, "pos", 4));
  particles.vel = toFloat4s(requireArray(state, "vel", 4));
  particles.density = requireArray(state, "density", 1).values;
  particles.time = state.simTime;
  const SceneSettings settings = settingsOfSnapshot(state);
  const FluidConfig& saved = fluidConfig(settings);
  requireSameStructure(saved, backend.config(), source);
  // Nothing above changed the run; the arrays' sizes are the count's, so the backend takes the state.
  backend.setState(std::move(particles));
  controller.setParams(saved.params);
  for (const fluid::FluidToggleInfo& row : fluid::kFluidToggles)
    controller.setEnabled(row.toggle, saved.enabled[static_cast<std::size_t>(row.toggle)]);
}

} // namespace graphsim::app
