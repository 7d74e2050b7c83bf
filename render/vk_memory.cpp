#include "render/vk_memory.h"

#include <string>

#include "render/vk_check.h"

namespace graphsim::render {

namespace {

std::string describeMemoryFlags(VkMemoryPropertyFlags flags) {
  std::string text;
  const auto add = [&](VkMemoryPropertyFlags bit, const char* name) {
    if (flags & bit) text += text.empty() ? name : std::string("|") + name;
  };
  add(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "DEVICE_LOCAL");
  add(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "HOST_VISIBLE");
  add(VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "HOST_COHERENT");
  add(VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "HOST_CACHED");
  return text.empty() ? "none" : text;
}

} // namespace

std::uint32_t findMemoryType(VkPhysicalDevice physicalDevice, std::uint32_t typeBits, VkMemoryPropertyFlags required,
                             VkMemoryPropertyFlags preferred) {
  VkPhysicalDeviceMemoryProperties properties{};
  vkGetPhysicalDeviceMemoryProperties(physicalDevice, &properties);
  const auto search = [&](VkMemoryPropertyFlags wanted) -> std::int64_t {
    for (std::uint32_t i = 0; i < properties.memoryTypeCount; ++i) {
      if ((typeBits & (1u << i)) && (properties.memoryTypes[i].propertyFlags & wanted) == wanted) return i;
    }
    return -1;
  };
  std::int64_t index = search(required | preferred);
  if (index < 0) index = search(required);
  if (index < 0) {
    throw EnvironmentError("no Vulkan memory type with " + describeMemoryFlags(required) +
                           " among the types allowed for this resource (type mask " + std::to_string(typeBits) + ")");
  }
  return static_cast<std::uint32_t>(index);
}

namespace {

// The one allocate-and-bind: `resource` names a buffer or an image (exactly one of .buffer and .image set), which is
// also what a dedicated allocation is made for.
BoundMemory allocateAndBind(const VulkanContext& context, const VkMemoryDedicatedAllocateInfo& resource,
                            const MemoryRequest& request) {
  const VkDevice device = context.device();
  VkMemoryDedicatedRequirements driver{.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
  VkMemoryRequirements2 requirements{.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, .pNext = &driver};
  if (resource.buffer != VK_NULL_HANDLE) {
    const VkBufferMemoryRequirementsInfo2 info{.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2,
                                               .buffer = resource.buffer};
    vkGetBufferMemoryRequirements2(device, &info, &requirements);
  } else {
    const VkImageMemoryRequirementsInfo2 info{.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2,
                                              .image = resource.image};
    vkGetImageMemoryRequirements2(device, &info, &requirements);
  }

  BoundMemory result;
  result.allocationSize = requirements.memoryRequirements.size;
  result.dedicated = request.dedicated == Dedicated::Always ||
                     (request.dedicated == Dedicated::WhenDriverAsks &&
                      (driver.prefersDedicatedAllocation || driver.requiresDedicatedAllocation));
  const void* dedicatedInfo = result.dedicated ? &resource : nullptr;
  const VkExportMemoryAllocateInfo exportInfo{.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                              .pNext = dedicatedInfo,
                                              .handleTypes = request.exportTypes};
  const VkMemoryAllocateInfo allocateInfo{
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .pNext = request.exportTypes != 0 ? &exportInfo : dedicatedInfo,
      .allocationSize = result.allocationSize,
      .memoryTypeIndex = findMemoryType(context.physicalDevice(), requirements.memoryRequirements.memoryTypeBits,
                                        request.required, request.preferred)};
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateMemory(device, &allocateInfo, nullptr, &memory));
  result.memory = OwnedMemory(device, memory);
  if (resource.buffer != VK_NULL_HANDLE) {
    VK_CHECK(vkBindBufferMemory(device, resource.buffer, memory, 0));
  } else {
    VK_CHECK(vkBindImageMemory(device, resource.image, memory, 0));
  }
  return result;
}

} // namespace

BoundBuffer createBoundBuffer(const VulkanContext& context, VkDeviceSize size, VkBufferUsageFlags usage,
                              const MemoryRequest& memory) {
  const VkDevice device = context.device();
  // The same handle types go to the buffer and to its allocation.
  const VkExternalMemoryBufferCreateInfo externalInfo{.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
                                                      .handleTypes = memory.exportTypes};
  const VkBufferCreateInfo bufferInfo{.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                      .pNext = memory.exportTypes != 0 ? &externalInfo : nullptr,
                                      .size = size,
                                      .usage = usage,
                                      .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VkBuffer buffer = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBuffer(device, &bufferInfo, nullptr, &buffer));
  BoundBuffer result;
  result.buffer = OwnedBuffer(device, buffer); // owned before anything below can throw
  static_cast<BoundMemory&>(result) =
      allocateAndBind(context, {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO, .buffer = buffer}, memory);
  return result;
}

BoundImage createBoundImage(const VulkanContext& context, const VkImageCreateInfo& imageInfo,
                            const MemoryRequest& memory) {
  const VkDevice device = context.device();
  const VkExternalMemoryImageCreateInfo externalInfo{.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
                                                     .handleTypes = memory.exportTypes};
  VkImageCreateInfo createInfo = imageInfo;
  if (memory.exportTypes != 0) createInfo.pNext = &externalInfo;
  VkImage image = VK_NULL_HANDLE;
  VK_CHECK(vkCreateImage(device, &createInfo, nullptr, &image));
  BoundImage result;
  result.image = OwnedImage(device, image);
  static_cast<BoundMemory&>(result) =
      allocateAndBind(context, {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO, .image = image}, memory);
  return result;
}

HostBuffer createHostBuffer(const VulkanContext& context, VkDeviceSize size, VkBufferUsageFlags usage,
                            VkMemoryPropertyFlags preferred) {
  HostBuffer result;
  static_cast<BoundBuffer&>(result) = createBoundBuffer(
      context, size, usage,
      {.required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, .preferred = preferred});
  result.size = size;
  VK_CHECK(vkMapMemory(context.device(), result.memory.get(), 0, VK_WHOLE_SIZE, 0, &result.mapped));
  return result;
}

Attachment createAttachment(const VulkanContext& context, VkFormat format, VkExtent2D extent, VkImageUsageFlags usage,
                            VkImageAspectFlags aspect) {
  const VkImageCreateInfo imageInfo{.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
                                    .imageType = VK_IMAGE_TYPE_2D,
                                    .format = format,
                                    .extent = {extent.width, extent.height, 1},
                                    .mipLevels = 1,
                                    .arrayLayers = 1,
                                    .samples = VK_SAMPLE_COUNT_1_BIT,
                                    .tiling = VK_IMAGE_TILING_OPTIMAL,
                                    .usage = usage,
                                    .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
                                    .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
  Attachment result;
  // Render targets are the allocations drivers most like dedicated; two or three per renderer cost nothing.
  static_cast<BoundImage&>(result) = createBoundImage(
      context, imageInfo, {.required = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, .dedicated = Dedicated::Always});

  const VkImageViewCreateInfo viewInfo{.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                       .image = result.image.get(),
                                       .viewType = VK_IMAGE_VIEW_TYPE_2D,
                                       .format = format,
                                       .subresourceRange = {aspect, 0, 1, 0, 1}};
  VkImageView view = VK_NULL_HANDLE;
  VK_CHECK(vkCreateImageView(context.device(), &viewInfo, nullptr, &view));
  result.view = OwnedImageView(context.device(), view);
  return result;
}

} // namespace graphsim::render
