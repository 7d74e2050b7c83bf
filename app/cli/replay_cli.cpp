#include "app/cli/replay_cli.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/base/errors.h"
#include "app/base/output_paths.h"
#include "app/cli/cli.h"
#include "app/cli/video_flags.h"
#include "app/io/user_text.h"
#include "app/record/session_record.h"
#include "app/snapshot/snapshot.h"

namespace graphsim::app {

namespace fs = std::filesystem;

ReplayCommandLine::ReplayCommandLine(CLI::App& app) {
  replay_ = app.add_subcommand("replay",
                               "Replay a session recorded with 'run --record', frame for frame, and check "
                               "its state checkpoints.");
  replay_->add_option("FILE", file_, "The recorded session (JSON)")->required();
  replay_->add_option("--scene", scene_, "Refuse a recording of another scene than this one");
  shared_.addBackend(*replay_);
  shared_.addInterop(*replay_);
  replay_->add_flag("--headless", headless_, "Render offscreen, no window (no display needed)");
  replay_->add_option("--capture", capture_, "Write the last frame as PNG to PATH (with --capture-every: a pattern)");
  addIntegerOption(*replay_, "--capture-every", captureEvery_, "Capture every K-th frame, K >= 1 (needs --capture)");
  addVideoFlags(*replay_, "every frame replayed, as the window shows it, at the recording's render size");
  replay_
      ->add_option("--tolerance", tolerance_,
                   "Largest position difference, relative to the state's RMS radius, a checkpoint may show when "
                   "its hash differs (a replay on another backend), 0..1")
      ->capture_default_str();
  shared_.addValidation(*replay_, "replay");
  shared_.addGpu(*replay_, "cpu backend: Vulkan device index; cuda backend: CUDA device index (see list-gpus)");
  shared_.addWaitTimeout(*replay_);
  shared_.addQuiet(*replay_, "No progress lines");
  shared_.addRenderMode(*replay_);
  replay_->footer(
      "\nThe recording gives the scene, its settings, the render size, the frames in flight, the frame "
      "count and every\nchange (panel, keys, mouse, camera, F12 captures) with its frame; the window's "
      "own input is overridden.\nThe backend defaults to the recording's. At each recorded checkpoint "
      "the state is compared: bit for bit\n(the same backend: expected), else within --tolerance. "
      "Exit 1 when a checkpoint differs beyond it;\n2 for a recording that is not valid, of a newer "
      "format version, or of a scene this graphsim lacks or --scene\ndoes not name.");
}

bool ReplayCommandLine::parsed() const { return replay_->parsed(); }

RunOptions ReplayCommandLine::options() const {
  auto recording = std::make_shared<SessionRecording>(readSessionRecording(file_));
  const std::string source = fileNamedBy("replay", file_);
  if (replay_->count("--scene") > 0 && scene_ != recording->scene)
    throw UsageError("--scene " + asTyped(scene_) + ": " + source + " is a recording of the " +
                     shownText(recording->scene) + " scene");
  const auto scenes = graphsim::app::scenes();
  if (std::none_of(scenes.begin(), scenes.end(), [&](const Scene* s) { return s->name() == recording->scene; }))
    throw UsageError(source + " is a recording of the " + shownText(recording->scene) +
                     " scene, which this graphsim does not have (scenes: " + sceneChoices() + ")");
  if (recording->settings.value("scene", recording->scene) != recording->scene)
    throw UsageError(source + ": its settings are of another scene than its header's " + recording->scene);
  if (recording->frames == 0) throw UsageError(source + ": the recording has no frames to replay");
  SceneState start; // the recording's settings, checked as a snapshot's are (app/snapshot)
  start.scene = recording->scene;
  start.count = recording->count;
  start.settings = recording->settings.dump();
  start.source = source;
  RunOptions options;
  options.scene = settingsOfSnapshot(start);
  options.scene.render.camera = recording->camera;
  options.scene.render.cameraGiven = true;
  // The checks a run's settings get (the scene's own, such as two-body = 2 bodies; host memory), naming the file.
  (void)parseCountAndFramesInFlight(options.scene, CountFlags{}, std::to_string(recording->framesInFlight), source);
  static_assert(kMaxRecordedFrames == static_cast<std::uint64_t>(kMaxFrames), "a recording holds what run may run");
  options.frames = static_cast<std::int64_t>(recording->frames); // at most kMaxRecordedFrames (session_record.cpp)
  options.framesInFlight = recording->framesInFlight;
  options.headless = headless_;
  options.panel = recording->panel;
  options.validation = shared_.validation();
  options.quiet = shared_.quiet();
  options.interop = shared_.interop();
  options.backend = replay_->count("--backend") > 0 ? shared_.backend()
                    : recording->backend == "cuda"  ? BackendKind::Cuda
                                                    : BackendKind::Cpu;
  options.gpu = shared_.gpu();
  options.waitTimeout = shared_.waitTimeout();
  shared_.applyRenderMode(options.scene.render); // over the recording's
  char* end = nullptr;
  options.replayTolerance = std::strtod(tolerance_.c_str(), &end);
  if (tolerance_.empty() || end != tolerance_.c_str() + tolerance_.size() || !(options.replayTolerance >= 0) ||
      options.replayTolerance > 1)
    throw UsageError("--tolerance: must be a number in 0..1, got " + asTyped(tolerance_));
  if (replay_->count("--capture-every") > 0) {
    options.captureEvery = parseIntegerFlag("--capture-every", captureEvery_, 1, kMaxFrames);
    if (capture_.empty()) throw UsageError("--capture-every: needs --capture PATH.png as the name pattern");
  }
  if (replay_->count("--capture") > 0) {
    const std::size_t digits = std::max<std::size_t>(6, std::to_string(options.frames).size());
    checkCapturePath(capture_, options.captureEvery > 0 ? 1 + digits : 0);
    options.capture = fs::path(capture_);
  }
  options.video = parseVideoFlags(*replay_, options.scene.render.width, options.scene.render.height);
  options.replay = std::move(recording);
  registerOutputs(options).check();
  return options;
}

} // namespace graphsim::app
