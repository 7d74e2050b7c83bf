// Scene settings as the app sees them: the simulation config plus how to draw it. Built from the scene's embedded
// preset (assets/scenes/<scene>.json), then a --config file, then command-line flags — each layer validated strictly.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compute/nbody.h"
#include "render/camera.h"

namespace graphsim::app {

struct RenderSettings {
  std::uint32_t width = 1280;
  std::uint32_t height = 720;
  float pointRadius = 0.018f;
  render::Camera camera;
};

struct SceneSettings {
  SceneConfig sim;
  RenderSettings render;
};

// Names of the scenes whose presets are embedded in the binary.
std::vector<std::string> sceneNames();
// The embedded preset of a scene. Throws UsageError naming the allowed scenes.
SceneSettings loadPreset(std::string_view scene);
// Overlays a JSON document on settings. Unknown keys, wrong types and out-of-range values throw UsageError whose
// message starts with `source` and names the key path ("params.dt") and what is allowed. params.softening has the
// lower bound kMinSoftening (compute/nbody.h says why); the backends themselves accept any softening >= 0.
void applyJson(SceneSettings& settings, const nlohmann::json& doc, std::string_view source);
// Reads, parses and overlays a --config file: missing, unreadable, a directory, larger than 1 MiB or not JSON
// all throw UsageError naming the path.
void applyConfigFile(SceneSettings& settings, const std::filesystem::path& path);

// Bounds shared by the JSON and the CLI.
inline constexpr std::uint32_t kMinImageSize = 16, kMaxImageSize = 8192;
// Refuses (UsageError) a body count that does not fit the limits or this machine's memory, before anything is
// allocated. framesInFlight counts the render buffers.
void checkBodyCount(std::int64_t bodies, std::uint32_t framesInFlight);

} // namespace graphsim::app
