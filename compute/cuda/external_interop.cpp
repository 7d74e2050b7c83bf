// Import of Vulkan-exported memory and timeline semaphores (external_interop.h).
#include "compute/cuda/external_interop.h"

#include <unistd.h>

#include <string>
#include <utility>

#include "compute/cuda/cuda_check.h"

namespace graphsim::cuda {
namespace {

// "importing <what>", or CudaError(cudaErrorInvalidValue) when there is nothing to import.
std::string importContext(const UniqueFd& fd, const char* what) {
  std::string context = std::string("importing ") + what;
  if (fd.get() < 0) throw CudaError(static_cast<int>(cudaErrorInvalidValue), context + ": no file descriptor");
  return context;
}

} // namespace

void CloseFd::release(int fd) noexcept {
  if (fd >= 0) ::close(fd);
}

void UnmapAndDestroy::release(MappedExternalMemory buffer) noexcept {
  // Documented order: the mapping first (cudaFree), then the external memory object.
  if (buffer.mapped != nullptr) CUDA_LOG(cudaFree(buffer.mapped));
  if (buffer.memory != nullptr) CUDA_LOG(cudaDestroyExternalMemory(buffer.memory));
}

ExternalBuffer::ExternalBuffer(UniqueFd fd, const InteropDesc::Buffer& desc, const char* what) {
  const std::string context = importContext(fd, what);

  cudaExternalMemoryHandleDesc handle{};
  handle.type = cudaExternalMemoryHandleTypeOpaqueFd;
  handle.handle.fd = fd.get();
  handle.size = desc.allocationSize; // the whole allocation, not the buffer: the driver checks it against the fd
  handle.flags = desc.dedicated ? cudaExternalMemoryDedicated : 0u;
  // On failure fd still belongs to us and closes when it goes out of scope.
  cudaExternalMemory_t memory = nullptr;
  CUDA_CHECK_CTX(cudaImportExternalMemory(&memory, &handle), context);
  (void)fd.release(); // the driver owns it now and closes it in cudaDestroyExternalMemory

  cudaExternalMemoryBufferDesc buffer{};
  buffer.offset = desc.offset;
  buffer.size = desc.bufferSize;
  buffer.flags = 0;
  void* mapped = nullptr;
  if (const cudaError_t e = cudaExternalMemoryGetMappedBuffer(&mapped, memory, &buffer); e != cudaSuccess) {
    UnmapAndDestroy::release({memory, nullptr, 0}); // the constructor throws: nothing else will destroy it
    throwCudaError(e, "cudaExternalMemoryGetMappedBuffer", __FILE__, __LINE__,
                   context + " (offset " + std::to_string(desc.offset) + ", size " + std::to_string(desc.bufferSize) +
                       " of " + std::to_string(desc.allocationSize) + " bytes)");
  }
  owned_.reset({memory, mapped, desc.bufferSize});
}

ExternalSemaphore importTimelineSemaphore(UniqueFd fd, const char* what) {
  const std::string context = importContext(fd, what);
  cudaExternalSemaphoreHandleDesc handle{};
  handle.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
  handle.handle.fd = fd.get();
  handle.flags = 0;
  cudaExternalSemaphore_t semaphore = nullptr;
  CUDA_CHECK_CTX(cudaImportExternalSemaphore(&semaphore, &handle), context);
  (void)fd.release();
  return ExternalSemaphore(semaphore);
}

InteropFds::InteropFds(const InteropDesc* desc) {
  if (desc == nullptr) return;
  for (const InteropDesc::Buffer& b : desc->renderBuffers) buffers.emplace_back(b.fd);
  simDone = UniqueFd(desc->simDoneFd);
  renderDone = UniqueFd(desc->renderDoneFd);
}

ImportedInterop importInterop(InteropFds fds, const InteropDesc& desc) {
  ImportedInterop imported;
  try {
    imported.renderDone = importTimelineSemaphore(std::move(fds.renderDone), "the renderDone timeline semaphore");
    imported.simDone = importTimelineSemaphore(std::move(fds.simDone), "the simDone timeline semaphore");
    for (std::size_t i = 0; i < fds.buffers.size(); ++i) {
      const std::string what = "render buffer " + std::to_string(i);
      imported.renderBuffers.emplace_back(std::move(fds.buffers[i]), desc.renderBuffers[i], what.c_str());
    }
  } catch (const CudaError& e) {
    throw InteropImportError(e.code, e.what());
  }
  return imported;
}

} // namespace graphsim::cuda
