// Opening the Vulkan device for the CUDA backend, and deciding how frames reach the renderer (--interop):
//   interop    the Vulkan device is the CUDA GPU (same deviceUUID) and can export memory and timeline semaphores;
//              CUDA writes the render buffers and the semaphores order the two APIs (the product path);
//   host copy  any Vulkan device; CUDA computes, the host copies each frame out of CUDA into a Vulkan staging buffer.
// With --interop auto a device that cannot do interop (no Vulkan device with the CUDA GPU's UUID, a missing
// extension) is opened without it and the caller is told why, once; with --interop on that is an environment error
// (EnvironmentError, exit 3), with --interop off the host-copy path is taken without trying. A failed import of the
// exported handles comes later (NBodyCudaBackend): fallBackToHostCopy() words that notice the same way.
#pragma once

#include <optional>
#include <string>

#include "app/run/run_options.h"
#include "compute/cuda_device.h"
#include "compute/errors.h"
#include "render/vulkan_context.h"

namespace graphsim::app {

struct DataPath {
  bool interop = false;
  std::string fallbackReason; // host copy under --interop auto: what failed, naming both devices
  // "cuda interop", "cuda host copy" (what the summary, panel and bench JSON print)
  std::string name() const { return interop ? "cuda interop" : "cuda host copy"; }
};

// One line per CUDA device: "  CUDA 0: NVIDIA H100 UUID ...", or why there is none.
std::string describeCudaDevices(const CudaDeviceList& list);
// --gpus resolved against the CUDA devices (all: every one, in index order). EnvironmentError (exit 3) naming the
// indices that do not exist.
std::vector<int> resolveGpus(const GpuList& gpus, const CudaDeviceList& list);

// Opens `context` for CUDA device `cuda` (request carries validation and the window's needs; its uuid and
// requireInterop are set here). inject: uuid-mismatch / missing-extension make the interop attempt fail (tests).
// Throws EnvironmentError when no device can be opened at all, or when interop fails under --interop on.
DataPath openCudaRenderDevice(render::DeviceRequest request, const CudaDeviceInfo& cuda, const CudaDeviceList& all,
                              InteropMode mode, const FaultPlan& inject, std::optional<render::VulkanContext>& context);

// Under --interop auto, after interop was chosen but the renderer could not export its buffers or CUDA could not
// import them (`what`): prints the notice and returns the host-copy path.
DataPath fallBackToHostCopy(const std::string& what, const CudaDeviceInfo& cuda, const render::VulkanContext& context);

} // namespace graphsim::app
