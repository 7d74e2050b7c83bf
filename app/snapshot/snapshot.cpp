#include "app/snapshot/snapshot.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "app/base/errors.h"
#include "app/base/input_file.h"
#include "app/io/output_file.h"
#include "app/scenes/scene_config.h"
#include "app/snapshot/snapshot_format.h"

namespace graphsim::app {

namespace fs = std::filesystem;

// The largest state a scene holds (16,777,216 bodies x 3 float4 arrays) is 0.8 GB.
constexpr std::uintmax_t kMaxSnapshotBytes = std::uintmax_t{4} << 30;

SceneState readSnapshotFile(const fs::path& path, const std::string& flag) {
  const std::string name = fileNamedBy(flag, path.string());
  const std::string text = readInputFile(path, name, kMaxSnapshotBytes, "a snapshot file");
  return decodeSnapshot(std::as_bytes(std::span(text)), name);
}

void writeSnapshotFile(const fs::path& path, const SceneState& state) {
  const std::vector<std::byte> bytes = encodeSnapshot(state);
  writeOutput(path, std::span<const std::byte>(bytes));
}

SceneSettings settingsOfSnapshot(const SceneState& state) {
  const std::string source = sourceOf(state);
  const Scene* scene = nullptr;
  std::string available;
  for (const Scene* s : scenes()) {
    if (s->name() == state.scene) scene = s;
    available += (available.empty() ? "" : ", ") + std::string(s->name());
  }
  if (scene == nullptr)
    throw UsageError(source + ": holds a state of the scene '" + shownText(state.scene) +
                     "', which this graphsim does not have (available: " + available + ")");
  SceneSettings settings = loadPreset(scene->name());
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(state.settings);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(source + ": its settings are not valid JSON: " + e.what());
  }
  applyJson(settings, doc, source + " (its settings)");
  if (scene->count(settings) != state.count)
    throw UsageError(source + ": count mismatch: the header says " + std::to_string(state.count) + " " +
                     std::string(scene->countNoun()) + ", its settings " + std::to_string(scene->count(settings)));
  return settings;
}

std::string describeSnapshot(const SceneState& state) {
  std::string noun = "elements";
  for (const Scene* s : scenes())
    if (s->name() == state.scene) noun = std::string(s->countNoun());
  char time[32];
  std::snprintf(time, sizeof time, "%.6g", state.simTime);
  return state.scene + " state of " + std::to_string(state.count) + " " + noun + " after frame " +
         std::to_string(state.frame) + ", sim time " + time + ", saved by the " + state.backend + " backend";
}

} // namespace graphsim::app
