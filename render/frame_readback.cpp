#include "render/frame_readback.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "render/particle_renderer.h"

// The one translation unit that compiles stb_image_write. Header-only use: libstb-dev also ships libstb.a and
// libstb.so, but linking them adds a runtime dependency for one function. STATIC keeps the stb symbols private to
// this file, so a target that links libstb as well gets no duplicate definitions.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#include <stb/stb_image_write.h>

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
  const VkBufferMemoryBarrier toHost{.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                                     .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                     .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
                                     .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                     .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                     .buffer = buffer_.buffer.get(),
                                     .offset = 0,
                                     .size = VK_WHOLE_SIZE};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &toHost, 0,
                       nullptr);
}

void FrameReadback::copyPixels(std::vector<std::uint8_t>& out) const {
  out.resize(static_cast<std::size_t>(buffer_.size));
  // Host-coherent memory: no invalidate needed. Row 0 of the image is the top row (the projection flips y).
  std::memcpy(out.data(), buffer_.mapped, out.size());
}

namespace {

void appendBytes(void* context, void* data, int size) {
  auto* out = static_cast<std::vector<std::uint8_t>*>(context);
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  out->insert(out->end(), bytes, bytes + size);
}

} // namespace

// In memory only: writing the file (atomically, every step checked) is the application's output writer's job
// (app/io/output_file.h), and render/ must not depend on app/.
std::vector<std::uint8_t> encodePng(const std::vector<std::uint8_t>& rgba, std::uint32_t width,
                                    std::uint32_t height) {
  if (width == 0 || height == 0 || rgba.size() != std::size_t{width} * height * 4) {
    throw std::invalid_argument("encodePng: expected " + std::to_string(width) + "x" + std::to_string(height) +
                                " RGBA8 pixels, got " + std::to_string(rgba.size()) + " bytes");
  }
  std::vector<std::uint8_t> png;
  const int stride = static_cast<int>(width * 4);
  if (stbi_write_png_to_func(appendBytes, &png, static_cast<int>(width), static_cast<int>(height), 4, rgba.data(),
                             stride) == 0) {
    throw std::runtime_error("cannot encode a " + std::to_string(width) + "x" + std::to_string(height) + " PNG");
  }
  return png;
}

} // namespace graphsim::render
