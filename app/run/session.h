// The frame loop: a scene's producer (app/scenes/scene.h) + renderer (+ ImGui panel, + swapchain when windowed), one
// frame per tick(). The same loop runs `graphsim run` windowed and headless, and the scripted UI tests.
//
// Frame k: waitForSlot(k) [throttle on renderDone, a value Vulkan signals] -> acquire (windowed) -> UI (input,
// panel) -> controller applies requests to the backend -> produce (CPU: step + write the mapped slot; CUDA: launch
// the frame's graph, which waits renderDone >= k-F+1 and signals simDone = k+1) -> submit the render (waits simDone
// >= k+1 on the GPU; blits into the swapchain image) -> present -> captures. See docs/FRAME.md.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "app/run/run_options.h"
#include "app/scenes/scene.h"
#include "app/ui/panel.h"
#include "app/ui/window.h"

namespace graphsim::render {
class ParticleRenderer;
}

namespace graphsim::app {

struct RunSummary {
  std::uint64_t frames = 0;
  double wallSeconds = 0;
  std::optional<double> simMsPerFrame; // CPU: wall time of step(); CUDA: graph GPU time (events); none: not measured
  std::optional<double> renderGpuMs;   // last frame's render GPU time (timestamps); none: not measured/unsupported
  std::uint64_t validationMessages = 0;
  std::uint64_t captures = 0;
  std::string dataPath; // how frames reach the renderer: "cuda interop", "cuda host copy" (--interop), or the cpu's
  std::string state;    // the scene at the end: "16384 bodies", "65536 particles" (SceneProducer::describeState)
  std::string detail;   // its last frame, when the scene says something: "last frame 12 substeps of 1.39 ms"
  std::string replay;   // `graphsim replay`: the checkpoints' verdict (SessionReplayer::summary); empty otherwise
  bool replayFailed = false; // a checkpoint beyond the tolerance: exit 1
  // The live diagnostics' line (SceneProducer::diagnosticsSummary); empty: none.
  std::string diagnostics;
};

class Session {
public:
  // backend: Cpu or Cuda (resolved). Throws UsageError, EnvironmentError (exit 3),
  // TimeoutError, or other errors.
  Session(const RunOptions& options, BackendKind backend, Window& window);
  ~Session(); // drains both APIs' work (bounded), then releases CUDA imports before the Vulkan objects behind them
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // One loop iteration: normally one frame; none while minimised or when the swapchain had to be recreated.
  // False when the run is over (frame limit, Esc, window closed).
  bool tick();
  // Drains and returns the summary (frames, timings, validation messages so far).
  RunSummary finish();

  // The running scene (app/scenes/scene.h); backend() is the same object.
  SceneProducer& scene();
  SceneProducer& backend();
  render::ParticleRenderer& renderer();
  ViewState& view();
  const FrameStats& stats() const;
  const PanelLayout& layout() const; // the panel's widgets in the last frame
  std::uint64_t framesRendered() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Runs a Session until it ends; prints progress unless quiet.
RunSummary runSession(const RunOptions& options, BackendKind backend, Window& window);

} // namespace graphsim::app
