#include "render/frame_readback.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "render/vk_barrier.h"

namespace graphsim::render {

FrameReadback::FrameReadback(const VulkanContext& context, VkExtent2D extent)
    : extent_(extent),
      // HOST_CACHED where available: the host reads every byte back, which is slow from write-combined memory.
      buffer_(createHostBuffer(context, VkDeviceSize{extent.width} * extent.height * 4,
                               VK_BUFFER_USAGE_TRANSFER_DST_BIT, VK_MEMORY_PROPERTY_HOST_CACHED_BIT)) {}

void FrameReadback::cmdCopyFrom(VkCommandBuffer cmd, VkImage colourImage) const {
  // The slot's previous capture (F frames ago) wrote the same buffer: order the two copies (WAW).
  const VkMemoryBarrier previousCopy{.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                     .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                     .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &previousCopy, 0,
                       nullptr, 0, nullptr);

  const VkBufferImageCopy region{.bufferOffset = 0,
                                 .bufferRowLength = 0, // tightly packed
                                 .bufferImageHeight = 0,
                                 .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                 .imageOffset = {0, 0, 0},
                                 .imageExtent = {extent_.width, extent_.height, 1}};
  vkCmdCopyImageToBuffer(cmd, colourImage, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer_.buffer.get(), 1, &region);

  // The host reads after waiting on renderDone; the semaphore signal alone does not make transfer writes visible
  // to the host domain.
  cmdBufferBarrier(cmd, buffer_.buffer.get(), VK_WHOLE_SIZE, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

void FrameReadback::copyPixels(std::vector<std::uint8_t>& out) const {
  out.resize(static_cast<std::size_t>(buffer_.size));
  // Host-coherent memory: no invalidate needed. Row 0 of the image is the top row (the projection flips y).
  std::memcpy(out.data(), buffer_.mapped, out.size());
}

} // namespace graphsim::render
