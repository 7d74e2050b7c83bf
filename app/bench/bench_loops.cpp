#include "app/bench/bench_loops.h"

#include <algorithm>
#include <deque>
#include <utility>

#include "app/bench/bench_capture.h"
#include "app/run/interop_bridge.h"
#include "app/run/progress.h"
#include "compute/cpu_backend.h"
#include "render/particle_renderer.h"

namespace graphsim::app {
namespace {

double us(BenchClock::time_point from, BenchClock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}
double seconds(BenchClock::time_point from, BenchClock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

render::RendererConfig rendererConfig(const BenchOptions& options, render::BodyBufferMode mode, std::uint32_t f) {
  render::RendererConfig config;
  config.width = options.scene.render.width;
  config.height = options.scene.render.height;
  config.maxBodies = static_cast<std::uint32_t>(std::max<std::int64_t>(1, options.scene.sim.bodies));
  config.framesInFlight = f;
  config.mode = mode;
  config.waitTimeout = options.waitTimeout;
  return config;
}

render::FrameSubmit frameSubmit(const BenchOptions& options, std::uint64_t frame) {
  render::FrameSubmit submit;
  submit.frame = frame;
  submit.bodyCount = static_cast<std::uint32_t>(options.scene.sim.bodies);
  submit.camera = options.scene.render.camera;
  submit.style.pointRadius = options.scene.render.pointRadius;
  return submit;
}

// Which frames of the loop are captured, and collecting their pixels once they are complete (bench_capture.h).
class CaptureSchedule {
public:
  CaptureSchedule(const LoopSetup& setup, std::uint32_t framesInFlight)
      : setup_(setup), every_(setup.capture != nullptr ? setup.options->captureEvery : 0), f_(framesInFlight) {}

  bool wants(std::uint64_t frame) const { return every_ > 0 && (frame + 1) % every_ == 0; }

  void submitted(std::uint64_t frame, const SimBackend& sim) {
    pending_.push_back({frame, captureSidecar(frame, frame < setup_.options->warmup, setup_.variantName,
                                              sim.config(), sim.nodes())});
  }

  // After the throttle for frame `next` (frames <= next - F are complete) or, with next = UINT64_MAX, after drain.
  // Returns the loop time it took when it collected anything.
  std::optional<double> collect(render::ParticleRenderer& renderer, std::uint64_t next) {
    const auto start = BenchClock::now();
    const std::uint64_t before = count_;
    while (!pending_.empty() && (next == UINT64_MAX || pending_.front().frame + f_ <= next)) {
      Pending p = std::move(pending_.front());
      pending_.pop_front();
      std::vector<std::uint8_t> pixels = setup_.capture->takeBuffer();
      renderer.finishCapture(p.frame, pixels);
      setup_.capture->enqueue({p.frame, std::move(pixels), std::move(p.sidecar)});
      ++count_;
    }
    if (count_ == before) return std::nullopt;
    return us(start, BenchClock::now());
  }
  std::uint64_t count() const { return count_; }

private:
  struct Pending {
    std::uint64_t frame;
    nlohmann::ordered_json sidecar;
  };
  const LoopSetup& setup_;
  std::uint64_t every_;
  std::uint32_t f_;
  std::deque<Pending> pending_;
  std::uint64_t count_ = 0;
};

void startVariant(const LoopSetup& setup, std::uint32_t f, std::uint64_t total) {
  if (!setup.options->quiet) {
    std::fprintf(stderr, "graphsim bench: %s (F = %u): %llu frames\n", setup.variantName.c_str(), f,
                 static_cast<unsigned long long>(total));
  }
}

} // namespace

FrameLog::FrameLog(std::uint64_t warmup, std::uint64_t frames)
    : warmup_(warmup), frames_(frames), completion_(warmup + frames), host_(warmup + frames),
      sim_(warmup + frames), render_(warmup + frames), capture_(warmup + frames) {}

void FrameLog::summarise(VariantResult& r, double interactionsPerFrame, bool withSubmit, bool withWait) const {
  const auto& c = completion_;
  const BenchClock::time_point first = warmup_ > 0 ? c.at(warmup_ - 1).value() : start_;
  std::vector<double> frameMs, node, launch, submit, queueSubmit, hostTotal, wait, sim, render;
  BenchClock::time_point previous = first;
  for (std::uint64_t k = warmup_; k < total(); ++k) {
    const BenchClock::time_point t = c.at(k).value();
    frameMs.push_back(1e3 * seconds(previous, t));
    previous = t;
    node.push_back(host_[k].nodeUpdatesUs);
    launch.push_back(host_[k].graphLaunchUs);
    submit.push_back(host_[k].vkSubmitUs);
    queueSubmit.push_back(host_[k].vkQueueSubmitUs);
    hostTotal.push_back(host_[k].totalUs);
    wait.push_back(host_[k].hostWaitUs);
    if (sim_[k]) sim.push_back(*sim_[k]);
    if (render_[k]) render.push_back(*render_[k]);
  }
  r.measuredSeconds = seconds(first, previous);
  r.frameMs = percentiles(frameMs);
  r.fps = r.measuredSeconds > 0 ? static_cast<double>(frames_) / r.measuredSeconds : 0;
  if (!sim.empty()) r.simGpuMs = percentiles(sim).mean;
  if (!render.empty()) r.renderGpuMs = percentiles(render).mean;
  r.host.nodeUpdates = median(node);
  r.host.graphLaunch = median(launch);
  if (withSubmit) {
    r.host.vkSubmit = median(submit);
    r.host.vkQueueSubmit = median(queueSubmit);
  }
  r.host.total = median(hostTotal);
  if (withWait) r.host.hostWait = median(wait);
  r.interactionsPerSecond =
      r.measuredSeconds > 0 ? interactionsPerFrame * static_cast<double>(frames_) / r.measuredSeconds : 0;
  r.gflops = 20.0 * r.interactionsPerSecond * 1e-9;
}

void FrameLog::appendCsv(std::string& out, const std::string& variant) const {
  char row[512];
  std::optional<BenchClock::time_point> previous = start_;
  const auto optional = [](const std::optional<double>& v) { return v ? std::to_string(*v) : std::string(); };
  for (std::uint64_t k = 0; k < total(); ++k) {
    const std::optional<BenchClock::time_point>& t = completion_[k];
    // Empty when the completion was not seen (as the other optional columns): never a -1 that reads as a time.
    const std::optional<double> completed = t ? std::optional(1e3 * seconds(start_, *t)) : std::nullopt;
    const std::optional<double> interval = t && previous ? std::optional(1e3 * seconds(*previous, *t)) : std::nullopt;
    previous = t;
    const HostSample& h = host_[k];
    std::snprintf(row, sizeof row, "%s,%llu,%d,%s,%s,%s,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%s\n", variant.c_str(),
                  static_cast<unsigned long long>(k), k >= warmup_ ? 1 : 0, optional(completed).c_str(),
                  optional(interval).c_str(),
                  optional(sim_[k]).c_str(), optional(render_[k]).c_str(), h.nodeUpdatesUs, h.graphLaunchUs,
                  h.vkSubmitUs, h.vkQueueSubmitUs, h.totalUs, h.hostWaitUs, optional(capture_[k]).c_str());
    out += row;
  }
}

LoopResult runInteropLoop(render::VulkanContext& context, const LoopSetup& setup, LaunchMode mode,
                          std::uint32_t f, bool submitAfterSim) {
  const BenchOptions& options = *setup.options;
  LoopResult out;
  render::ParticleRenderer renderer(context, rendererConfig(options, render::BodyBufferMode::Exported, f));
  const InteropDesc interop = exportForCuda(renderer);
  const auto built = BenchClock::now();
  // After the renderer: destroyed first, so CUDA releases its imports before Vulkan frees them.
  CudaBackend sim(options.scene.sim, setup.cudaDevice, &interop, options.waitTimeout);
  out.startupSeconds = seconds(built, BenchClock::now());
  sim.setLaunchMode(mode);

  FrameLog log(options.warmup, options.frames);
  CaptureSchedule capture(setup, f);
  startVariant(setup, f, log.total());
  Progress progress(log.total(), options.quiet);
  const auto submitFor = [&](std::uint64_t k) {
    render::FrameSubmit submit = frameSubmit(options, k);
    submit.waitSimDone = k + 1;
    submit.capture = capture.wants(k);
    if (submit.capture) capture.submitted(k, sim);
    return submit;
  };
  log.start();
  for (std::uint64_t k = 0; k < log.total(); ++k) {
    renderer.waitForSlot(k); // the only per-frame host wait: renderDone >= k - F + 1, a value Vulkan signals
    if (k >= f) {
      log.completed(k - f);
      if (const std::optional<double> ms = sim.frameGpuMs(k - f)) log.simMs(k - f, *ms);
    }
    if (const double ms = renderer.lastRenderGpuMs(); ms >= 0) log.renderMs(k, ms);
    if (const std::optional<double> spent = capture.collect(renderer, k)) log.captureUs(k, *spent);
    if (!submitAfterSim) {
      const render::FrameSubmit submit = submitFor(k);
      const auto t0 = BenchClock::now();
      sim.launchFrame(k);
      const auto t1 = BenchClock::now();
      renderer.submit(submit);
      const auto t2 = BenchClock::now();
      const LaunchHostTiming launch = sim.lastLaunchHostTiming();
      log.host(k, {launch.nodeUpdatesUs, launch.launchUs, us(t1, t2), renderer.lastQueueSubmitUs(), us(t0, t2), 0});
    } else {
      // Launch frame k, then submit frame k - 1's render once its CUDA work is seen complete: the GPU has frame k
      // queued meanwhile, and the render's simDone wait is already satisfied when Vulkan gets it.
      const auto t0 = BenchClock::now();
      sim.launchFrame(k);
      const auto t1 = BenchClock::now();
      double waitUs = 0, submitUs = 0;
      if (k > 0) {
        const render::FrameSubmit submit = submitFor(k - 1);
        sim.waitForFrame(k - 1);
        const auto t2 = BenchClock::now();
        renderer.submit(submit);
        waitUs = us(t1, t2);
        submitUs = us(t2, BenchClock::now());
      }
      const LaunchHostTiming launch = sim.lastLaunchHostTiming();
      log.host(k, {launch.nodeUpdatesUs, launch.launchUs, submitUs, renderer.lastQueueSubmitUs(),
                   us(t0, t1) + submitUs, waitUs});
    }
    progress.frameDone(k + 1);
  }
  if (submitAfterSim && log.total() > 0) {
    sim.waitForFrame(log.total() - 1);
    renderer.submit(submitFor(log.total() - 1));
  }
  for (std::uint64_t k = log.total() - std::min<std::uint64_t>(f, log.total()); k < log.total(); ++k) {
    renderer.waitRenderDone(k + 1);
    log.completed(k);
    sim.waitForFrame(k); // normally done already: the render of k waited for it
    if (const std::optional<double> ms = sim.frameGpuMs(k)) log.simMs(k, *ms);
  }
  capture.collect(renderer, UINT64_MAX);
  renderer.drain();
  sim.synchronize();
  log.summarise(out.result, setup.interactionsPerFrame, true, submitAfterSim);
  if (options.frameLog) log.appendCsv(out.frameCsv, setup.variantName);
  out.result.framesInFlight = f;
  out.result.counters = sim.counters();
  out.result.captures = capture.count();
  return out;
}

LoopResult runHostCopyLoop(render::VulkanContext& context, const LoopSetup& setup) {
  const BenchOptions& options = *setup.options;
  const std::uint32_t f = options.framesInFlight;
  LoopResult out;
  render::ParticleRenderer renderer(context, rendererConfig(options, render::BodyBufferMode::Staged, f));
  const auto built = BenchClock::now();
  CudaBackend sim(options.scene.sim, setup.cudaDevice, nullptr, options.waitTimeout); // compute-only graph
  out.startupSeconds = seconds(built, BenchClock::now());

  FrameLog log(options.warmup, options.frames);
  startVariant(setup, f, log.total());
  Progress progress(log.total(), options.quiet);
  log.start();
  for (std::uint64_t k = 0; k < log.total(); ++k) {
    renderer.waitForSlot(k);
    if (k >= f) log.completed(k - f);
    if (const double ms = renderer.lastRenderGpuMs(); ms >= 0) log.renderMs(k, ms);
    const auto t0 = BenchClock::now();
    sim.launchFrame(k);
    const auto t1 = BenchClock::now();
    // No interop: the host waits for the frame, copies it out of CUDA and into Vulkan's staging buffer; the submit
    // then copies it to the vertex buffer on the GPU.
    sim.copyRenderOutput(reinterpret_cast<Float4*>(renderer.mappedBodies(renderer.slotOf(k))));
    const auto t2 = BenchClock::now();
    renderer.submit(frameSubmit(options, k));
    const auto t3 = BenchClock::now();
    if (const std::optional<double> ms = sim.frameGpuMs(k)) log.simMs(k, *ms);
    const LaunchHostTiming launch = sim.lastLaunchHostTiming();
    log.host(k, {launch.nodeUpdatesUs, launch.launchUs, us(t2, t3), renderer.lastQueueSubmitUs(),
                 us(t0, t1) + us(t2, t3), us(t1, t2)});
    progress.frameDone(k + 1);
  }
  for (std::uint64_t k = log.total() - std::min<std::uint64_t>(f, log.total()); k < log.total(); ++k) {
    renderer.waitRenderDone(k + 1);
    log.completed(k);
  }
  renderer.drain();
  log.summarise(out.result, setup.interactionsPerFrame, true, true);
  if (options.frameLog) log.appendCsv(out.frameCsv, setup.variantName);
  out.result.framesInFlight = f;
  out.result.counters = sim.counters();
  return out;
}

LoopResult runCpuLoop(render::VulkanContext& context, const LoopSetup& setup, std::uint32_t f) {
  const BenchOptions& options = *setup.options;
  LoopResult out;
  render::ParticleRenderer renderer(context, rendererConfig(options, render::BodyBufferMode::HostVisible, f));
  const auto built = BenchClock::now();
  CpuBackend sim(options.scene.sim);
  out.startupSeconds = seconds(built, BenchClock::now());

  FrameLog log(options.warmup, options.frames);
  CaptureSchedule capture(setup, f);
  startVariant(setup, f, log.total());
  Progress progress(log.total(), options.quiet);
  log.start();
  for (std::uint64_t k = 0; k < log.total(); ++k) {
    renderer.waitForSlot(k);
    if (k >= f) log.completed(k - f);
    if (const double ms = renderer.lastRenderGpuMs(); ms >= 0) log.renderMs(k, ms);
    if (const std::optional<double> spent = capture.collect(renderer, k)) log.captureUs(k, *spent);
    render::FrameSubmit submit = frameSubmit(options, k);
    submit.capture = capture.wants(k);

    const auto t0 = BenchClock::now();
    sim.step();
    sim.writeRender(reinterpret_cast<Float4*>(renderer.mappedBodies(renderer.slotOf(k))));
    const auto t1 = BenchClock::now();
    if (submit.capture) capture.submitted(k, sim);
    const auto t2 = BenchClock::now();
    renderer.submit(submit);
    const auto t3 = BenchClock::now();
    log.simMs(k, 1e-3 * us(t0, t1)); // the CPU's simulation is the frame's work, not host overhead
    log.host(k, {0, 0, us(t2, t3), renderer.lastQueueSubmitUs(), us(t2, t3), 0});
    progress.frameDone(k + 1);
  }
  for (std::uint64_t k = log.total() - std::min<std::uint64_t>(f, log.total()); k < log.total(); ++k) {
    renderer.waitRenderDone(k + 1);
    log.completed(k);
  }
  capture.collect(renderer, UINT64_MAX);
  renderer.drain();
  log.summarise(out.result, setup.interactionsPerFrame, true, false);
  if (options.frameLog) log.appendCsv(out.frameCsv, setup.variantName);
  out.result.framesInFlight = f;
  out.result.captures = capture.count();
  return out;
}

LoopResult runCudaSimOnlyLoop(const LoopSetup& setup) {
  const BenchOptions& options = *setup.options;
  // Frames queued ahead of the one the host waits for, as F frames are in flight with rendering.
  const std::uint64_t queued = options.framesInFlight;
  LoopResult out;
  const auto built = BenchClock::now();
  CudaBackend sim(options.scene.sim, setup.cudaDevice, nullptr, options.waitTimeout);
  out.startupSeconds = seconds(built, BenchClock::now());

  FrameLog log(options.warmup, options.frames);
  startVariant(setup, options.framesInFlight, log.total());
  Progress progress(log.total(), options.quiet);
  const auto observe = [&](std::uint64_t k) {
    sim.waitForFrame(k);
    log.completed(k);
    if (const std::optional<double> ms = sim.frameGpuMs(k)) log.simMs(k, *ms);
  };
  log.start();
  for (std::uint64_t k = 0; k < log.total(); ++k) {
    if (k >= queued) observe(k - queued);
    const auto t0 = BenchClock::now();
    sim.launchFrame(k);
    const auto t1 = BenchClock::now();
    const LaunchHostTiming launch = sim.lastLaunchHostTiming();
    log.host(k, {launch.nodeUpdatesUs, launch.launchUs, 0, 0, us(t0, t1), 0});
    progress.frameDone(k + 1);
  }
  for (std::uint64_t k = log.total() - std::min(queued, log.total()); k < log.total(); ++k) observe(k);
  sim.synchronize();
  log.summarise(out.result, setup.interactionsPerFrame, false, false);
  if (options.frameLog) log.appendCsv(out.frameCsv, setup.variantName);
  out.result.framesInFlight = options.framesInFlight;
  out.result.counters = sim.counters();
  return out;
}

LoopResult runCpuSimOnlyLoop(const LoopSetup& setup) {
  const BenchOptions& options = *setup.options;
  LoopResult out;
  const auto built = BenchClock::now();
  CpuBackend sim(options.scene.sim);
  out.startupSeconds = seconds(built, BenchClock::now());
  FrameLog log(options.warmup, options.frames);
  startVariant(setup, 1, log.total());
  Progress progress(log.total(), options.quiet);
  log.start();
  for (std::uint64_t k = 0; k < log.total(); ++k) {
    const auto t0 = BenchClock::now();
    sim.step();
    log.completed(k);
    log.simMs(k, 1e-3 * us(t0, BenchClock::now()));
    progress.frameDone(k + 1);
  }
  log.summarise(out.result, setup.interactionsPerFrame, false, false);
  if (options.frameLog) log.appendCsv(out.frameCsv, setup.variantName);
  out.result.framesInFlight = 1;
  return out;
}

} // namespace graphsim::app
