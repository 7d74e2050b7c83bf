// Copies a rendered frame out of the offscreen colour image into host-visible memory (one buffer per frame slot,
// so a capture in flight is never overwritten by the next frame's).
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "render/vk_memory.h"
#include "render/vulkan_context.h"

namespace graphsim::render {

class FrameReadback {
public:
  FrameReadback(const VulkanContext& context, VkExtent2D extent);

  // Records, after the render pass (colour in TRANSFER_SRC_OPTIMAL, its writes available to transfers), the copy of
  // the colour image into this buffer and the barrier that makes the copy visible to host reads.
  void cmdCopyFrom(VkCommandBuffer cmd, VkImage colourImage) const;

  // RGBA8 into `out`, top row first; a buffer that already has the size is reused as is (no allocation, no page
  // faults). Only after the frame that recorded cmdCopyFrom reached renderDone.
  void copyPixels(std::vector<std::uint8_t>& out) const;

private:
  VkExtent2D extent_;
  HostBuffer buffer_;
};

} // namespace graphsim::render
