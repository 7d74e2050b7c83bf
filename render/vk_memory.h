// Buffer and image creation with their memory: the one place in render/ that creates a resource, allocates its
// memory and binds the two. Each result owns its handles; the view/buffer/image is destroyed before the memory bound
// to it (the memory is the base class, BoundMemory).
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

// Whether the resource gets an allocation of its own.
enum class Dedicated {
  Never,          // a plain allocation, whatever the driver prefers
  WhenDriverAsks, // when the driver prefers or requires a dedicated allocation for this resource
  Always,         // e.g. render targets, or exports the driver supports only as dedicated allocations
};

// The memory a buffer or image is bound to.
struct MemoryRequest {
  VkMemoryPropertyFlags required = 0;
  VkMemoryPropertyFlags preferred = 0;
  // Non-zero: the resource is created for, and its memory allocated exportable as, these handle types.
  VkExternalMemoryHandleTypeFlags exportTypes = 0;
  Dedicated dedicated = Dedicated::Never;
};

// Memory that one buffer or image is bound to, at offset 0. The resource-owning types below derive from it, so the
// resource (a derived member) is destroyed before its memory (the base).
struct BoundMemory {
  OwnedMemory memory;
  VkDeviceSize allocationSize = 0;
  bool dedicated = false; // allocated with VkMemoryDedicatedAllocateInfo (an importer must be told)
};

struct BoundBuffer : BoundMemory {
  OwnedBuffer buffer;
};
BoundBuffer createBoundBuffer(const VulkanContext& context, VkDeviceSize size, VkBufferUsageFlags usage,
                              const MemoryRequest& memory);

// `imageInfo.pNext` must be null when memory.exportTypes is set (the external-memory info is chained here).
struct BoundImage : BoundMemory {
  OwnedImage image;
};
BoundImage createBoundImage(const VulkanContext& context, const VkImageCreateInfo& imageInfo,
                            const MemoryRequest& memory);

// A buffer in host-visible, host-coherent memory, persistently mapped (unmapped when the memory is freed).
struct HostBuffer : BoundBuffer {
  VkDeviceSize size = 0; // as asked; allocationSize may be larger
  void* mapped = nullptr;
};
HostBuffer createHostBuffer(const VulkanContext& context, VkDeviceSize size, VkBufferUsageFlags usage,
                            VkMemoryPropertyFlags preferred = 0);

// A 2D single-sample image with dedicated device-local memory and a view of the whole image.
struct Attachment : BoundImage {
  OwnedImageView view; // destroyed first (derived before base), then the image, then its memory
};
Attachment createAttachment(const VulkanContext& context, VkFormat format, VkExtent2D extent, VkImageUsageFlags usage,
                            VkImageAspectFlags aspect);

} // namespace graphsim::render
