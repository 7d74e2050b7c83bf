#include "app/record/session_tape.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "app/scenes/scene_state.h"
#include "app/version.h"

namespace graphsim::app {
namespace {

using nlohmann::json;

bool sameCamera(const render::Camera& a, const render::Camera& b) {
  return a.yawDeg == b.yawDeg && a.pitchDeg == b.pitchDeg && a.distance == b.distance && a.target == b.target &&
         a.fovYDeg == b.fovYDeg;
}

// The largest |a - b| over the elements' xyz, relative to the RMS distance of b's points from their centroid.
double relativeError(const std::vector<Float4>& a, const std::vector<Float4>& b) {
  double cx = 0, cy = 0, cz = 0;
  for (const Float4& p : b) {
    cx += p.x;
    cy += p.y;
    cz += p.z;
  }
  const double n = static_cast<double>(b.size());
  cx /= n;
  cy /= n;
  cz /= n;
  double r2 = 0, maxErr = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double dx = b[i].x - cx, dy = b[i].y - cy, dz = b[i].z - cz;
    r2 += dx * dx + dy * dy + dz * dz;
    const double ex = a[i].x - b[i].x, ey = a[i].y - b[i].y, ez = a[i].z - b[i].z;
    const double e = std::sqrt(ex * ex + ey * ey + ez * ez);
    maxErr = std::isnan(e) ? INFINITY : std::max(maxErr, e);
  }
  const double rms = std::sqrt(r2 / n);
  return rms > 0 ? maxErr / rms : maxErr;
}

} // namespace

RecordedCheckpoint takeCheckpoint(std::uint64_t frame, SceneProducer& producer) {
  const SceneState state = producer.saveState();
  RecordedCheckpoint checkpoint;
  checkpoint.frame = frame;
  std::uint64_t hash = fnv1a64(nullptr, 0);
  for (const StateArray& array : state.arrays)
    hash = fnv1a64(array.values.data(), array.values.size() * sizeof(float), hash);
  checkpoint.hash = hash;
  if (!state.arrays.empty() && state.arrays.front().components == 4 && state.count <= kMaxCheckpointPositions)
    checkpoint.positions = toFloat4s(state.arrays.front());
  return checkpoint;
}

SessionRecorder::SessionRecorder(std::filesystem::path path, std::uint64_t checkpointEvery, SceneProducer& producer,
                                 const ViewState& view, const std::string& backend, std::uint32_t framesInFlight,
                                 bool headless, std::uint32_t width, std::uint32_t height)
    : path_(std::move(path)), view_(view) {
  const SceneState start = producer.saveState();
  recording_.graphsim = kVersionLine;
  recording_.scene = start.scene;
  recording_.backend = backend;
  recording_.count = start.count;
  recording_.framesInFlight = framesInFlight;
  recording_.headless = headless;
  recording_.panel = view.panelVisible;
  recording_.settings = json::parse(start.settings);
  const glm::vec3 a = view.surface.absorption;
  recording_.settings["render"] = {{"width", width},
                                   {"height", height},
                                   {"mode", render::renderModeName(view.renderMode)},
                                   {"smoothing_radius", view.surface.smoothingRadius},
                                   {"smoothing_iterations", view.surface.smoothingIterations},
                                   {"absorption", {a.r, a.g, a.b}},
                                   {"foam", view.surface.foam}};
  recording_.controls = controls_ = producer.controls();
  recording_.camera = view.camera;
  recording_.checkpointEvery = checkpointEvery;
}

void SessionRecorder::beforeFrame(std::uint64_t k, const SceneProducer& producer, const ViewState& view,
                                  bool sceneCapture) {
  RecordedEvent event;
  event.frame = k;
  json controls = producer.controls();
  event.controls = mergePatch(controls_, controls);
  if (!event.controls.is_null()) controls_ = std::move(controls);
  if (!sameCamera(view.camera, view_.camera)) event.camera = view.camera;
  if (view.panelVisible != view_.panelVisible) event.panelVisible = view.panelVisible;
  event.sceneCapture = sceneCapture;
  view_ = view;
  if (!event.controls.is_null() || event.camera || event.panelVisible || event.sceneCapture)
    recording_.events.push_back(std::move(event));
}

void SessionRecorder::afterFrame(std::uint64_t k, SceneProducer& producer, bool last) {
  const std::uint64_t every = recording_.checkpointEvery;
  if (last || (every > 0 && (k + 1) % every == 0)) recording_.checkpoints.push_back(takeCheckpoint(k, producer));
}

void SessionRecorder::finish(std::uint64_t frames, SceneProducer& producer, bool interrupted) {
  recording_.frames = frames;
  recording_.interrupted = interrupted;
  if (frames > 0 && (recording_.checkpoints.empty() || recording_.checkpoints.back().frame != frames - 1))
    recording_.checkpoints.push_back(takeCheckpoint(frames - 1, producer));
  writeSessionRecording(path_, recording_);
  std::fprintf(stderr, "graphsim: recorded %llu frames (%zu events, %zu checkpoints) to %s\n",
               static_cast<unsigned long long>(frames), recording_.events.size(), recording_.checkpoints.size(),
               path_.c_str());
}

SessionReplayer::SessionReplayer(std::shared_ptr<const SessionRecording> recording, double tolerance)
    : recording_(std::move(recording)), tolerance_(tolerance), controls_(recording_->controls) {
  view_.camera = recording_->camera;
  view_.panelVisible = recording_->panel;
}

void SessionReplayer::checkEvents(SceneProducer& producer) const {
  const SessionRecording& r = *recording_;
  json controls = r.controls;
  producer.checkRecordedControls(controls, r.source + ": controls");
  for (std::size_t i = 0; i < r.events.size(); ++i) {
    if (r.events[i].controls.is_null()) continue;
    controls.merge_patch(r.events[i].controls);
    producer.checkRecordedControls(controls, r.source + ": events[" + std::to_string(i) + "] (frame " +
                                                 std::to_string(r.events[i].frame) + "): controls");
  }
}

bool SessionReplayer::sceneCaptureAt(std::uint64_t k) const {
  const auto& events = recording_->events;
  return nextEvent_ < events.size() && events[nextEvent_].frame == k && events[nextEvent_].sceneCapture;
}

void SessionReplayer::beforeFrame(std::uint64_t k, SceneProducer& producer, ViewState& view) {
  const auto& events = recording_->events;
  if (nextEvent_ < events.size() && events[nextEvent_].frame == k) {
    const RecordedEvent& e = events[nextEvent_++];
    if (!e.controls.is_null()) controls_.merge_patch(e.controls);
    if (e.camera) view_.camera = *e.camera;
    if (e.panelVisible) view_.panelVisible = *e.panelVisible;
  }
  // Every frame, not only at events: whatever the window's own input changed since is put back.
  if (producer.controls() != controls_) producer.setControls(controls_);
  view.camera = view_.camera; // the render mode and style stay the run's (the recording's start: its settings)
  view.panelVisible = view_.panelVisible;
}

void SessionReplayer::afterFrame(std::uint64_t k, SceneProducer& producer) {
  const auto& checkpoints = recording_->checkpoints;
  if (nextCheckpoint_ >= checkpoints.size() || checkpoints[nextCheckpoint_].frame != k) return;
  const RecordedCheckpoint& recorded = checkpoints[nextCheckpoint_++];
  const RecordedCheckpoint replayed = takeCheckpoint(k, producer);
  ++verdict_.checkpoints;
  if (replayed.hash == recorded.hash) {
    ++verdict_.identical;
    return;
  }
  std::string why;
  if (recorded.positions.empty() || replayed.positions.size() != recorded.positions.size()) {
    why = recorded.positions.empty() ? "the state differs, and the recording kept only its hash (over " +
                                           std::to_string(kMaxCheckpointPositions) + " elements)"
                                     : "the state has another size";
  } else {
    const double error = relativeError(replayed.positions, recorded.positions);
    verdict_.maxRelError = std::max(verdict_.maxRelError, error);
    if (error <= tolerance_) {
      ++verdict_.withinTolerance;
      return;
    }
    char text[160];
    std::snprintf(text, sizeof text, "positions differ by %.3g of the RMS radius, over the tolerance %.3g", error,
                  tolerance_);
    why = text;
  }
  ++verdict_.failed;
  if (verdict_.firstFailure.empty()) verdict_.firstFailure = "frame " + std::to_string(k + 1) + ": " + why;
}

std::string SessionReplayer::summary() const {
  const ReplayVerdict& v = verdict_;
  char text[256];
  std::snprintf(text, sizeof text, "replay: %llu of %zu checkpoints compared: %llu bit-identical",
                static_cast<unsigned long long>(v.checkpoints), recording_->checkpoints.size(),
                static_cast<unsigned long long>(v.identical));
  std::string out = text;
  if (v.withinTolerance + v.failed > 0) {
    std::snprintf(text, sizeof text, ", %llu within the tolerance %.3g (largest %.3g of the RMS radius), %llu beyond",
                  static_cast<unsigned long long>(v.withinTolerance), tolerance_, v.maxRelError,
                  static_cast<unsigned long long>(v.failed));
    out += text;
  }
  if (!v.firstFailure.empty()) out += "; first: " + v.firstFailure;
  return out;
}

} // namespace graphsim::app
