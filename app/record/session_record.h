// A recorded session (issue 15, docs/RECORDING.md): what `graphsim run --record FILE` writes and `graphsim replay
// FILE` reads. JSON, versioned:
//
//   settings      the scene file of the run's start (scene, render and the scene's keys: SceneProducer::saveState's
//                 settings), so that the replay builds the same scene without the preset or --config of the day
//   events        per frame k, what changed before frame k was produced: the scene's live controls (a JSON merge
//                 patch of SceneProducer::controls(): parameters, toggles, count, pause, step and reset requests),
//                 the camera, the panel's visibility, an F12 scene capture
//   checkpoints   every K frames and after the last: a hash of the state (every array of SceneProducer::saveState,
//                 bit for bit) and, up to kMaxCheckpointPositions elements, the positions themselves (base64), so
//                 that a replay on another backend can be checked within a tolerance
//
// Refusals (UsageError, exit 2) name the file and what is wrong: not JSON, not a graphsim session, a newer format
// version, a scene this graphsim lacks, a missing or misshapen field.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/float4.h"
#include "render/camera.h"

namespace graphsim::app {

inline constexpr int kSessionFormatVersion = 1;
inline constexpr const char* kSessionFormatName = "graphsim session";
inline constexpr std::int64_t kMaxCheckpointPositions = 65536; // larger states keep only their hash

struct RecordedEvent { // NOLINT(bugprone-exception-escape): only json's own destructor can throw
  std::uint64_t frame = 0;
  nlohmann::json controls;              // a merge patch of the controls, null when they did not change
  std::optional<render::Camera> camera; // the camera from this frame on
  std::optional<bool> panelVisible;
  bool sceneCapture = false; // F12: this frame, captured without the panel
};

struct RecordedCheckpoint {
  std::uint64_t frame = 0;       // after frame `frame` (0-based) was produced
  std::uint64_t hash = 0;        // FNV-1a 64 of every state array's floats
  std::vector<Float4> positions; // the first array (positions), empty above kMaxCheckpointPositions elements
};

// The most frames a recording may say it has: what `run --frames` allows (app/cli/cli.h, kMaxFrames).
inline constexpr std::uint64_t kMaxRecordedFrames = 1'000'000'000'000;

struct SessionRecording {
  std::string source;     // how messages name the file it was read from ("replay FILE"); not written
  std::string graphsim;   // the version line of the graphsim that recorded it
  std::string scene;      // the registry name
  std::string backend;    // "cpu" | "cuda": the recording run's
  std::int64_t count = 0; // elements at the start
  std::uint32_t framesInFlight = 3;
  bool headless = true;
  bool panel = true;
  nlohmann::json settings;           // the scene file of the start
  nlohmann::json controls;           // SceneProducer::controls() at the start
  render::Camera camera;             // at the start
  std::uint64_t frames = 0;          // frames the recording run produced
  std::uint64_t checkpointEvery = 0; // 0: only after the last frame
  bool interrupted = false;          // the recording run ended by a signal
  std::vector<RecordedEvent> events; // by frame, ascending
  std::vector<RecordedCheckpoint> checkpoints;
};

nlohmann::ordered_json toJson(const SessionRecording& recording);
// Throws UsageError "<path>: <what is wrong>" (exit 2).
SessionRecording readSessionRecording(const std::filesystem::path& path);
void writeSessionRecording(const std::filesystem::path& path, const SessionRecording& recording);

// The merge patch (RFC 7386) that turns `from` into `to` for objects (nested objects recurse; anything else, arrays
// included, is replaced whole); null when they are equal.
nlohmann::json mergePatch(const nlohmann::json& from, const nlohmann::json& to);

// FNV-1a 64 over bytes.
std::uint64_t fnv1a64(const void* data, std::size_t size, std::uint64_t hash = 0xcbf29ce484222325ull);

} // namespace graphsim::app
