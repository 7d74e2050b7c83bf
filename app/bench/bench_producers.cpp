#include "app/bench/bench_producers.h"

#include "app/bench/bench_capture.h"
#include "app/run/nbody_engine.h"
#include "render/particle_renderer.h"

namespace graphsim::app {

std::optional<std::uint64_t> BenchProducer::produce(std::uint64_t k) {
  const auto t0 = FrameClock::now();
  const std::optional<std::uint64_t> simDone = feed_.produce(k);
  times_ = ProducerTimes{};
  if (feed_.engine().cuda()) {
    splitLaunch(times_);
  } else {
    times_.workUs = std::chrono::duration<double, std::micro>(FrameClock::now() - t0).count();
    times_.stepMs = feed_.simMs(); // the simulation step itself: the frame's work, not host overhead
  }
  observe();
  return simDone;
}

namespace {

// The n-body scene's engine as bench drives it: its diagnostics, its sidecar, and (CUDA) the instruments' timings.
template <class Engine>
class NBodyBenchProducer final : public BenchProducer {
public:
  NBodyBenchProducer(std::unique_ptr<Engine> engine, const SceneSettings& settings, render::ParticleRenderer* renderer)
      : BenchProducer(*engine, renderer), engine_(std::move(engine)), pointRadius_(settings.render.pointRadius) {}

  // CUDA: the wait for frame k alone (event-submit), an instrument; the CPU's frame is done when produced.
  void waitProduced(std::uint64_t k) override {
    if constexpr (Engine::kCuda) NBodyCudaInstruments::waitForFrame(engine_->backend(), k);
    else BenchProducer::waitProduced(k);
  }
  std::optional<double> simGpuMs(std::uint64_t k) const override {
    if constexpr (Engine::kCuda) return NBodyCudaInstruments::frameGpuMs(engine_->backend(), k);
    return std::nullopt;
  }
  void styleFrame(render::FrameSubmit& submit) const override { submit.style.pointRadius = pointRadius_; }
  nlohmann::ordered_json captureSidecar(std::uint64_t frame, bool warmup, const std::string& variant) const override {
    return app::captureSidecar(frame, warmup, variant, engine_->backend().config(), engine_->backend().nodes());
  }
  std::optional<DiagnosticsFigures> diagnostics() const override {
    return diagnosticsFigures(diagnostics_, engine_->backend().config().diagnosticsEvery);
  }
  Engine& engine() { return *engine_; }

private:
  void observe() override { diagnostics_.update(engine_->backend().diagnostics()); }
  void splitLaunch(ProducerTimes& times) const override {
    if constexpr (Engine::kCuda) {
      const LaunchHostTiming launch = NBodyCudaInstruments::lastLaunchHostTiming(engine_->backend());
      times.nodeUpdatesUs = launch.nodeUpdatesUs;
      times.launchUs = launch.launchUs;
      if (feed().path() == FeedPath::HostCopy) times.waitUs = feed().lastWaitUs();
    }
  }

  std::unique_ptr<Engine> engine_;
  float pointRadius_;
  DiagnosticsTrack diagnostics_;
};

} // namespace

std::unique_ptr<BenchProducer> makeBenchCudaProducer(const SceneSettings& settings, const std::vector<int>& gpus,
                                                     LaunchMode mode, render::ParticleRenderer* renderer,
                                                     std::chrono::milliseconds waitTimeout) {
  auto producer = std::make_unique<NBodyBenchProducer<NBodyCudaEngine>>(
      makeNBodyCudaEngine(settings.sim, renderer, gpus, waitTimeout, FaultPlan{}), settings, renderer);
  NBodyCudaInstruments::setLaunchMode(producer->engine().backend(), mode);
  return producer;
}

std::unique_ptr<BenchProducer> makeBenchCpuProducer(const SceneSettings& settings, render::ParticleRenderer* renderer) {
  return std::make_unique<NBodyBenchProducer<NBodyCpuEngine>>(std::make_unique<NBodyCpuEngine>(settings.sim), settings,
                                                              renderer);
}

} // namespace graphsim::app
