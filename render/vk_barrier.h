// Pipeline barriers that render/ records in more than one place.
#pragma once

#include <vulkan/vulkan.h>

namespace graphsim::render {

// Records a barrier over the first `size` bytes of `buffer` (VK_WHOLE_SIZE: all of it), with no queue family
// ownership transfer: the `srcAccess` writes of srcStage are made available, and visible to `dstAccess` at dstStage.
inline void cmdBufferBarrier(VkCommandBuffer cmd, VkBuffer buffer, VkDeviceSize size, VkPipelineStageFlags srcStage,
                             VkAccessFlags srcAccess, VkPipelineStageFlags dstStage, VkAccessFlags dstAccess) {
  const VkBufferMemoryBarrier barrier{.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                                      .srcAccessMask = srcAccess,
                                      .dstAccessMask = dstAccess,
                                      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                      .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                      .buffer = buffer,
                                      .offset = 0,
                                      .size = size};
  vkCmdPipelineBarrier(cmd, srcStage, dstStage, 0, 0, nullptr, 1, &barrier, 0, nullptr);
}

} // namespace graphsim::render
