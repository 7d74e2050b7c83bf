// Import of Vulkan-exported memory and timeline semaphores (external_interop.h).
#include "compute/cuda/external_interop.h"

#include <unistd.h>

#include <string>
#include <utility>

#include "compute/cuda/cuda_check.h"

namespace graphsim::cuda {

UniqueFd::UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

int UniqueFd::release() noexcept { return std::exchange(fd_, -1); }

void UniqueFd::reset() noexcept {
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
}

ExternalBuffer::ExternalBuffer(UniqueFd fd, const InteropDesc::Buffer& desc, const char* what) {
  const std::string context = std::string("importing ") + what;
  if (fd.get() < 0) throw CudaError(static_cast<int>(cudaErrorInvalidValue), context + ": no file descriptor");

  cudaExternalMemoryHandleDesc handle{};
  handle.type = cudaExternalMemoryHandleTypeOpaqueFd;
  handle.handle.fd = fd.get();
  handle.size = desc.allocationSize; // the whole allocation, not the buffer: the driver checks it against the fd
  handle.flags = desc.dedicated ? cudaExternalMemoryDedicated : 0u;
  // On failure fd still belongs to us and closes when it goes out of scope.
  CUDA_CHECK_CTX(cudaImportExternalMemory(&memory_, &handle), context);
  (void)fd.release(); // the driver owns it now and closes it in cudaDestroyExternalMemory

  cudaExternalMemoryBufferDesc buffer{};
  buffer.offset = desc.offset;
  buffer.size = desc.bufferSize;
  buffer.flags = 0;
  if (const cudaError_t e = cudaExternalMemoryGetMappedBuffer(&mapped_, memory_, &buffer); e != cudaSuccess) {
    mapped_ = nullptr;
    reset(); // the constructor throws, so the destructor will not run: destroy the imported memory here
    throwCudaError(e, "cudaExternalMemoryGetMappedBuffer", __FILE__, __LINE__,
                   context + " (offset " + std::to_string(desc.offset) + ", size " + std::to_string(desc.bufferSize) +
                       " of " + std::to_string(desc.allocationSize) + " bytes)");
  }
  size_ = desc.bufferSize;
}

ExternalBuffer::ExternalBuffer(ExternalBuffer&& other) noexcept
    : memory_(std::exchange(other.memory_, nullptr)), mapped_(std::exchange(other.mapped_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

ExternalBuffer& ExternalBuffer::operator=(ExternalBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    memory_ = std::exchange(other.memory_, nullptr);
    mapped_ = std::exchange(other.mapped_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void ExternalBuffer::reset() noexcept {
  // Documented order: the mapping first (cudaFree), then the external memory object.
  if (mapped_ != nullptr) CUDA_LOG(cudaFree(std::exchange(mapped_, nullptr)));
  if (memory_ != nullptr) CUDA_LOG(cudaDestroyExternalMemory(std::exchange(memory_, nullptr)));
  size_ = 0;
}

ExternalTimelineSemaphore::ExternalTimelineSemaphore(UniqueFd fd, const char* what) {
  const std::string context = std::string("importing ") + what;
  if (fd.get() < 0) throw CudaError(static_cast<int>(cudaErrorInvalidValue), context + ": no file descriptor");
  cudaExternalSemaphoreHandleDesc handle{};
  handle.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
  handle.handle.fd = fd.get();
  handle.flags = 0;
  CUDA_CHECK_CTX(cudaImportExternalSemaphore(&semaphore_, &handle), context);
  (void)fd.release();
}

ExternalTimelineSemaphore::ExternalTimelineSemaphore(ExternalTimelineSemaphore&& other) noexcept
    : semaphore_(std::exchange(other.semaphore_, nullptr)) {}

ExternalTimelineSemaphore& ExternalTimelineSemaphore::operator=(ExternalTimelineSemaphore&& other) noexcept {
  if (this != &other) {
    reset();
    semaphore_ = std::exchange(other.semaphore_, nullptr);
  }
  return *this;
}

void ExternalTimelineSemaphore::reset() noexcept {
  if (semaphore_ != nullptr) CUDA_LOG(cudaDestroyExternalSemaphore(std::exchange(semaphore_, nullptr)));
}

} // namespace graphsim::cuda
