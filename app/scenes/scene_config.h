// Scene settings as the app sees them (app/scenes/scene.h: SceneSettings): built from the scene's embedded preset
// (assets/scenes/<scene>.json), then a --config file, then command-line flags — each layer validated strictly.
// The keys common to every scene ("scene", "render") are read here; the scene reads its own (Scene::applyJson).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "app/scenes/scene.h"

namespace graphsim::app {

// Overlays a JSON document on settings (of the scene settings.scene). Unknown keys, wrong types and out-of-range
// values throw UsageError whose message starts with `source` and names the key path ("params.dt") and what is
// allowed. n-body: params.softening has the lower bound kMinSoftening (compute/nbody/nbody.h says why).
void applyJson(SceneSettings& settings, const nlohmann::json& doc, std::string_view source);
// Reads, parses and overlays a --config file: missing, unreadable, a directory, larger than 1 MiB or not JSON
// all throw UsageError naming the path.
void applyConfigFile(SceneSettings& settings, const std::filesystem::path& path);

// Bounds shared by the JSON and the CLI.
inline constexpr std::uint32_t kMinImageSize = 16, kMaxImageSize = 8192;
// Refuses (UsageError naming `flag`) a body count that does not fit the limits or this machine's memory, before
// anything is allocated. framesInFlight counts the render buffers.
void checkBodyCount(std::int64_t bodies, std::uint32_t framesInFlight, const std::string& flag = "--bodies");
// Refuses (UsageError naming `flag`) an element count needing more than half of this machine's memory, at
// `bytesPerElement` host bytes each ("65536 particles need about 900 MiB, more than half of ...").
void checkHostMemory(std::int64_t count, double bytesPerElement, const std::string& flag, std::string_view noun);

} // namespace graphsim::app
