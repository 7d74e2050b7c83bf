#include "app/run/frame_producer.h"

#include <chrono>

#include "app/run/interop_bridge.h"
#include "compute/cpu_backend.h"
#include "compute/cuda_backend.h"

namespace graphsim::app {
namespace {

class CpuProducer final : public FrameProducer {
public:
  CpuProducer(const SceneConfig& config, render::ParticleRenderer& renderer) : sim_(config), renderer_(renderer) {}

  SimBackend& backend() override { return sim_; }
  std::optional<std::uint64_t> produce(std::uint64_t k, bool advance) override {
    if (advance) {
      const auto t0 = std::chrono::steady_clock::now();
      sim_.step();
      simMs_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    sim_.writeRender(reinterpret_cast<Float4*>(renderer_.mappedBodies(renderer_.slotOf(k))));
    return std::nullopt; // written by the host before the submit: nothing to wait for on the GPU
  }
  double simMs() const override { return simMs_; }
  double updateHostUs() const override { return 0; }
  bool hasGraph() const override { return false; }
  void dumpGraph(const std::filesystem::path&) const override {}
  void finish() override {}

private:
  CpuBackend sim_;
  render::ParticleRenderer& renderer_;
  double simMs_ = -1;
};

class CudaProducer final : public FrameProducer {
public:
  CudaProducer(const SceneConfig& config, render::ParticleRenderer& renderer, int device,
               std::chrono::milliseconds waitTimeout)
      : interop_(exportForCuda(renderer)), sim_(config, device, &interop_, waitTimeout) {}

  SimBackend& backend() override { return sim_; }
  // Paused frames run too (with dt = 0, see SimController): every frame k has its graph launch and simDone = k+1.
  std::optional<std::uint64_t> produce(std::uint64_t k, bool /*advance*/) override {
    sim_.launchFrame(k);
    return k + 1;
  }
  double simMs() const override { return sim_.lastSimGpuMs(); }
  double updateHostUs() const override { return sim_.lastUpdateHostUs(); }
  bool hasGraph() const override { return true; }
  void dumpGraph(const std::filesystem::path& path) const override { sim_.dumpGraphDot(path); }
  void finish() override { sim_.synchronize(); }

private:
  InteropDesc interop_;
  CudaBackend sim_;
};

} // namespace

std::unique_ptr<FrameProducer> makeCpuProducer(const SceneConfig& config, render::ParticleRenderer& renderer) {
  return std::make_unique<CpuProducer>(config, renderer);
}

std::unique_ptr<FrameProducer> makeCudaProducer(const SceneConfig& config, render::ParticleRenderer& renderer,
                                                int cudaDevice, std::chrono::milliseconds waitTimeout) {
  return std::make_unique<CudaProducer>(config, renderer, cudaDevice, waitTimeout);
}

} // namespace graphsim::app
