// Owners of what CUDA imports from Vulkan: an exported allocation mapped as a device buffer, and a timeline
// semaphore. Both are move-only; functions elsewhere take the raw pointer / cudaExternalSemaphore_t.
//
// File descriptors: the receiver owns an exported fd. A successful import hands it to the CUDA driver (which closes
// it when the object is destroyed); a failed import closes it here, so no path leaks or double-closes an fd.
//
// Freeing order (DESIGN.md): cudaFree of the mapped pointer, then cudaDestroyExternalMemory, and only then may
// Vulkan free the memory. A semaphore is destroyed only after every wait and signal on it has completed. The
// owners do not synchronise; CudaBackend waits for its stream before destroying them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "compute/errors.h"
#include "compute/interop.h"

namespace graphsim::cuda {

// Closes an fd on destruction unless release()d. For fds that have not been handed to CUDA yet.
class UniqueFd {
public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd(UniqueFd&& other) noexcept;
  UniqueFd& operator=(UniqueFd&& other) noexcept;

  int get() const noexcept { return fd_; }
  int release() noexcept; // ownership passes to the caller (CUDA, after a successful import)
  void reset() noexcept;

private:
  int fd_ = -1;
};

class ExternalBuffer {
public:
  ExternalBuffer() = default;
  // Imports desc.fd as cudaExternalMemoryHandleTypeOpaqueFd with size = desc.allocationSize (the whole Vulkan
  // allocation, as the driver requires) and cudaExternalMemoryDedicated when desc.dedicated, then maps
  // [desc.offset, desc.offset + desc.bufferSize). Consumes fd (see above). Throws CudaError naming `what`.
  ExternalBuffer(UniqueFd fd, const InteropDesc::Buffer& desc, const char* what);
  ~ExternalBuffer() { reset(); }

  ExternalBuffer(const ExternalBuffer&) = delete;
  ExternalBuffer& operator=(const ExternalBuffer&) = delete;
  ExternalBuffer(ExternalBuffer&& other) noexcept;
  ExternalBuffer& operator=(ExternalBuffer&& other) noexcept;

  void* data() const noexcept { return mapped_; }
  template <typename T>
  T* as() const noexcept {
    return static_cast<T*>(mapped_);
  }
  std::uint64_t size() const noexcept { return size_; }

  void reset() noexcept; // cudaFree(mapped), then cudaDestroyExternalMemory

private:
  cudaExternalMemory_t memory_ = nullptr;
  void* mapped_ = nullptr;
  std::uint64_t size_ = 0;
};

class ExternalTimelineSemaphore {
public:
  ExternalTimelineSemaphore() = default;
  // Imports fd as cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd. Consumes fd. Throws CudaError naming `what`.
  ExternalTimelineSemaphore(UniqueFd fd, const char* what);
  ~ExternalTimelineSemaphore() { reset(); }

  ExternalTimelineSemaphore(const ExternalTimelineSemaphore&) = delete;
  ExternalTimelineSemaphore& operator=(const ExternalTimelineSemaphore&) = delete;
  ExternalTimelineSemaphore(ExternalTimelineSemaphore&& other) noexcept;
  ExternalTimelineSemaphore& operator=(ExternalTimelineSemaphore&& other) noexcept;

  cudaExternalSemaphore_t get() const noexcept { return semaphore_; }
  explicit operator bool() const noexcept { return semaphore_ != nullptr; }

  void reset() noexcept; // the caller guarantees no wait or signal on it is pending

private:
  cudaExternalSemaphore_t semaphore_ = nullptr;
};

} // namespace graphsim::cuda
