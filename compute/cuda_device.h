// CUDA device discovery that works on machines without a GPU or driver (returns an empty list and the reason).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace graphsim {

struct CudaDeviceInfo {
  int index = 0;
  std::string name;
  std::array<std::uint8_t, 16> uuid{}; // cudaDeviceProp::uuid, comparable with VkPhysicalDeviceIDProperties::deviceUUID
  int ccMajor = 0, ccMinor = 0;
  std::size_t totalMemory = 0;
  int multiprocessors = 0;
};

struct CudaDeviceList {
  std::vector<CudaDeviceInfo> devices;
  std::string whyNone; // set when devices is empty: "no CUDA driver", "no CUDA device", the runtime's message
  int driverVersion = 0, runtimeVersion = 0;
};

CudaDeviceList listCudaDevices();

// The indices of `gpus` that name no device of `list`, as "7" or "7, 9"; empty when all exist. NBodyCudaBackend and
// --gpus (app/run/open_devices) both refuse with it.
std::string missingCudaDevices(const std::vector<int>& gpus, const CudaDeviceList& list);

} // namespace graphsim
