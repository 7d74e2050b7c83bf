#include "app/frame_loop.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "app/interop_bridge.h"
#include "app/progress.h"
#include "compute/cpu_backend.h"
#include "compute/cuda_backend.h"
#include "compute/cuda_device.h"
#include "render/particle_renderer.h"

namespace graphsim::app {
namespace {

using Clock = std::chrono::steady_clock;

render::RendererConfig rendererConfig(const RunOptions& options, render::BodyBufferMode mode) {
  render::RendererConfig config;
  config.width = options.scene.render.width;
  config.height = options.scene.render.height;
  // A zero-body scene still gets a (tiny) buffer: Vulkan has no zero-sized buffers.
  config.maxBodies = static_cast<std::uint32_t>(std::max<std::int64_t>(1, options.scene.sim.bodies));
  config.framesInFlight = options.framesInFlight;
  config.mode = mode;
  config.waitTimeout = options.waitTimeout;
  return config;
}

render::FrameSubmit frameSubmit(const RunOptions& options, std::uint64_t frame) {
  render::FrameSubmit submit;
  submit.frame = frame;
  submit.bodyCount = static_cast<std::uint32_t>(options.scene.sim.bodies);
  submit.camera = options.scene.render.camera;
  submit.style.pointRadius = options.scene.render.pointRadius;
  submit.capture = shouldCapture(options, frame);
  return submit;
}

void writeCapture(render::ParticleRenderer& renderer, const RunOptions& options, std::uint64_t frame,
                  RunSummary& summary) {
  const auto pixels = renderer.finishCapture(frame);
  const auto path = capturePath(options, frame);
  render::writePng(path, pixels, options.scene.render.width, options.scene.render.height);
  ++summary.captures;
  std::fprintf(stderr, "graphsim: captured frame %llu to %s\n", static_cast<unsigned long long>(frame + 1),
               std::filesystem::absolute(path).c_str());
}

// CPU backend: the simulation writes straight into the mapped body buffer of the frame's slot once the
// frames-in-flight throttle says the renderer is done with it.
void runCpu(render::VulkanContext& context, const RunOptions& options, RunSummary& summary) {
  render::ParticleRenderer renderer(context, rendererConfig(options, render::BodyBufferMode::HostVisible));
  CpuBackend sim(options.scene.sim);
  Progress progress(static_cast<std::uint64_t>(options.frames), options.quiet);
  double simSeconds = 0;
  for (std::uint64_t k = 0; k < static_cast<std::uint64_t>(options.frames); ++k) {
    renderer.waitForSlot(k);
    const auto t0 = Clock::now();
    sim.step();
    sim.writeRender(reinterpret_cast<Float4*>(renderer.mappedBodies(renderer.slotOf(k))));
    simSeconds += std::chrono::duration<double>(Clock::now() - t0).count();
    const auto submit = frameSubmit(options, k);
    renderer.submit(submit);
    if (submit.capture) writeCapture(renderer, options, k, summary);
    progress.frameDone(k + 1);
  }
  renderer.drain();
  summary.frames = static_cast<std::uint64_t>(options.frames);
  summary.simMsPerFrame = options.frames > 0 ? 1e3 * simSeconds / static_cast<double>(options.frames) : 0;
  summary.renderGpuMs = renderer.lastRenderGpuMs();
}

// CUDA backend: per frame k, the host only throttles on renderDone (a value Vulkan signals), launches the frame's
// graph (which itself waits renderDone >= k-F+1 and signals simDone = k+1) and submits the render that waits on
// simDone >= k+1 on the GPU. See docs/FRAME.md.
void runCuda(render::VulkanContext& context, const RunOptions& options, int device, RunSummary& summary) {
  render::ParticleRenderer renderer(context, rendererConfig(options, render::BodyBufferMode::Exported));
  const InteropDesc interop = exportForCuda(renderer);
  // Declared after the renderer so that it is destroyed first: CUDA releases its imports before Vulkan frees
  // the memory and semaphores behind them.
  CudaBackend sim(options.scene.sim, device, &interop, options.waitTimeout);
  if (options.dumpGraph) {
    sim.dumpGraphDot(*options.dumpGraph);
    std::fprintf(stderr, "graphsim: wrote the frame graph to %s\n", options.dumpGraph->c_str());
  }
  Progress progress(static_cast<std::uint64_t>(options.frames), options.quiet);
  double simMs = 0;
  std::uint64_t simSamples = 0;
  for (std::uint64_t k = 0; k < static_cast<std::uint64_t>(options.frames); ++k) {
    renderer.waitForSlot(k);
    sim.launchFrame(k);
    auto submit = frameSubmit(options, k);
    submit.waitSimDone = k + 1;
    renderer.submit(submit);
    if (submit.capture) writeCapture(renderer, options, k, summary);
    if (const double ms = sim.lastSimGpuMs(); ms >= 0) {
      simMs += ms;
      ++simSamples;
    }
    progress.frameDone(k + 1);
  }
  renderer.drain();
  sim.synchronize();
  summary.frames = static_cast<std::uint64_t>(options.frames);
  summary.simMsPerFrame = simSamples > 0 ? simMs / static_cast<double>(simSamples) : -1;
  summary.renderGpuMs = renderer.lastRenderGpuMs();
}

std::string describeCudaDevices(const CudaDeviceList& list) {
  if (list.devices.empty()) return "no CUDA device (" + list.whyNone + ")";
  std::string s;
  for (const auto& d : list.devices)
    s += "\n  CUDA " + std::to_string(d.index) + ": " + d.name + " UUID " + render::formatUuid(d.uuid);
  return s;
}

} // namespace

RunSummary runHeadless(const RunOptions& options, BackendKind backend) {
  RunSummary summary;
  const auto start = Clock::now();
  if (backend == BackendKind::Cuda) {
    const CudaDeviceList cuda = listCudaDevices();
    const int device = options.gpu.value_or(0);
    if (cuda.devices.empty()) throw NoCudaDevice("--backend cuda: " + describeCudaDevices(cuda));
    if (device >= static_cast<int>(cuda.devices.size()))
      throw NoCudaDevice("--gpu " + std::to_string(device) + ": no such CUDA device; have:" + describeCudaDevices(cuda));
    render::DeviceRequest request;
    request.uuid = cuda.devices[static_cast<std::size_t>(device)].uuid;
    request.requireInterop = true;
    request.validation = options.validation;
    // A device that cannot do interop is reported with both lists, so the user sees which GPU is which.
    std::optional<render::VulkanContext> context;
    try {
      context.emplace(request);
    } catch (const render::MissingCapability& e) {
      throw render::MissingCapability(std::string(e.what()) + "CUDA devices:" + describeCudaDevices(cuda));
    }
    runCuda(*context, options, device, summary);
    summary.validationMessages = context->validationMessages();
  } else {
    render::DeviceRequest request;
    request.index = options.gpu;
    request.validation = options.validation;
    render::VulkanContext context(request);
    runCpu(context, options, summary);
    summary.validationMessages = context.validationMessages();
  }
  summary.wallSeconds = std::chrono::duration<double>(Clock::now() - start).count();
  return summary;
}

} // namespace graphsim::app
