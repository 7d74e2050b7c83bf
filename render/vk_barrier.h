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

// An image barrier over the image's first mip level and layer of `aspect`, with no queue family ownership transfer,
// for vkCmdPipelineBarrier: the `srcAccess` writes made available, visible to `dstAccess`, the layout changed.
inline VkImageMemoryBarrier imageBarrier(VkImage image, VkImageAspectFlags aspect, VkAccessFlags srcAccess,
                                         VkAccessFlags dstAccess, VkImageLayout oldLayout, VkImageLayout newLayout) {
  return {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
          .srcAccessMask = srcAccess,
          .dstAccessMask = dstAccess,
          .oldLayout = oldLayout,
          .newLayout = newLayout,
          .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
          .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
          .image = image,
          .subresourceRange = {aspect, 0, 1, 0, 1}};
}

} // namespace graphsim::render
