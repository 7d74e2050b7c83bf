#include "app/cli/list_gpus.h"

#include <cstdio>

#include "app/cli/errors.h"
#include "compute/cuda_device.h"
#include "render/vulkan_context.h"

namespace graphsim::app {

int listGpus() {
  const CudaDeviceList cuda = listCudaDevices();
  std::printf("Vulkan devices:\n");
  try {
    const auto devices = render::listPhysicalDevices();
    if (devices.empty()) std::printf("  none\n");
    for (const auto& d : devices) {
      std::printf("  [%d] %s (%s) UUID %s\n      interop: %s\n", d.index, d.name.c_str(), d.type.c_str(),
                  render::formatUuid(d.uuid).c_str(),
                  d.missingForInterop.empty() ? "yes" : ("no, missing " + d.missingForInterop).c_str());
      for (const auto& c : cuda.devices)
        if (c.uuid == d.uuid) std::printf("      same GPU as CUDA device %d\n", c.index);
    }
  } catch (const EnvironmentError& e) {
    std::printf("  none: %s\n", e.what());
  }
  std::printf("CUDA devices:\n");
  if (cuda.devices.empty()) std::printf("  none: %s\n", cuda.whyNone.c_str());
  for (const auto& c : cuda.devices)
    std::printf("  [%d] %s, compute capability %d.%d, %zu MiB, %d SMs, UUID %s\n", c.index, c.name.c_str(), c.ccMajor,
                c.ccMinor, c.totalMemory >> 20, c.multiprocessors, render::formatUuid(c.uuid).c_str());
  return kExitOk;
}

} // namespace graphsim::app
