#include "app/run/open_devices.h"

#include <cstdio>

#include "app/faults/fault_injection.h"

namespace graphsim::app {
namespace {

std::string describeCuda(const CudaDeviceInfo& cuda) {
  return "CUDA " + std::to_string(cuda.index) + ": " + cuda.name + " UUID " + render::formatUuid(cuda.uuid);
}

void printNotice(const DataPath& path, const render::VulkanContext& context, const CudaDeviceInfo& cuda) {
  std::fprintf(stderr,
               "graphsim: Vulkan-CUDA interop unavailable: %s\n"
               "graphsim: rendering on Vulkan device %s, computing on %s; frames are copied through the host "
               "(slower; --interop on makes this an error)\n",
               path.fallbackReason.c_str(), context.info().name.c_str(), describeCuda(cuda).c_str());
}

} // namespace

std::string describeCudaDevices(const CudaDeviceList& list) {
  if (list.devices.empty()) return "no CUDA device (" + list.whyNone + ")";
  std::string s;
  for (const auto& d : list.devices) s += "\n  " + describeCuda(d);
  return s;
}

std::vector<int> resolveGpus(const GpuList& gpus, const CudaDeviceList& list) {
  const int count = static_cast<int>(list.devices.size());
  if (count == 0) throw EnvironmentError("--gpus: " + describeCudaDevices(list));
  std::vector<int> indices;
  if (gpus.all) {
    for (int i = 0; i < count; ++i) indices.push_back(i);
    return indices;
  }
  if (const std::string missing = missingCudaDevices(gpus.indices, list); !missing.empty()) {
    throw EnvironmentError("--gpus: no CUDA device " + missing + " (this machine has " + std::to_string(count) +
                           "):" + describeCudaDevices(list));
  }
  return gpus.indices;
}

DataPath openCudaRenderDevice(render::DeviceRequest request, const CudaDeviceInfo& cuda, const CudaDeviceList& all,
                              InteropMode mode, const FaultPlan& inject,
                              std::optional<render::VulkanContext>& context) {
  DataPath path;
  if (mode != InteropMode::Off) {
    render::DeviceRequest interop = request;
    interop.uuid = cuda.uuid;
    interop.requireInterop = true;
    injectIntoDeviceRequest(inject, interop); // test hook: uuid-mismatch, missing-extension
    try {
      context.emplace(interop);
      path.interop = true;
      return path;
    } catch (const EnvironmentError& e) {
      // Both lists, so that the user sees which GPU is which.
      const std::string why = std::string(e.what()) + "CUDA devices:" + describeCudaDevices(all);
      if (mode == InteropMode::On) throw EnvironmentError(why);
      path.fallbackReason = why;
    }
  }
  // Host copy: prefer the CUDA GPU itself (its own memory bus, no second GPU woken), else the default choice.
  request.uuid = cuda.uuid;
  try {
    context.emplace(request);
  } catch (const EnvironmentError&) {
    request.uuid.reset();
    context.emplace(request); // nothing usable at all: the caller reports this one (exit 3)
  }
  if (mode == InteropMode::Off) {
    path.fallbackReason = "--interop off";
  } else {
    printNotice(path, *context, cuda);
  }
  return path;
}

DataPath fallBackToHostCopy(const std::string& what, const CudaDeviceInfo& cuda, const render::VulkanContext& context) {
  DataPath path;
  path.fallbackReason = "sharing the render buffers and semaphores with CUDA failed (" + what + "); Vulkan device " +
                        context.info().name + " UUID " + render::formatUuid(context.info().uuid);
  printNotice(path, context, cuda);
  return path;
}

} // namespace graphsim::app
