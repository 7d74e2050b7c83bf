// The F body buffers (one per frame in flight) that the renderer draws from. HostVisible: mapped, written by the
// CPU backend. Exported: device-local, exportable as OPAQUE_FD so CUDA imports and writes them. Staged: device-local,
// plus a mapped staging buffer per slot that cmdUpload copies in at the start of the frame.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "compute/interop.h"
#include "render/render_types.h"
#include "render/vk_handle.h"
#include "render/vk_memory.h"
#include "render/vulkan_context.h"

namespace graphsim::render {

class BodyBuffers {
public:
  // Throws EnvironmentError when Exported is asked of a context without interop, or the driver cannot export.
  BodyBuffers(const VulkanContext& context, BodyBufferMode mode, std::uint32_t slots, std::uint32_t maxBodies);

  BodyBufferMode mode() const { return mode_; }
  VkDeviceSize bufferSize() const { return bufferSize_; }
  VkBuffer buffer(std::uint32_t slot) const { return slots_.at(slot).vertices.buffer.get(); }
  float* mapped(std::uint32_t slot) const; // HostVisible: the buffer; Staged: its staging buffer
  // A new fd for the slot's memory (the caller owns it) plus what the importer needs to map it.
  InteropDesc::Buffer exportSlot(std::uint32_t slot) const;
  // Staged only: records the copy of the first `bytes` of the slot's staging buffer into its vertex buffer, between
  // the barriers that order it after the slot's previous draw and before this frame's vertex input.
  void cmdUpload(VkCommandBuffer cmd, std::uint32_t slot, VkDeviceSize bytes) const;

private:
  struct Slot {
    BoundBuffer vertices;   // what the draw reads
    void* mapped = nullptr; // HostVisible only: vertices, mapped
    HostBuffer staging;     // Staged only
  };
  Slot createHostVisible(const VulkanContext& context) const;
  Slot createExported(const VulkanContext& context) const;
  Slot createStaged(const VulkanContext& context) const;

  VkDevice device_;
  BodyBufferMode mode_;
  VkDeviceSize bufferSize_;
  PFN_vkGetMemoryFdKHR getMemoryFd_ = nullptr;
  std::vector<Slot> slots_;
};

} // namespace graphsim::render
