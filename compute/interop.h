// What render/ exports and compute/ imports to share the render buffers and the two timeline semaphores
// (docs/FRAME.md): plain data, no CUDA or Vulkan headers. ParticleRenderer::exportInterop() makes one,
// NBodyCudaBackend's constructor imports it.
//
// Ownership of the fds: each is a new file descriptor that belongs to whoever holds the descriptor. NBodyCudaBackend's
// constructor takes all of them, whether it succeeds (an imported fd belongs to the CUDA driver, which closes it
// when the imported object is destroyed) or throws (it closes them). A holder that never hands the descriptor to
// NBodyCudaBackend closes them itself.
#pragma once

#include <cstdint>
#include <vector>

namespace graphsim {

struct InteropDesc {
  // One exported Vulkan allocation holding one render buffer.
  struct Buffer {
    int fd = -1;
    std::uint64_t allocationSize = 0; // VkMemoryAllocateInfo::allocationSize: CUDA imports the whole allocation
    std::uint64_t offset = 0;         // the buffer's offset inside the allocation
    std::uint64_t bufferSize = 0;     // the bytes CUDA maps
    bool dedicated = false;           // a dedicated allocation (cudaExternalMemoryDedicated)
  };

  std::vector<Buffer> renderBuffers; // F buffers: frame k writes renderBuffers[FrameProtocol(F).slot(k)]
  int simDoneFd = -1;                // timeline semaphore CUDA signals and Vulkan waits on
  int renderDoneFd = -1;             // timeline semaphore Vulkan signals and CUDA waits on
};

} // namespace graphsim
