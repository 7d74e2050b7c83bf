#include <chrono>
#include <optional>

#include "app/bench/bench_support.h"
#include "render/driver_info.h"
#include "render/particle_renderer.h"
#include "render/vulkan_context.h"

namespace graphsim::app {

void openCpuBenchDevice(const BenchOptions& o, BenchReport& report, std::optional<render::VulkanContext>& context) {
  if (o.simOnly) {
    report.gpu = "none (cpu backend)";
    report.driver = "none";
    return;
  }
  context.emplace(render::DeviceRequest{.index = o.gpu, .validation = o.validation});
  const render::DriverInfo driver = render::describeDriver(*context);
  report.gpu = report.vulkanDevice = driver.deviceName;
  report.driver = driver.driverName + (driver.driverInfo.empty() ? "" : " " + driver.driverInfo);
  report.dataPath = "cpu";
}

DataPath openCudaBenchDevice(const BenchOptions& o, const CudaDeviceInfo& info, const CudaDeviceList& cuda,
                             BenchReport& report, std::optional<render::VulkanContext>& context) {
  render::DeviceRequest request;
  request.validation = o.validation;
  DataPath path = openCudaRenderDevice(request, info, cuda, o.interop, FaultPlan{}, context);
  report.dataPath = path.name();
  report.dataPathReason = path.fallbackReason;
  report.vulkanDevice = render::describeDriver(*context).deviceName;
  return path;
}

void runProductBench(const BenchOptions& o, BenchReport& report, const Scene& scene, const MakeBenchProducer& make,
                     const std::string& description) {
  const bool cuda = o.backend == BackendKind::Cuda;
  LoopSetup setup{&o, 0, 0, nullptr, "product", scene.initialCamera(o.scene)};
  std::optional<render::VulkanContext> context;
  if (cuda) {
    const CudaDeviceList devices = listCudaDevices();
    const CudaDeviceInfo& info = cudaDeviceFor(o, devices);
    describeCuda(report, info, devices);
    setup.cudaDevice = info.index;
    report.simTimer = "cuda-events";
    if (!o.simOnly) {
      report.dataPath = "cuda host copy";
      context.emplace(render::DeviceRequest{.validation = o.validation});
      report.vulkanDevice = render::describeDriver(*context).deviceName;
    }
  } else {
    report.simTimer = "cpu-wall";
    openCpuBenchDevice(o, report, context);
  }
  if (o.simOnly) report.dataPath = "none (--sim-only)";
  std::optional<render::ParticleRenderer> renderer;
  if (context) {
    const auto mode = cuda ? render::BodyBufferMode::Staged : render::BodyBufferMode::HostVisible;
    renderer.emplace(*context, rendererConfig(o, mode, o.framesInFlight));
  }
  render::ParticleRenderer* r = renderer ? &*renderer : nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  const std::unique_ptr<BenchProducer> producer = make(r, setup.cudaDevice);
  Variant v{setup, r, *producer, r != nullptr ? o.framesInFlight : 1};
  v.withSubmit = r != nullptr;
  v.withWait = cuda && r != nullptr;
  v.capture = true;
  const double startup = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  addRun(report, runProduct(o, report, setup, [&] { return runVariant(v, startup); }), "product", description,
         context ? context->validationMessages() : 0);
}

} // namespace graphsim::app
