#include "app/run/session.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include <imgui.h>

#include "app/base/errors.h"
#include "app/base/progress.h"
#include "app/faults/fault_injection.h"
#include "app/frame/frame_driver.h"
#include "app/record/session_tape.h"
#include "app/run/open_devices.h"
#include "app/run/ranks.h"
#include "app/run/signals.h"
#include "app/snapshot/snapshot.h"
#include "app/ui/imgui_layer.h"
#include "app/video/video_recorder.h"
#include "compute/cuda_device.h"
#include "compute/nvtx.h"
#include "render/particle_renderer.h"
#include "render/swapchain.h"

namespace graphsim::app {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

} // namespace

struct Session::Impl {
  Impl(const RunOptions& options, BackendKind backend, Window& window);
  ~Impl();

  void createContext();
  void createRendererAndProducer(render::RendererConfig config);
  void applyWindowScript();
  bool fitToWindow(VkExtent2D size); // false: nothing to render into this tick
  void runUi(PanelActions& actions);
  void writeCapture(std::uint64_t frame, const fs::path& path);
  void carryOut(const PanelActions& actions);
  void saveState(const fs::path& path, std::uint64_t framesDone); // a snapshot (F5, --save-state)
  void watchForBlowUp();
  // The frame's wall time, the producer's and renderer's costs and counters, into stats (the panel's Stats section).
  void recordFrameStats() {
    const auto now = Clock::now();
    stats.addFrame(std::chrono::duration<double, std::milli>(now - lastFrameEnd).count());
    lastFrameEnd = now;
    stats.simMs = producer->simMs();
    stats.renderPasses = renderer->lastRenderPassTimes();
    stats.renderGpuMs = stats.renderPasses.total;
    stats.updateHostUs = producer->updateHostUs();
    stats.counters = producer->counters();
    if (producer->advances() && stats.simMs >= 0) {
      simMsSum += stats.simMs;
      ++simMsSamples;
    }
  }
  std::unique_ptr<SceneProducer> makeProducer(bool cuda);

  RunOptions options;
  const Scene& scene;
  BackendKind backendKind;
  Window& window;
  int cudaDevice = 0;
  std::vector<int> gpus;             // --gpus resolved (gpus[0] == cudaDevice); empty: one GPU
  std::optional<ProcessRank> joined; // --rendezvous: rank 0's part of the job, joined just before the producer
  CudaDeviceList cudaDevices;
  DataPath dataPath; // CUDA: interop or host copy (--interop)

  // Declaration order is creation order; destruction (reverse) runs after ~Impl drained both APIs: the panel's
  // buffers, then the CUDA imports (producer), then the renderer and swapchain, then the device.
  std::optional<render::VulkanContext> context;
  std::optional<render::Swapchain> swapchain;
  std::optional<render::ParticleRenderer> renderer;
  std::unique_ptr<SceneProducer> producer;
  std::optional<FrameDriver> driver; // after the producer and renderer it drives: destroyed before them
  std::optional<ImGuiLayer> imgui;
  std::optional<SessionRecorder> recorder; // --record
  std::optional<SessionReplayer> replayer; // graphsim replay
  std::optional<VideoRecorder> video;      // --video: an observer of the driver, which is reset before it

  ViewState view;
  FrameStats stats;
  PanelLayout layout;
  PanelInfo info;
  std::uint64_t frame = 0; // frames rendered so far = index of the next frame
  std::uint64_t ticks = 0;
  std::size_t scriptNext = 0;
  bool recreateSwapchain = false;
  bool sceneCaptureNext = false; // F12 / button: next frame without the panel, captured
  bool quitting = false;
  bool blowUpShown = false; // the notice of the backend's current blow-up was given
  Clock::time_point lastFrameEnd = Clock::now();
  double simMsSum = 0;
  std::uint64_t simMsSamples = 0;
  std::uint64_t captures = 0;
};

Session::Impl::Impl(const RunOptions& options_, BackendKind backend, Window& window_)
    : options(options_), scene(findScene(options_.scene.scene)), backendKind(backend), window(window_) {
  createContext();
  const VkExtent2D size = window.framebufferSize();
  render::RendererConfig config;
  config.width = size.width > 0 ? size.width : options.scene.render.width;
  config.height = size.height > 0 ? size.height : options.scene.render.height;
  config.maxBodies = static_cast<std::uint32_t>(scene.renderCapacity(options.scene));
  config.framesInFlight = options.framesInFlight;
  config.waitTimeout = options.waitTimeout;
  config.throttleWait = options.throttleWait;
  if (!window.headless()) {
    swapchain.emplace(*context, VkExtent2D{config.width, config.height}, options.presentMode, options.framesInFlight,
                      options.waitTimeout);
    config.width = swapchain->extent().width;
    config.height = swapchain->extent().height;
    info.presentMode = std::string(render::presentModeName(swapchain->mode()));
  }
  createRendererAndProducer(config);
  if (joined) removeRendezvous(options.rank->rendezvous); // every rank has joined: the file would mislead a later job
  if (options.loadState) { // checked whole by the command line; the producer was made from its settings
    producer->loadState(*options.loadState);
    std::fprintf(stderr, "graphsim: resumed the %s (%s)\n", describeSnapshot(*options.loadState).c_str(),
                 options.loadState->source.c_str());
  }
  if (options.dumpGraph && !producer->hasGraph()) { // --backend auto that resolved to cpu
    std::fprintf(stderr, "graphsim: --dump-graph: the %s backend has no CUDA graph; nothing written\n",
                 std::string(producer->backendName()).c_str());
  } else if (options.dumpGraph) {
    producer->dumpGraph(*options.dumpGraph);
    std::fprintf(stderr, "graphsim: wrote the frame graph to %s\n", options.dumpGraph->c_str());
  }
  driver.emplace(&*renderer, *producer, FrameProtocol(options.framesInFlight));
  if (options.video) driver->observe(video.emplace(*options.video, *renderer));
  if (options.panel)
    imgui.emplace(*context, renderer->renderPass(), options.framesInFlight, window, options.waitTimeout);

  view.camera = scene.initialCamera(options.scene);
  view.panelVisible = options.panel;
  view.renderMode = options.scene.render.mode;
  view.surface = options.scene.render.surface;
  info.backend = std::string(producer->backendName());
  info.dataPath = backendKind == BackendKind::Cuda ? dataPath.name() : "cpu (mapped buffer)";
  info.dataPathReason = dataPath.fallbackReason;
  info.gpu = context->info().name;
  info.framesInFlight = options.framesInFlight;
  info.canDumpGraph = producer->hasGraph();
  if (options.profile) {
    info.profiling = producer->setProfiling(true);
    if (!info.profiling)
      std::fprintf(stderr, "graphsim: --profile: the %s backend cannot time its nodes; running without\n",
                   info.backend.c_str());
  }
  if (options.record) {
    const render::RendererConfig& rendered = renderer->config();
    recorder.emplace(*options.record, options.recordCheckpointEvery, *producer, view, info.backend,
                     options.framesInFlight, window.headless(), rendered.width, rendered.height);
  }
  if (options.replay) {
    replayer.emplace(options.replay, options.replayTolerance);
    replayer->checkEvents(*producer);
  }
}

void Session::Impl::createContext() {
  render::DeviceRequest request;
  request.validation = options.validation;
  if (!window.headless()) {
    request.instanceExtensions = window.vulkanInstanceExtensions();
    request.createSurface = [this](VkInstance instance) { return window.createSurface(instance); };
  }
  if (options.gpus) checkSeveralGpus(findScene(options.scene.scene));
  if (backendKind != BackendKind::Cuda) {
    if (options.gpus) {
      throw EnvironmentError("--gpus needs the cuda backend: " + describeCudaDevices(listCudaDevices()));
    }
    request.index = options.gpu;
    injectIntoDeviceRequest(options.inject, request); // test hook: uuid-mismatch, missing-extension
    try {
      context.emplace(request);
    } catch (const EnvironmentError& e) {
      if (options.inject.fault == Fault::None) throw;
      throw EnvironmentError(std::string(e.what()) + "CUDA devices: " + describeCudaDevices(listCudaDevices()));
    }
    return;
  }
  cudaDevices = listCudaDevices();
  cudaDevice = options.gpu.value_or(0);
  if (options.rank) // rank 0 (the others follow headless, app/run/rank_roles.h): the GPU of its local rank
    cudaDevice = localDeviceFor(options.rank->place, static_cast<int>(cudaDevices.devices.size()));
  if (options.gpus) {
    gpus = resolveGpus(*options.gpus, cudaDevices); // exit 3 naming a GPU that does not exist
    cudaDevice = gpus.front();
  }
  if (cudaDevices.devices.empty()) throw EnvironmentError("--backend cuda: " + describeCudaDevices(cudaDevices));
  if (cudaDevice >= static_cast<int>(cudaDevices.devices.size()))
    throw EnvironmentError("--gpu " + std::to_string(cudaDevice) +
                           ": no such CUDA device; have:" + describeCudaDevices(cudaDevices));
  const CudaDeviceInfo& cuda = cudaDevices.devices[static_cast<std::size_t>(cudaDevice)];
  // Now that the device is known: a count whose estimated GPU memory exceeds it is refused (exit 2) before any
  // allocation, naming the scene's count flag.
  scene.checkCount(options.scene, options.framesInFlight, "--" + std::string(scene.countNoun()), cuda.totalMemory);
  dataPath = openCudaRenderDevice(request, cuda, cudaDevices, options.interop, options.inject, context);
}

// CPU: a mapped buffer the host writes. CUDA: exported buffers CUDA imports, or (host copy) staged ones; an interop
// renderer or import that fails falls back to host copy under --interop auto.
void Session::Impl::createRendererAndProducer(render::RendererConfig config) {
  if (backendKind != BackendKind::Cuda) {
    config.mode = render::BodyBufferMode::HostVisible;
    renderer.emplace(*context, config);
    producer = makeProducer(false);
    return;
  }
  const CudaDeviceInfo& cuda = cudaDevices.devices[static_cast<std::size_t>(cudaDevice)];
  if (dataPath.interop) {
    // Under --interop auto a renderer that cannot export its buffers, or an import CUDA refuses, falls back.
    try {
      config.mode = render::BodyBufferMode::Exported;
      renderer.emplace(*context, config);
    } catch (const EnvironmentError& e) {
      if (options.interop == InteropMode::On) throw;
      dataPath = fallBackToHostCopy(e.what(), cuda, *context);
    }
    if (renderer) {
      try {
        producer = makeProducer(true);
        return;
      } catch (const InteropImportError& e) {
        if (options.interop == InteropMode::On) throw;
        dataPath = fallBackToHostCopy(e.what(), cuda, *context);
      }
    }
    renderer.reset(); // its exports were closed by the failed import, or never made
  }
  config.mode = render::BodyBufferMode::Staged;
  renderer.emplace(*context, config);
  producer = makeProducer(true);
}

std::unique_ptr<SceneProducer> Session::Impl::makeProducer(bool cuda) {
  ProducerRequest request;
  request.cuda = cuda;
  request.renderer = &*renderer;
  request.cudaDevice = cudaDevice;
  request.gpus = gpus;
  request.waitTimeout = options.waitTimeout;
  request.inject = options.inject;
  if (options.rank) {
    // Here, after the window and the renderer, so that the other ranks' wait for NCCL's id is as short as it can be
    // (it has the wait timeout). Once, even when a failed import makes a second producer.
    if (!joined) joined = joinLaunchedJob(*options.rank, options.waitTimeout);
    request.rank = &*joined;
  }
  return scene.makeProducer(options.scene, request);
}

Session::Impl::~Impl() {
  // Explicit shutdown: every submitted frame and every graph launch finishes (bounded) before anything is freed.
  // Errors are reported, never thrown: the owners below still release in order (the renderer's own destructor
  // copes with a producer that never signalled).
  try {
    if (renderer) renderer->drain();
    if (producer) producer->finish();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "graphsim: shutdown: %s\n", e.what());
  }
  imgui.reset();
  driver.reset();
  producer.reset();
}

void Session::Impl::applyWindowScript() {
  while (scriptNext < options.windowScript.size() && options.windowScript[scriptNext].tick <= ticks) {
    const WindowEvent& e = options.windowScript[scriptNext++];
    switch (e.kind) {
    case WindowEvent::Kind::Resize: window.requestSize(e.width, e.height); break;
    case WindowEvent::Kind::Minimise: window.setMinimised(true); break;
    case WindowEvent::Kind::Restore: window.setMinimised(false); break;
    }
  }
}

bool Session::Impl::fitToWindow(VkExtent2D size) {
  if (size.width == 0 || size.height == 0) return false; // minimised: keep the state, render nothing
  if (swapchain) {
    const VkExtent2D current = swapchain->extent();
    if (recreateSwapchain || current.width != size.width || current.height != size.height) {
      renderer->drain(); // no frame may still write the old images
      swapchain->recreate(size);
      recreateSwapchain = false;
      size = swapchain->extent();
      if (size.width == 0 || size.height == 0) return false;
    }
  }
  const render::RendererConfig& config = renderer->config();
  if (config.width != size.width || config.height != size.height) {
    if (video) video->collectPending(); // the resize drops the readbacks of the frames in flight
    renderer->resize(size.width, size.height);
  }
  return true;
}

void Session::Impl::runUi(PanelActions& actions) {
  if (!imgui) return;
  imgui->beginFrame();
  handleViewInput(view, *producer, actions);
  if (view.panelVisible) {
    drawPanel(info, stats, *producer, view, actions, layout);
  } else {
    layout.clear();
  }
  drawNotices(info);
  imgui->endFrame();
}

void Session::Impl::writeCapture(std::uint64_t k, const fs::path& path) {
  const nvtx::Range range(nvtx::Phase::Capture, k);
  const auto pixels = renderer->finishCapture(k);
  const render::RendererConfig& config = renderer->config();
  injectBeforeCapture(options.inject, k, path); // test hook: capture-unwritable
  const std::vector<std::uint8_t> png = render::encodePng(pixels, config.width, config.height);
  writeOutput(path, std::as_bytes(std::span(png))); // OutputError "PATH: REASON"; an earlier file there stays intact
  ++captures;
  endProgressLine();
  std::fprintf(stderr, "graphsim: captured frame %llu to %s\n", static_cast<unsigned long long>(k) + 1,
               fs::absolute(path).c_str());
}

// The header's frame counts on from a loaded snapshot's; the file name (F5) is this run's frame, as captures are.
void Session::Impl::saveState(const fs::path& path, std::uint64_t framesDone) {
  SceneState state = producer->saveState();
  state.frame = (options.loadState ? options.loadState->frame : 0) + framesDone;
  writeSnapshotFile(path, state); // OutputError "PATH: REASON"; an earlier file there stays intact
  endProgressLine();
  std::fprintf(stderr, "graphsim: saved the %s to %s\n", describeSnapshot(state).c_str(), fs::absolute(path).c_str());
}

void Session::Impl::carryOut(const PanelActions& actions) {
  if (actions.quit) quitting = true;
  if (actions.captureScene) sceneCaptureNext = true;
  if (actions.saveState) { // after frame `frame` was produced: its state, beside the captures
    saveState(numberedPath(windowOutputPattern(options, WindowOutput::Snapshot), frame + 1), frame + 1);
  }
  if (actions.dumpGraph && producer->hasGraph()) {
    const fs::path path = numberedPath(windowOutputPattern(options, WindowOutput::GraphDump), frame + 1);
    producer->dumpGraph(path);
    endProgressLine();
    std::fprintf(stderr, "graphsim: wrote the frame graph to %s\n", fs::absolute(path).c_str());
  }
}

// Headless: the run ends (exit 1). In a window: a notice on stderr and in the panel, and the run pauses; a reset
// (R) clears the backend's report and the notice with it.
void Session::Impl::watchForBlowUp() {
  const std::optional<SceneNotice> blowUp = producer->blowUp();
  if (!blowUp) {
    info.blowUp.clear();
    info.blowUpHint.clear();
    blowUpShown = false;
    return;
  }
  if (blowUpShown) return;
  if (window.headless()) throw SimulationBlowUp(blowUp->what);
  endProgressLine();
  std::fprintf(stderr, "graphsim: %s; paused (R resets)\n", blowUp->what.c_str());
  info.blowUp = blowUp->what;
  info.blowUpHint = blowUp->hint;
  blowUpShown = true;
  if (!producer->paused()) producer->togglePause();
}

Session::Session(const RunOptions& options, BackendKind backend, Window& window)
    : impl_(std::make_unique<Impl>(options, backend, window)) {}

Session::~Session() = default;

bool Session::tick() {
  Impl& s = *impl_;
  const bool limited = !s.options.untilClosed;
  if (limited && s.frame >= static_cast<std::uint64_t>(s.options.frames)) return false;
  ++s.ticks;
  s.applyWindowScript();
  s.window.pollEvents();
  if (s.window.closeRequested()) s.quitting = true;
  // Quitting with a --capture pending (a windowed run without --frames): one last frame carries it.
  const bool finalCapture = s.quitting && s.options.untilClosed && s.options.capture && s.options.captureEvery == 0;
  if (s.quitting && !finalCapture) return false;

  if (!s.fitToWindow(s.window.framebufferSize())) {
    s.window.waitEvents(std::chrono::milliseconds(50));
    return !s.quitting;
  }
  const std::uint64_t k = s.frame;
  std::optional<render::PresentTarget> target;
  PanelActions actions;
  if (s.replayer && s.replayer->sceneCaptureAt(k)) s.sceneCaptureNext = true; // the recording's F12 of frame k
  const bool sceneCapture = s.sceneCaptureNext;
  const bool optionCapture = finalCapture || (limited && shouldCapture(s.options, k)) ||
                             (s.options.untilClosed && s.options.captureEvery > 0 && shouldCapture(s.options, k));
  const bool stepped = s.driver->step(k, [&](render::FrameSubmit& submit) {
    if (s.swapchain) {
      target = s.swapchain->acquire(k);
      if (!target) return false; // out of date: recreate on the next tick, render then
    }
    s.runUi(actions);
    if (s.replayer) s.replayer->beforeFrame(k, *s.producer, s.view); // the recording's edits, not the window's
    if (s.recorder) s.recorder->beforeFrame(k, *s.producer, s.view, sceneCapture);
    s.producer->beginFrame(k); // the edits requested so far (panel, keys, soak, test hooks)
    submit.bodyCount = static_cast<std::uint32_t>(s.producer->count());
    submit.camera = s.options.cameraPath ? s.options.cameraPath->atFrame(k, s.view.camera) : s.view.camera;
    s.producer->styleFrame(submit);
    submit.mode = s.view.renderMode;
    submit.surface = s.view.surface;
    submit.capture = sceneCapture || optionCapture || s.video; // the video collects every frame (VideoRecorder)
    submit.overlay = s.imgui && s.view.panelVisible && !sceneCapture ? &*s.imgui : nullptr;
    submit.present = target ? &*target : nullptr;
    injectIntoSubmit(s.options.inject, k, submit); // test hook: vulkan-semaphore-stall
    return true;
  });
  if (!stepped) {
    s.recreateSwapchain = true;
    return true;
  }
  if (target) {
    // vkQueuePresentKHR may block until the image's render is done (lavapipe does), with no timeout: a stalled render
    // would hang it for ever. So the frame's render is first known complete, by the renderer's bounded wait (a
    // stall ends the run like a headless one, naming the side); the present then waits for nothing.
    s.renderer->waitRenderDone(s.renderer->protocol().renderDoneSignalled(k));
    if (!s.swapchain->present(*target)) s.recreateSwapchain = true;
  }

  if (sceneCapture) {
    s.writeCapture(k, numberedPath(windowOutputPattern(s.options, WindowOutput::SceneCapture), k + 1));
    s.sceneCaptureNext = false;
  } else if (optionCapture) {
    s.writeCapture(k, finalCapture ? *s.options.capture : capturePath(s.options, k));
  }
  s.carryOut(actions);
  if (s.recorder)
    s.recorder->afterFrame(k, *s.producer, limited && k + 1 == static_cast<std::uint64_t>(s.options.frames));
  if (s.replayer) s.replayer->afterFrame(k, *s.producer);

  s.recordFrameStats();
  s.watchForBlowUp();
  ++s.frame;
  if (finalCapture) return false;
  return !(limited && s.frame >= static_cast<std::uint64_t>(s.options.frames));
}

RunSummary Session::finish() {
  Impl& s = *impl_;
  s.driver->drain();
  if (s.video) s.video->finish(); // the frames so far, also when interrupted; OutputError "PATH: REASON"
  if (s.options.saveState && interruptRequested()) {
    std::fprintf(stderr,
                 "graphsim: --save-state: not written: the run was interrupted (its last frame may have "
                 "stopped half-way)\n");
  } else if (s.options.saveState) {
    s.saveState(*s.options.saveState, s.frame);
  }
  RunSummary summary;
  summary.frames = s.frame;
  if (s.simMsSamples > 0) {
    summary.simMsPerFrame = s.simMsSum / static_cast<double>(s.simMsSamples);
  } else if (s.producer->advances() && s.producer->simMs() >= 0) {
    // A run shorter than the GPU timings' lag (3 frames on CUDA): after the drain the last frame's time is known.
    summary.simMsPerFrame = s.producer->simMs();
  }
  if (const double ms = s.renderer->lastRenderGpuMs(); ms >= 0) summary.renderGpuMs = ms;
  summary.dataPath = s.info.dataPath;
  summary.validationMessages = s.context->validationMessages();
  summary.captures = s.captures;
  summary.state = s.producer->describeState();
  summary.detail = s.producer->frameDetail();
  summary.diagnostics = s.producer->diagnosticsSummary(); // after the drain: the last frame's sample is in
  if (s.recorder) s.recorder->finish(s.frame, *s.producer, interruptRequested()); // OutputError "PATH: REASON"
  if (s.replayer) {
    summary.replay = s.replayer->summary();
    summary.replayFailed = s.replayer->verdict().failed > 0;
  }
  return summary;
}

SceneProducer& Session::scene() { return *impl_->producer; }
SceneProducer& Session::backend() { return *impl_->producer; }
render::ParticleRenderer& Session::renderer() { return *impl_->renderer; }
ViewState& Session::view() { return impl_->view; }
const FrameStats& Session::stats() const { return impl_->stats; }
const PanelLayout& Session::layout() const { return impl_->layout; }
std::uint64_t Session::framesRendered() const { return impl_->frame; }

RunSummary runSession(const RunOptions& options, BackendKind backend, Window& window) {
  const auto start = Clock::now();
  Session session(options, backend, window);
  Progress progress(options.untilClosed ? 0 : static_cast<std::uint64_t>(options.frames), options.quiet);
  // Ctrl-C (app/run/signals.h) is read between frames: the frame in flight finishes, finish() drains both APIs.
  // A frame whose CPU forces take long stops at a checkpoint instead (Interrupted, compute/long_work.h): it was not
  // submitted, and the frames before it drain as usual.
  try {
    while (!interruptRequested() && session.tick())
      progress.frameDone(session.framesRendered(), [&] { return session.scene().frameDetail(); });
  } catch (const Interrupted&) {
  }
  progress.finish(session.framesRendered()); // a terminal's progress line ends before anything else is printed
  RunSummary summary = session.finish();
  summary.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();
  return summary;
}

} // namespace graphsim::app
