#include "app/bench/bench_variants.h"

#include <algorithm>
#include <ctime>
#include <deque>
#include <utility>

#include "app/base/progress.h"
#include "app/bench/bench_capture.h"
#include "app/bench/bench_producers.h"
#include "app/frame/frame_driver.h"
#include "app/run/signals.h"
#include "compute/errors.h"
#include "compute/nvtx.h"
#include "render/particle_renderer.h"

namespace graphsim::app {
namespace {

double us(BenchClock::time_point from, BenchClock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}
double seconds(BenchClock::time_point from, BenchClock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

} // namespace

render::RendererConfig rendererConfig(const BenchOptions& options, render::BodyBufferMode mode, std::uint32_t f) {
  render::RendererConfig config;
  config.width = options.scene.render.width;
  config.height = options.scene.render.height;
  const Scene& scene = findScene(options.scene.scene);
  config.maxBodies = static_cast<std::uint32_t>(
      std::max<std::int64_t>(1, scene.capacity(options.scene).value_or(scene.count(options.scene))));
  config.framesInFlight = f;
  config.mode = mode;
  config.waitTimeout = options.waitTimeout;
  config.throttleWait = options.throttleWait;
  return config;
}

namespace {

// Which frames of the loop are captured, and collecting their pixels once they are complete (bench_capture.h).
class CaptureSchedule {
public:
  CaptureSchedule(const LoopSetup& setup, std::uint32_t framesInFlight)
      : setup_(setup), every_(setup.capture != nullptr ? setup.options->captureEvery : 0), f_(framesInFlight) {}

  bool wants(std::uint64_t frame) const { return every_ > 0 && (frame + 1) % every_ == 0; }

  void submitted(std::uint64_t frame, const BenchProducer& producer) {
    pending_.push_back({frame, producer.captureSidecar(frame, frame < setup_.options->warmup, setup_.variantName)});
  }

  // After the throttle for frame `next` (frames <= next - F are complete) or, with next = UINT64_MAX, after drain.
  // Returns the loop time it took when it collected anything.
  std::optional<double> collect(render::ParticleRenderer& renderer, std::uint64_t next) {
    const auto start = BenchClock::now();
    const std::uint64_t before = count_;
    while (!pending_.empty() && (next == UINT64_MAX || pending_.front().frame + f_ <= next)) {
      Pending p = std::move(pending_.front());
      pending_.pop_front();
      const nvtx::Range range(nvtx::Phase::Capture, p.frame);
      std::vector<std::uint8_t> pixels = setup_.capture->takeBuffer();
      renderer.finishCapture(p.frame, pixels);
      setup_.capture->enqueue({p.frame, std::move(pixels), std::move(p.sidecar)});
      ++count_;
    }
    if (count_ == before) return std::nullopt;
    return us(start, BenchClock::now());
  }
  std::uint64_t count() const { return count_; }
  // An interrupted frame's submit callback ran but the frame was not submitted: frames from `stepped` on are dropped.
  void forgetFrom(std::uint64_t stepped) {
    while (!pending_.empty() && pending_.back().frame >= stepped) pending_.pop_back();
  }

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
    : warmup_(warmup), frames_(frames), completion_(warmup + frames), host_(warmup + frames), sim_(warmup + frames),
      render_(warmup + frames), capture_(warmup + frames) {}

void FrameLog::cpuMark(bool end) {
  const auto read = [](clockid_t clock) {
    timespec t{};
    ::clock_gettime(clock, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
  };
  (end ? cpuEnd_ : cpuStart_) = CpuClocks{read(CLOCK_THREAD_CPUTIME_ID), read(CLOCK_PROCESS_CPUTIME_ID)};
}

void FrameLog::truncate(std::uint64_t run) {
  if (run >= total()) return;
  warmup_ = std::min(warmup_, run);
  frames_ = run - warmup_;
}

void FrameLog::summarise(VariantResult& r, double interactionsPerFrame, bool withSubmit, bool withWait) const {
  const auto& c = completion_;
  const BenchClock::time_point first = warmup_ > 0 ? c.at(warmup_ - 1).value() : start_;
  std::vector<double> frameMs, node, launch, submit, queueSubmit, hostTotal, wait, sim, render;
  render::RenderPassTimes passes{0, 0, 0, 0, 0, 0}; // sums
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
    if (const std::optional<render::RenderPassTimes>& p = render_[k]) {
      render.push_back(p->total);
      for (auto [sum, value] : {std::pair{&passes.scene, p->scene},
                                {&passes.thickness, p->thickness},
                                {&passes.depth, p->depth},
                                {&passes.smoothing, p->smoothing},
                                {&passes.shading, p->shading}})
        *sum += value;
    }
  }
  r.measuredSeconds = seconds(first, previous);
  r.frameMs = percentiles(frameMs);
  r.fps = r.measuredSeconds > 0 ? static_cast<double>(frames_) / r.measuredSeconds : 0;
  if (!sim.empty()) r.simGpuMs = percentiles(sim).mean;
  if (!render.empty()) {
    r.renderGpuMs = percentiles(render).mean;
    const double n = static_cast<double>(render.size());
    r.renderPassesMs = render::RenderPassTimes{*r.renderGpuMs,   passes.scene / n,     passes.thickness / n,
                                               passes.depth / n, passes.smoothing / n, passes.shading / n};
  }
  r.host.nodeUpdates = median(node);
  r.host.graphLaunch = median(launch);
  if (withSubmit) {
    r.host.vkSubmit = median(submit);
    r.host.vkQueueSubmit = median(queueSubmit);
  }
  r.host.total = median(hostTotal);
  if (withWait) r.host.hostWait = median(wait);
  if (cpuStart_ && cpuEnd_ && frames_ > 0) {
    const double perFrame = 1e6 / static_cast<double>(frames_);
    r.cpu = CpuPerFrameUs{(cpuEnd_->thread - cpuStart_->thread) * perFrame,
                          (cpuEnd_->process - cpuStart_->process) * perFrame};
  }
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
    const std::optional<double> render = render_[k] ? std::optional(render_[k]->total) : std::nullopt;
    std::snprintf(row, sizeof row, "%s,%llu,%d,%s,%s,%s,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%s\n", variant.c_str(),
                  static_cast<unsigned long long>(k), k >= warmup_ ? 1 : 0, optional(completed).c_str(),
                  optional(interval).c_str(), optional(sim_[k]).c_str(), optional(render).c_str(), h.nodeUpdatesUs,
                  h.graphLaunchUs, h.vkSubmitUs, h.vkQueueSubmitUs, h.totalUs, h.hostWaitUs,
                  optional(capture_[k]).c_str());
    out += row;
  }
}

namespace {

// Records a variant's frames into its FrameLog as the driver runs them.
class Recorder final : public FrameObserver {
public:
  Recorder(FrameLog& log, BenchProducer& producer, render::ParticleRenderer* renderer, CaptureSchedule* capture,
           Progress& progress)
      : log_(log), producer_(producer), renderer_(renderer), capture_(capture), progress_(progress) {}

  void throttled(std::uint64_t k) override {
    if (renderer_ == nullptr) return;
    if (const render::RenderPassTimes ms = renderer_->lastRenderPassTimes(); ms.total >= 0) log_.renderMs(k, ms);
    if (capture_ == nullptr) return;
    if (const std::optional<double> spent = capture_->collect(*renderer_, k)) log_.captureUs(k, *spent);
  }
  void stepped(std::uint64_t k, const FrameTimes& t) override {
    const ProducerTimes p = producer_.lastTimes();
    if (p.stepMs) log_.simMs(k, *p.stepMs);
    // Host overhead: the driver's produce and submit, less what the producer spent waiting or simulating. Never the
    // throttle or prepare, which launch-early (LaunchOrder::BeforeThrottle) runs between the two.
    const double produceUs = us(t.start, t.produced) - p.waitUs - p.workUs;
    const double submitUs = renderer_ != nullptr ? us(t.waited, t.submitted) : 0;
    const double queueSubmitUs = renderer_ != nullptr ? renderer_->lastQueueSubmitUs() : 0;
    log_.host(k, {p.nodeUpdatesUs, p.launchUs, submitUs, queueSubmitUs, produceUs + submitUs,
                  p.waitUs + us(t.submitting, t.waited)});
    progress_.frameDone(k + 1);
  }
  void completed(std::uint64_t k) override {
    log_.completed(k);
    if (k + 1 == log_.warmup() || k + 1 == log_.total()) log_.cpuMark(k + 1 == log_.total());
    if (const std::optional<double> ms = producer_.simGpuMs(k)) log_.simMs(k, *ms);
  }

private:
  FrameLog& log_;
  BenchProducer& producer_;
  render::ParticleRenderer* renderer_;
  CaptureSchedule* capture_;
  Progress& progress_;
};

} // namespace

LoopResult runVariant(const Variant& v, double startupSeconds) {
  const BenchOptions& options = *v.setup.options;
  LoopResult out;
  out.startupSeconds = startupSeconds;
  FrameLog log(options.warmup, options.frames);
  CaptureSchedule capture(v.setup, v.framesInFlight);
  CaptureSchedule* schedule = v.capture && v.renderer != nullptr ? &capture : nullptr;
  startVariant(v.setup, v.framesInFlight, log.total());
  Progress progress(log.total(), options.quiet);
  Recorder recorder(log, v.producer, v.renderer, schedule, progress);
  FrameDriver driver(v.renderer, v.producer, FrameProtocol(v.framesInFlight), v.order, v.launch);
  driver.observe(recorder);
  log.start();
  if (options.warmup == 0) log.cpuMark(false);
  // Ctrl-C, SIGTERM, SIGHUP: the frames so far are measured, drained and reported (marked interrupted).
  // A frame stopped inside the CPU forces (Interrupted, compute/long_work.h) was not submitted: the same as above.
  try {
    for (std::uint64_t k = 0; k < log.total() && !interruptRequested(); ++k) {
      driver.step(k, [&](render::FrameSubmit& submit) {
        submit.bodyCount = static_cast<std::uint32_t>(v.producer.count());
        submit.camera = v.setup.camera;
        v.producer.styleFrame(submit);
        submit.mode = v.setup.options->scene.render.mode;
        submit.surface = v.setup.options->scene.render.surface;
        submit.capture = schedule != nullptr && schedule->wants(k);
        if (submit.capture) schedule->submitted(k, v.producer);
        return true; // never skips: LaunchOrder::BeforeThrottle relies on it
      });
    }
  } catch (const Interrupted&) {
  }
  driver.drain();
  const std::uint64_t run = driver.framesStepped();
  if (schedule != nullptr) {
    schedule->forgetFrom(run);
    schedule->collect(*v.renderer, UINT64_MAX);
  }
  // The last frames' GPU times are known once everything finished (the drain waited for it).
  for (std::uint64_t k = run - std::min<std::uint64_t>(v.framesInFlight, run); k < run; ++k) {
    if (const std::optional<double> ms = v.producer.simGpuMs(k)) log.simMs(k, *ms);
  }
  log.truncate(run);
  log.summarise(out.result, v.setup.interactionsPerFrame, v.withSubmit, v.withWait);
  if (options.frameLog) log.appendCsv(out.frameCsv, v.setup.variantName);
  out.result.framesInFlight = v.framesInFlight;
  out.result.renderMode = options.scene.render.mode;
  out.result.counters = v.producer.counters();
  out.result.captures = capture.count();
  out.result.diagnostics = v.producer.diagnostics(); // after the drain: the producer saw the last sample
  return out;
}

namespace {

double secondsSince(BenchClock::time_point from) { return seconds(from, BenchClock::now()); }

} // namespace

LoopResult runInteropLoop(render::VulkanContext& context, const LoopSetup& setup, LaunchMode mode, std::uint32_t f,
                          bool submitAfterSim, LaunchOrder launch) {
  const BenchOptions& options = *setup.options;
  render::ParticleRenderer renderer(context, rendererConfig(options, render::BodyBufferMode::Exported, f));
  const auto built = BenchClock::now();
  // After the renderer: destroyed first, so CUDA releases its imports before Vulkan frees them.
  const std::unique_ptr<BenchProducer> sim =
      makeBenchCudaProducer(options.scene, setup.devices(), mode, &renderer, options.waitTimeout);
  Variant v{setup, &renderer, *sim, f};
  v.order = submitAfterSim ? SubmitOrder::AfterProduced : SubmitOrder::WithProduce;
  v.launch = launch;
  v.withWait = submitAfterSim;
  v.capture = true;
  return runVariant(v, secondsSince(built));
}

LoopResult runHostCopyLoop(render::VulkanContext& context, const LoopSetup& setup) {
  const BenchOptions& options = *setup.options;
  const std::uint32_t f = options.framesInFlight;
  render::ParticleRenderer renderer(context, rendererConfig(options, render::BodyBufferMode::Staged, f));
  const auto built = BenchClock::now();
  const std::unique_ptr<BenchProducer> sim =
      makeBenchCudaProducer(options.scene, setup.devices(), LaunchMode::Graph, &renderer, options.waitTimeout);
  Variant v{setup, &renderer, *sim, f};
  v.withWait = true;
  return runVariant(v, secondsSince(built));
}

LoopResult runCpuLoop(render::VulkanContext& context, const LoopSetup& setup, std::uint32_t f) {
  const BenchOptions& options = *setup.options;
  render::ParticleRenderer renderer(context, rendererConfig(options, render::BodyBufferMode::HostVisible, f));
  const auto built = BenchClock::now();
  const std::unique_ptr<BenchProducer> sim = makeBenchCpuProducer(options.scene, &renderer);
  Variant v{setup, &renderer, *sim, f};
  v.capture = true;
  return runVariant(v, secondsSince(built));
}

LoopResult runCudaSimOnlyLoop(const LoopSetup& setup) {
  const BenchOptions& options = *setup.options;
  const auto built = BenchClock::now();
  const std::unique_ptr<BenchProducer> sim =
      makeBenchCudaProducer(options.scene, setup.devices(), LaunchMode::Graph, nullptr, options.waitTimeout);
  // F frames queued ahead of the one the host waits for, as with rendering, so the GPU never runs dry.
  Variant v{setup, nullptr, *sim, options.framesInFlight};
  v.withSubmit = false;
  return runVariant(v, secondsSince(built));
}

LoopResult runCpuSimOnlyLoop(const LoopSetup& setup) {
  const auto built = BenchClock::now();
  const std::unique_ptr<BenchProducer> sim = makeBenchCpuProducer(setup.options->scene, nullptr);
  Variant v{setup, nullptr, *sim, 1};
  v.withSubmit = false;
  return runVariant(v, secondsSince(built));
}

} // namespace graphsim::app
