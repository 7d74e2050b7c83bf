// Recording and replaying a session (issue 15, docs/RECORDING.md) as the frame loop sees it: app/run/session.cpp
// calls these around each frame. Both work through the scene interface only (SceneProducer::controls, setControls,
// saveState), so any scene records and replays without code of its own here.
//
//   frame k:  [UI: panel, keys, mouse]  ->  beforeFrame(k)  ->  beginFrame(k), produce, render  ->  afterFrame(k)
//   recorder: the controls, camera and panel visibility as changed by the UI, an F12 capture; checkpoints after
//   replayer: sets the recorded controls, camera and panel visibility (the window's own edits are overridden),
//             triggers the recorded captures; compares its checkpoints with the recorded ones after
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "app/record/session_record.h"
#include "app/scenes/scene.h"
#include "app/ui/panel.h"

namespace graphsim::app {

// The state's checkpoint: the hash of every array, and the positions (the first array) up to
// kMaxCheckpointPositions elements. Waits for the frames in flight (CUDA downloads).
RecordedCheckpoint takeCheckpoint(std::uint64_t frame, SceneProducer& producer);

class SessionRecorder {
public:
  // checkpointEvery: a checkpoint after every K-th frame (0: only after the last). Reads the start: the producer's
  // settings (saveState) and controls, the view.
  // width, height: the renderer's size at the start (what captures are made at).
  SessionRecorder(std::filesystem::path path, std::uint64_t checkpointEvery, SceneProducer& producer,
                  const ViewState& view, const std::string& backend, std::uint32_t framesInFlight, bool headless,
                  std::uint32_t width, std::uint32_t height);

  // After the UI of frame k ran, before the scene begins the frame.
  void beforeFrame(std::uint64_t k, const SceneProducer& producer, const ViewState& view, bool sceneCapture);
  // After frame k was produced; `last`: the run's last frame (a checkpoint).
  void afterFrame(std::uint64_t k, SceneProducer& producer, bool last);
  // After the run: the last frame's checkpoint if none was taken, then the file (OutputError when unwritable).
  void finish(std::uint64_t frames, SceneProducer& producer, bool interrupted);

private:
  std::filesystem::path path_;
  SessionRecording recording_;
  nlohmann::json controls_; // the controls as last recorded
  ViewState view_;          // the view as last recorded
};

struct ReplayVerdict {
  std::uint64_t checkpoints = 0; // compared
  std::uint64_t identical = 0;   // bit for bit (hash equal)
  std::uint64_t withinTolerance = 0;
  std::uint64_t failed = 0; // beyond the tolerance, or no positions recorded to compare within one
  double maxRelError = 0;   // the largest position difference over the RMS radius, where compared
  std::string firstFailure; // "frame 199: ..."
};

class SessionReplayer {
public:
  // tolerance: the largest position difference, relative to the state's RMS radius, a checkpoint may have when its
  // hash differs (a replay on another backend).
  SessionReplayer(std::shared_ptr<const SessionRecording> recording, double tolerance);

  // Before the first frame: the recording's controls at the start and after each event, checked as the producer
  // would apply them (UsageError naming the file and the event), so that a bad change fails before any frame runs.
  void checkEvents(SceneProducer& producer) const;
  // Before frame k's UI: whether the recording captured frame k (F12).
  bool sceneCaptureAt(std::uint64_t k) const;
  // After the UI of frame k: the recorded controls, camera and panel visibility of frame k.
  void beforeFrame(std::uint64_t k, SceneProducer& producer, ViewState& view);
  // After frame k was produced: its checkpoint compared with the recording's, if it has one.
  void afterFrame(std::uint64_t k, SceneProducer& producer);
  const ReplayVerdict& verdict() const { return verdict_; }
  // "replay: 4 checkpoints: 4 bit-identical" (and the tolerance figures when some differ).
  std::string summary() const;

private:
  std::shared_ptr<const SessionRecording> recording_;
  double tolerance_;
  std::size_t nextEvent_ = 0;
  std::size_t nextCheckpoint_ = 0;
  nlohmann::json controls_; // the recorded controls as of the current frame
  ViewState view_;
  ReplayVerdict verdict_;
};

} // namespace graphsim::app
