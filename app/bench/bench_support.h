// What every scene's bench shares (app/bench/bench.cpp runs a scene's Scene::runBench, which uses these): the
// report's device lines, skipped rows, adding a measured run, the product path with --capture-every, and a whole
// one-variant bench for a scene with no comparisons (runProductBench, product_bench.cpp).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "app/bench/bench_capture.h"
#include "app/bench/bench_options.h"
#include "app/bench/bench_producers.h"
#include "app/bench/bench_report.h"
#include "app/bench/bench_variants.h"
#include "app/run/open_devices.h"
#include "compute/cuda_device.h"

namespace graphsim::app {

std::string cudaVersionText(int version); // 13000 -> "13.0"
// The NVIDIA kernel module's version ("580.95.05") when no Vulkan device is open (--sim-only).
std::optional<std::string> nvidiaModuleVersion();
std::string interruptedReason(); // "interrupted by SIGINT"
VariantResult skippedVariant(std::string name, std::string description, std::string reason);
// Adds a run to the report with its per-frame rows; the first one added is the product path.
void addRun(BenchReport& report, LoopResult run, std::string name, std::string description,
            std::uint64_t validationMessages);
// --gpu's CUDA device, or EnvironmentError naming the devices there are.
const CudaDeviceInfo& cudaDeviceFor(const BenchOptions& options, const CudaDeviceList& cuda);
// Fills the report's GPU, CUDA and driver lines for a CUDA run.
void describeCuda(BenchReport& report, const CudaDeviceInfo& info, const CudaDeviceList& cuda);

// The product path with --capture-every's writer.
template <class Run>
LoopResult runProduct(const BenchOptions& options, const BenchReport& report, LoopSetup& setup, Run&& run) {
  std::optional<CaptureWriter> capture;
  if (options.video) {
    capture.emplace(*options.video, options.warmup, report.width, report.height); // --video: one mp4
  } else if (options.captureEvery > 0) {
    capture.emplace(*options.captureDir, report.width, report.height);
  }
  setup.capture = capture ? &*capture : nullptr;
  LoopResult product = run();
  if (capture) capture->finish();
  setup.capture = nullptr;
  return product;
}

// The CPU backend's Vulkan device (none under --sim-only) and the report's GPU, driver and data-path lines.
void openCpuBenchDevice(const BenchOptions& options, BenchReport& report,
                        std::optional<render::VulkanContext>& context);
// The Vulkan device of a CUDA run (interop or host copy, as for run) and the report's data-path and device lines.
DataPath openCudaBenchDevice(const BenchOptions& options, const CudaDeviceInfo& info, const CudaDeviceList& cuda,
                             BenchReport& report, std::optional<render::VulkanContext>& context);

// A scene's engine as bench drives it, owned: the GPU time the engine reports, the scene's render mapping, a
// capture sidecar naming the scene.
class EngineBenchProducer final : public BenchProducer {
public:
  using Style = std::function<void(render::FrameSubmit&)>;
  EngineBenchProducer(std::unique_ptr<SceneEngine> engine, render::ParticleRenderer* renderer, std::string scene,
                      Style style)
      : BenchProducer(*engine, renderer), engine_(std::move(engine)), scene_(std::move(scene)),
        style_(std::move(style)) {}
  std::optional<double> simGpuMs(std::uint64_t) const override {
    return engine_->gpuMs() >= 0 ? std::optional(engine_->gpuMs()) : std::nullopt;
  }
  void styleFrame(render::FrameSubmit& submit) const override { style_(submit); }
  nlohmann::ordered_json captureSidecar(std::uint64_t frame, bool warmup, const std::string& variant) const override {
    return {{"frame", frame + 1}, {"warmup", warmup}, {"variant", variant}, {"scene", scene_}};
  }

private:
  std::unique_ptr<SceneEngine> engine_;
  std::string scene_;
  Style style_;
};

// A scene's product alone, one variant named "product" on runVariant: the CUDA device lines, the Vulkan device and
// renderer (none under --sim-only; CUDA on the host-copy path), the producer make(renderer, CUDA device), the
// captures. The scene fills its own report lines (initial conditions) first.
using MakeBenchProducer = std::function<std::unique_ptr<BenchProducer>(render::ParticleRenderer*, int cudaDevice)>;
void runProductBench(const BenchOptions& options, BenchReport& report, const Scene& scene,
                     const MakeBenchProducer& make, const std::string& description);

} // namespace graphsim::app
