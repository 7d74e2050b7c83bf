// Owners of what CUDA imports from Vulkan: an exported allocation mapped as a device buffer, and a timeline
// semaphore. Both are move-only; functions elsewhere take the raw pointer / cudaExternalSemaphore_t.
//
// File descriptors: the receiver owns an exported fd. A successful import hands it to the CUDA driver (which closes
// it when the object is destroyed); a failed import closes it here, so no path leaks or double-closes an fd.
//
// Freeing order (docs/FRAME.md, Shutdown): cudaFree of the mapped pointer, then cudaDestroyExternalMemory, and only
// then may Vulkan free the memory. A semaphore is destroyed only after every wait and signal on it has completed. The
// owners do not synchronise; each CUDA backend waits for its stream (finishOrRetire) before destroying them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "compute/cuda/cuda_handles.h"
#include "compute/errors.h"
#include "compute/interop.h"

namespace graphsim::cuda {

// Closes an fd on destruction unless release()d. For fds that have not been handed to CUDA yet.
struct CloseFd {
  static constexpr int kNone = -1;
  static void release(int fd) noexcept;
};
using UniqueFd = UniqueHandle<int, CloseFd>;

// An imported allocation and the device pointer mapped from it, given back together in the documented order.
struct MappedExternalMemory {
  cudaExternalMemory_t memory = nullptr;
  void* mapped = nullptr;
  std::uint64_t size = 0; // bytes mapped
  friend bool operator==(const MappedExternalMemory&, const MappedExternalMemory&) = default;
};
struct UnmapAndDestroy {
  static constexpr MappedExternalMemory kNone{};
  static void release(MappedExternalMemory buffer) noexcept; // cudaFree(mapped), then cudaDestroyExternalMemory
};

class ExternalBuffer {
public:
  ExternalBuffer() = default;
  // Imports desc.fd as cudaExternalMemoryHandleTypeOpaqueFd with size = desc.allocationSize (the whole Vulkan
  // allocation, as the driver requires) and cudaExternalMemoryDedicated when desc.dedicated, then maps
  // [desc.offset, desc.offset + desc.bufferSize). Consumes fd (see above). Throws CudaError naming `what`.
  ExternalBuffer(UniqueFd fd, const InteropDesc::Buffer& desc, const char* what);

  void* data() const noexcept { return owned_.get().mapped; }
  template <typename T>
  T* as() const noexcept {
    return static_cast<T*>(data());
  }
  std::uint64_t size() const noexcept { return owned_.get().size; }

  void reset() noexcept { owned_.reset(); }

private:
  UniqueHandle<MappedExternalMemory, UnmapAndDestroy> owned_;
};

// The caller guarantees that no wait or signal on it is pending when it is destroyed.
using ExternalSemaphore = CudaHandle<cudaExternalSemaphore_t, cudaDestroyExternalSemaphore>;

// Imports fd as cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd. Consumes fd. Throws CudaError naming `what`.
ExternalSemaphore importTimelineSemaphore(UniqueFd fd, const char* what);

// The fds of an InteropDesc, owned from the moment a backend's constructor starts: each is either imported (then the
// driver owns it) or closed here when the constructor throws first. desc == nullptr: none.
struct InteropFds {
  explicit InteropFds(const InteropDesc* desc);
  std::vector<UniqueFd> buffers;
  UniqueFd simDone, renderDone;
};

// Everything a backend imports: the two timeline semaphores and the F render buffers.
struct ImportedInterop {
  ExternalSemaphore renderDone, simDone;
  std::vector<ExternalBuffer> renderBuffers; // frame k writes renderBuffers[FrameProtocol(F).slot(k)]
};

// Imports fds (taken from desc). A CUDA failure becomes InteropImportError: the caller may fall back to copying
// frames through the host (--interop auto).
ImportedInterop importInterop(InteropFds fds, const InteropDesc& desc);

} // namespace graphsim::cuda
