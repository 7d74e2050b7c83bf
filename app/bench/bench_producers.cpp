#include "app/bench/bench_producers.h"

#include "app/bench/bench_capture.h"
#include "app/run/frame_producer.h"
#include "render/particle_renderer.h"

namespace graphsim::app {
namespace {

double us(FrameClock::time_point from, FrameClock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}

class BenchCudaProducer final : public BenchProducer {
public:
  BenchCudaProducer(const SceneSettings& settings, const std::vector<int>& gpus, CudaPath path, LaunchMode mode,
                    render::ParticleRenderer* renderer, std::chrono::milliseconds waitTimeout)
      : path_(path), renderer_(renderer), interop_(interopFor(path, renderer)),
        sim_(settings.sim, gpus, interop_ ? &*interop_ : nullptr, waitTimeout),
        pointRadius_(settings.render.pointRadius) {
    NBodyCudaInstruments::setLaunchMode(sim_, mode);
  }

  std::optional<std::uint64_t> produce(std::uint64_t k) override {
    sim_.launchFrame(k);
    diagnostics_.update(sim_.diagnostics()); // a few loads of pinned memory: the samples of completed frames
    const LaunchHostTiming launch = NBodyCudaInstruments::lastLaunchHostTiming(sim_);
    times_ = ProducerTimes{};
    times_.nodeUpdatesUs = launch.nodeUpdatesUs;
    times_.launchUs = launch.launchUs;
    if (path_ == CudaPath::Interop) return renderer_->protocol().simDoneSignalled(k);
    if (path_ == CudaPath::HostCopy) {
      // No interop: the host waits for the frame, copies it out of CUDA and into Vulkan's staging buffer; the
      // submit then copies it to the vertex buffer on the GPU.
      const auto t0 = FrameClock::now();
      sim_.copyRenderOutput(reinterpret_cast<Float4*>(renderer_->mappedBodies(renderer_->slotOf(k))));
      times_.waitUs = us(t0, FrameClock::now());
    }
    return std::nullopt;
  }
  // Interop: produce(k) only launches (node updates, two cudaEventRecord into a ring of 8 > F + 1 frames, a load of
  // the pinned blow-up word, the launch log of 64) and the graph's wait node keeps frame k off slot(k) until
  // renderDone >= renderDoneWaited(k): nothing on the host needs frame k - F complete. Host copy waits for the frame
  // and writes the slot's staging buffer; compute-only has no wait node.
  bool gpuOrdered() const override { return path_ == CudaPath::Interop; }
  void waitProduced(std::uint64_t k) override { NBodyCudaInstruments::waitForFrame(sim_, k); }
  void finish() override {
    sim_.synchronize();
    diagnostics_.update(sim_.diagnostics()); // the last frames' sample, now complete
  }
  ProducerTimes lastTimes() const override { return times_; }
  std::optional<double> simGpuMs(std::uint64_t k) const override { return NBodyCudaInstruments::frameGpuMs(sim_, k); }
  UpdateCounters counters() const override { return sim_.counters(); }
  std::int64_t count() const override { return sim_.config().bodies; }
  void styleFrame(render::FrameSubmit& submit) const override { submit.style.pointRadius = pointRadius_; }
  nlohmann::ordered_json captureSidecar(std::uint64_t frame, bool warmup, const std::string& variant) const override {
    return app::captureSidecar(frame, warmup, variant, sim_.config(), sim_.nodes());
  }
  std::optional<DiagnosticsFigures> diagnostics() const override {
    return diagnosticsFigures(diagnostics_, sim_.config().diagnosticsEvery);
  }

private:
  static std::optional<InteropDesc> interopFor(CudaPath path, render::ParticleRenderer* renderer) {
    if (path != CudaPath::Interop) return std::nullopt;
    return renderer->exportInterop();
  }

  CudaPath path_;
  render::ParticleRenderer* renderer_;
  std::optional<InteropDesc> interop_; // the fds belong to sim_ once it is constructed
  NBodyCudaBackend sim_;
  float pointRadius_;
  ProducerTimes times_;
  DiagnosticsTrack diagnostics_;
};

// The product's CPU producer, with the step's wall time as the frame's simulation time.
class BenchCpuProducer final : public BenchProducer {
public:
  BenchCpuProducer(const SceneSettings& settings, render::ParticleRenderer* renderer)
      : product_(makeCpuProducer(settings.sim, renderer)), pointRadius_(settings.render.pointRadius) {}

  std::optional<std::uint64_t> produce(std::uint64_t k) override {
    const auto t0 = FrameClock::now();
    const std::optional<std::uint64_t> simDone = product_->produce(k);
    times_.workUs = us(t0, FrameClock::now());
    times_.stepMs = product_->simMs();
    diagnostics_.update(product_->backend().diagnostics());
    return simDone;
  }
  void waitProduced(std::uint64_t k) override { product_->waitProduced(k); }
  void finish() override {
    product_->finish();
    diagnostics_.update(product_->backend().diagnostics());
  }
  ProducerTimes lastTimes() const override { return times_; }
  std::optional<double> simGpuMs(std::uint64_t) const override { return std::nullopt; }
  UpdateCounters counters() const override { return product_->backend().counters(); }
  std::int64_t count() const override { return product_->backend().config().bodies; }
  void styleFrame(render::FrameSubmit& submit) const override { submit.style.pointRadius = pointRadius_; }
  nlohmann::ordered_json captureSidecar(std::uint64_t frame, bool warmup, const std::string& variant) const override {
    return app::captureSidecar(frame, warmup, variant, product_->backend().config(), product_->backend().nodes());
  }
  std::optional<DiagnosticsFigures> diagnostics() const override {
    return diagnosticsFigures(diagnostics_, product_->backend().config().diagnosticsEvery);
  }

private:
  std::unique_ptr<SimProducer> product_;
  float pointRadius_;
  ProducerTimes times_;
  DiagnosticsTrack diagnostics_;
};

} // namespace

std::unique_ptr<BenchProducer> makeBenchCudaProducer(const SceneSettings& settings, const std::vector<int>& gpus,
                                                     CudaPath path, LaunchMode mode, render::ParticleRenderer* renderer,
                                                     std::chrono::milliseconds waitTimeout) {
  return std::make_unique<BenchCudaProducer>(settings, gpus, path, mode, renderer, waitTimeout);
}

std::unique_ptr<BenchProducer> makeBenchCpuProducer(const SceneSettings& settings, render::ParticleRenderer* renderer) {
  return std::make_unique<BenchCpuProducer>(settings, renderer);
}

} // namespace graphsim::app
