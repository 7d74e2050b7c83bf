// The scenes graphsim knows, in --help order: one line each. A new scene adds its folder under app/scenes/, its
// preset assets/scenes/<name>.json and its line here (docs/SCENES.md).
#include "app/cli/registry.h"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/base/errors.h"
#include "app/embedded_presets.h"
#include "app/scenes/fluid/fluid_scene.h"
#include "app/scenes/nbody/nbody_scene.h"
#include "app/scenes/scene_config.h"

namespace graphsim::app {

namespace {

// The product's scenes, then those a test binary registered (registerTestScene) before main ran.
std::vector<const Scene*>& registry() {
  static std::vector<const Scene*> registered = {
      &nbodyScene(),
      &fluidScene(),
  };
  return registered;
}

} // namespace

std::span<const Scene* const> scenes() { return registry(); }

void registerTestScene(const Scene& scene) { registry().push_back(&scene); }

void checkSeveralGpus(const Scene& scene) {
  if (scene.capabilities().severalGpus) return;
  std::string able;
  for (const Scene* s : scenes())
    if (s->capabilities().severalGpus) able += (able.empty() ? "" : ", ") + std::string(s->name());
  throw UsageError("--gpus: only the " + able + " scene runs on several GPUs (the " + std::string(scene.name()) +
                   " scene runs on one: use --gpu)");
}

std::string defaultSceneName() { return std::string(scenes().front()->name()); }

const Scene& findScene(std::string_view name) {
  std::string list;
  for (const Scene* scene : scenes()) {
    if (scene->name() == name) return *scene;
    list += (list.empty() ? "" : ", ") + std::string(scene->name());
  }
  throw UsageError("--scene: unknown scene '" + std::string(name) + "' (available: " + list + ")");
}

SceneSettings loadPreset(std::string_view name) {
  const Scene& scene = findScene(name);
  for (const auto& preset : kEmbeddedPresets) {
    if (preset.name != name) continue;
    SceneSettings settings = scene.defaults();
    applyJson(settings, nlohmann::json::parse(preset.json), "preset " + std::string(name));
    return settings;
  }
  return scene.defaults(); // a scene without a preset file runs on its defaults
}

} // namespace graphsim::app
