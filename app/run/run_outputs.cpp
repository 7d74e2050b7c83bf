// Where a run's outputs go (app/run/run_options.h): the capture of frame k, the window's numbered files, and the
// registry of every output the run will write, checked before any work (app/base/output_paths.h).
#include <algorithm>
#include <cstdint>
#include <filesystem>

#include "app/base/output_paths.h"
#include "app/record/session_record.h"
#include "app/run/run_options.h"

namespace graphsim::app {

namespace fs = std::filesystem;

fs::path capturePath(const RunOptions& options, std::uint64_t frame) {
  return options.captureEvery > 0 ? numberedPath(*options.capture, frame + 1) : *options.capture;
}

bool shouldCapture(const RunOptions& options, std::uint64_t frame) {
  if (!options.capture) return false;
  if (options.captureEvery > 0) return (frame + 1) % static_cast<std::uint64_t>(options.captureEvery) == 0;
  return frame + 1 == static_cast<std::uint64_t>(options.frames);
}

fs::path windowOutputPattern(const RunOptions& options, WindowOutput output) {
  static constexpr const char* kNames[] = {"graphsim_frame.png", "graphsim_state.gss", "graphsim_graph.dot"};
  const fs::path dir = options.capture ? options.capture->parent_path() : fs::path();
  return (dir.empty() ? fs::path(".") : dir) / kNames[static_cast<int>(output)];
}

OutputRegistry registerOutputs(const RunOptions& options) {
  OutputRegistry outputs;
  const auto last = static_cast<std::uint64_t>(options.untilClosed ? 0 : options.frames);
  if (options.capture && options.captureEvery > 0)
    outputs.addNumbered("--capture-every's images", *options.capture, static_cast<std::uint64_t>(options.captureEvery),
                        last);
  else if (options.capture) outputs.add("--capture", *options.capture);
  if (options.video) outputs.add("--video", options.video->path);
  const bool window = !options.headless;
  const bool recordedCaptures =
      options.replay && std::any_of(options.replay->events.begin(), options.replay->events.end(),
                                    [](const RecordedEvent& e) { return e.sceneCapture; });
  if (window || recordedCaptures) // a replay's recorded F12 captures are written headless too
    outputs.addNumbered("F12's captures", windowOutputPattern(options, WindowOutput::SceneCapture), 1, last);
  if (window) {
    outputs.addNumbered("F5's snapshots", windowOutputPattern(options, WindowOutput::Snapshot), 1, last);
    outputs.addNumbered("the panel's graph dumps", windowOutputPattern(options, WindowOutput::GraphDump), 1, last);
  }
  return outputs;
}

} // namespace graphsim::app
