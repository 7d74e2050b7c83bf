// listCudaDevices(): works, and never throws, on machines without an NVIDIA driver. The runtime is linked
// statically and opens libcuda.so.1 only on the first call that needs it; without a driver that call fails with
// cudaErrorInsufficientDriver, which is reported in whyNone instead of thrown.
#include "compute/cuda_device.h"

#include <cuda_runtime_api.h>

#include <cstring>
#include <exception>

namespace graphsim {
namespace {

std::string errorText(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

void fill(CudaDeviceList& list) {
  // Both version queries succeed without a driver; the driver version is then 0.
  if (cudaDriverGetVersion(&list.driverVersion) != cudaSuccess) list.driverVersion = 0;
  if (cudaRuntimeGetVersion(&list.runtimeVersion) != cudaSuccess) list.runtimeVersion = 0;

  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    // The runtime also records the error as the thread's last error; clear it so that no later, unrelated
    // cudaGetLastError() reports it.
    (void)cudaGetLastError();
    list.whyNone = list.driverVersion == 0 ? "no CUDA driver (libcuda.so.1 not found or not loadable); " : "";
    list.whyNone += "cudaGetDeviceCount: " + errorText(e);
    return;
  }
  if (count == 0) {
    list.whyNone = "no CUDA device (the driver reports none)";
    return;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (const cudaError_t pe = cudaGetDeviceProperties(&prop, i); pe != cudaSuccess) {
      (void)cudaGetLastError();
      list.whyNone = "cudaGetDeviceProperties(" + std::to_string(i) + "): " + errorText(pe);
      list.devices.clear();
      return;
    }
    CudaDeviceInfo info;
    info.index = i;
    info.name = prop.name;
    static_assert(sizeof(prop.uuid.bytes) == sizeof(info.uuid));
    std::memcpy(info.uuid.data(), prop.uuid.bytes, info.uuid.size());
    info.ccMajor = prop.major;
    info.ccMinor = prop.minor;
    info.totalMemory = prop.totalGlobalMem;
    info.multiprocessors = prop.multiProcessorCount;
    list.devices.push_back(std::move(info));
  }
}

} // namespace

CudaDeviceList listCudaDevices() {
  CudaDeviceList list;
  try {
    fill(list);
  } catch (const std::exception& e) { // only allocation can throw in fill(); keep the promise of never throwing
    list.devices.clear();
    list.whyNone = std::string("listing CUDA devices failed: ") + e.what();
  }
  return list;
}

std::string missingCudaDevices(const std::vector<int>& gpus, const CudaDeviceList& list) {
  std::string missing;
  for (const int g : gpus) {
    if (g < 0 || g >= static_cast<int>(list.devices.size()))
      missing += (missing.empty() ? "" : ", ") + std::to_string(g);
  }
  return missing;
}

} // namespace graphsim
