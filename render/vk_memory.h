// Buffer and image creation with their memory. Each result owns its handles; members are declared so that the
// view/buffer/image is destroyed before the memory bound to it.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "render/vk_handle.h"
#include "render/vulkan_context.h"

namespace graphsim::render {

// Index of a memory type allowed by typeBits that has all `required` flags, preferring one that also has all
// `preferred` flags. Throws EnvironmentError naming the flags when none fits.
std::uint32_t findMemoryType(VkPhysicalDevice physicalDevice, std::uint32_t typeBits, VkMemoryPropertyFlags required,
                             VkMemoryPropertyFlags preferred = 0);

// A buffer in host-visible, host-coherent memory, persistently mapped (unmapped when the memory is freed).
struct HostBuffer {
  OwnedMemory memory;
  OwnedBuffer buffer; // destroyed before its memory (reverse declaration order)
  VkDeviceSize size = 0;
  void* mapped = nullptr;
};
HostBuffer createHostBuffer(const VulkanContext& context, VkDeviceSize size, VkBufferUsageFlags usage,
                            VkMemoryPropertyFlags preferred = 0);

// A 2D single-sample image with dedicated device-local memory and a view of the whole image.
struct Attachment {
  OwnedMemory memory;
  OwnedImage image;
  OwnedImageView view; // destroyed first (reverse declaration order), then the image, then its memory
};
Attachment createAttachment(const VulkanContext& context, VkFormat format, VkExtent2D extent, VkImageUsageFlags usage,
                            VkImageAspectFlags aspect);

} // namespace graphsim::render
