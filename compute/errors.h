// The errors both wings throw, as one hierarchy that app/main.cpp maps to exit codes. Plain C++: no CUDA or Vulkan
// headers, so render/ may include it as well as compute/ and app/.
//
//   Error                   what() is a sentence a user can act on
//   ├─ EnvironmentError     the machine lacks what was asked for (no device, UUID, extension, driver): exit 3
//   ├─ TimeoutError         a bounded host wait ran out; what() starts by naming the late side: exit 1
//   ├─ Interrupted          long host work stopped at a checkpoint because the user asked (compute/long_work.h):
//   │                       exit 128 + the signal
//   └─ ApiError             a CUDA or Vulkan call failed; what() starts "CUDA error: " / "Vulkan error: ": exit 1
//      ├─ CudaError         code: the cudaError_t            (CUDA_CHECK, compute/cuda/cuda_check.h)
//      │  └─ InteropImportError   importing Vulkan's memory or semaphores failed: --interop auto falls back
//      └─ VulkanError       code: the VkResult               (VK_CHECK, render/vk_check.h)
#pragma once

#include <stdexcept>
#include <string>

namespace graphsim {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct EnvironmentError : Error {
  using Error::Error;
};

// Messages start with the side that is late: "sim side stalled: …" or "CUDA side stalled: …" (the simulation, CUDA),
// "render side stalled: …" or another Vulkan wait (a swapchain image, an upload). side says the same for code.
struct TimeoutError : Error {
  enum class Side { Cuda, Vulkan };
  explicit TimeoutError(const std::string& message, Side late = Side::Vulkan) : Error(message), side(late) {}
  Side side;
};

// Long host work (compute/long_work.h) stopped between chunks because its interrupt hook said so (Ctrl-C, SIGTERM,
// SIGHUP): the app exits with 128 + the signal, after what it had written so far. what() names the work ("initial
// forces of 262144 bodies …").
struct Interrupted : Error {
  using Error::Error;
};

// code is the API's own result (cudaError_t, VkResult), kept as int so that this header needs neither API.
struct ApiError : Error {
  ApiError(int errorCode, const std::string& message) : Error(message), code(errorCode) {}
  int code = 0;
};

struct CudaError : ApiError {
  using ApiError::ApiError;
};

// NBodyCudaBackend's constructor could not import the InteropDesc it was given (compute/interop.h): the app can still
// run by copying frames through the host (--interop auto).
struct InteropImportError : CudaError {
  using CudaError::CudaError;
};

struct VulkanError : ApiError {
  using ApiError::ApiError;
};

} // namespace graphsim
