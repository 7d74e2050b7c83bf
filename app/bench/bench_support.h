// What every scene's bench shares (app/bench/bench.cpp runs a scene's Scene::runBench, which uses these): the
// report's device lines, skipped rows, adding a measured run, the product path with --capture-every.
#pragma once

#include <optional>
#include <string>

#include "app/bench/bench_capture.h"
#include "app/bench/bench_options.h"
#include "app/bench/bench_report.h"
#include "app/bench/bench_variants.h"
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

} // namespace graphsim::app
