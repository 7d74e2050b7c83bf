// Snapshot files as a run uses them (issue 15, docs/SNAPSHOTS.md): --load-state reads one and the run starts from the
// scene, count, parameters and state in it; --save-state and F5 write one. The layout is
// app/snapshot/snapshot_format.h; what a scene puts in it is its SceneProducer::saveState.
#pragma once

#include <filesystem>
#include <string>

#include "app/scenes/scene.h"
#include "app/scenes/scene_state.h"

namespace graphsim::app {

// The state in the file at `path`, every check of the format passed. Throws UsageError "<flag> PATH: <what is
// wrong>": no such file, a directory, not a regular file, unreadable, or what decodeSnapshot refuses.
SceneState readSnapshotFile(const std::filesystem::path& path, const std::string& flag = "--load-state");
// Writes `state` atomically (app/io/output_file.h: OutputError "PATH: REASON" on failure, an old file at PATH intact).
void writeSnapshotFile(const std::filesystem::path& path, const SceneState& state);

// The settings a run resumed from `state` starts with: the preset of the state's scene (for the render settings and
// the camera), then the state's settings, checked as a scene file is (app/scenes/scene_config.h). Throws UsageError
// naming the state's source: a scene this graphsim does not have, settings that are not valid JSON or that the scene
// refuses, a count in the settings other than the header's (count mismatch).
SceneSettings settingsOfSnapshot(const SceneState& state);

// "nbody state of 16384 bodies after frame 300, sim time 0.45, saved by the cpu backend"
std::string describeSnapshot(const SceneState& state);

} // namespace graphsim::app
