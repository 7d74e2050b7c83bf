#include "app/cli/list_gpus.h"

#include <cstdio>
#include <string>

#include "app/base/errors.h"
#include "app/cli/driver_manifests.h"
#include "compute/cuda_device.h"
#include "render/vulkan_context.h"

namespace graphsim::app {
namespace {

// printf into a string.
template <class... Args>
void appendf(std::string& out, const char* format, Args... args) {
  const int n = std::snprintf(nullptr, 0, format, args...);
  if (n <= 0) return;
  std::string text(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(text.data(), text.size(), format, args...);
  text.resize(static_cast<std::size_t>(n));
  out += text;
}

} // namespace

int listGpus() {
  // Enumerate first and print once it all succeeded: a failure (a broken driver manifest, exit 3; a Vulkan error,
  // exit 1) leaves nothing half-printed on stdout, no header without its list.
  checkVulkanDriverManifests();
  const CudaDeviceList cuda = listCudaDevices();
  std::string out = "Vulkan devices:\n";
  try {
    const auto devices = render::listPhysicalDevices();
    if (devices.empty()) out += "  none\n";
    for (const auto& d : devices) {
      appendf(out, "  [%d] %s (%s) UUID %s\n      interop: %s\n", d.index, d.name.c_str(), d.type.c_str(),
              render::formatUuid(d.uuid).c_str(),
              d.missingForInterop.empty() ? "yes" : ("no, missing " + d.missingForInterop).c_str());
      for (const auto& c : cuda.devices)
        if (c.uuid == d.uuid) appendf(out, "      same GPU as CUDA device %d\n", c.index);
    }
  } catch (const EnvironmentError& e) {
    appendf(out, "  none: %s\n", e.what());
  }
  out += "CUDA devices:\n";
  if (cuda.devices.empty()) appendf(out, "  none: %s\n", cuda.whyNone.c_str());
  for (const auto& c : cuda.devices)
    appendf(out, "  [%d] %s, compute capability %d.%d, %zu MiB, %d SMs, UUID %s\n", c.index, c.name.c_str(), c.ccMajor,
            c.ccMinor, c.totalMemory >> 20, c.multiprocessors, render::formatUuid(c.uuid).c_str());
  // Written and flushed here; a failure (a closed stdout, a full device) is exit 1 at exit (standard_streams.h).
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

} // namespace graphsim::app
