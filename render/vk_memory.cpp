#include "render/vk_memory.h"

#include <string>

#include "render/vk_check.h"

namespace graphsim::render {

namespace {

std::string describeMemoryFlags(VkMemoryPropertyFlags flags) {
  std::string text;
  const auto add = [&](VkMemoryPropertyFlags bit, const char* name) {
    if (flags & bit) {
      text += text.empty() ? name : std::string("|") + name;
    }
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
      if ((typeBits & (1u << i)) && (properties.memoryTypes[i].propertyFlags & wanted) == wanted) {
        return i;
      }
    }
    return -1;
  };
  std::int64_t index = search(required | preferred);
  if (index < 0) {
    index = search(required);
  }
  if (index < 0) {
    throw EnvironmentError("no Vulkan memory type with " + describeMemoryFlags(required) +
                           " among the types allowed for this resource (type mask " + std::to_string(typeBits) + ")");
  }
  return static_cast<std::uint32_t>(index);
}

HostBuffer createHostBuffer(const VulkanContext& context, VkDeviceSize size, VkBufferUsageFlags usage,
                            VkMemoryPropertyFlags preferred) {
  const VkDevice device = context.device();
  HostBuffer result;
  result.size = size;

  const VkBufferCreateInfo bufferInfo{.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                      .size = size,
                                      .usage = usage,
                                      .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VkBuffer buffer = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBuffer(device, &bufferInfo, nullptr, &buffer));
  result.buffer = OwnedBuffer(device, buffer);

  VkMemoryRequirements requirements{};
  vkGetBufferMemoryRequirements(device, buffer, &requirements);
  const VkMemoryAllocateInfo allocateInfo{
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .allocationSize = requirements.size,
      .memoryTypeIndex = findMemoryType(context.physicalDevice(), requirements.memoryTypeBits,
                                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                        preferred)};
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateMemory(device, &allocateInfo, nullptr, &memory));
  result.memory = OwnedMemory(device, memory);
  VK_CHECK(vkBindBufferMemory(device, buffer, memory, 0));
  VK_CHECK(vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, &result.mapped));
  return result;
}

Attachment createAttachment(const VulkanContext& context, VkFormat format, VkExtent2D extent, VkImageUsageFlags usage,
                            VkImageAspectFlags aspect) {
  const VkDevice device = context.device();
  Attachment result;

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
  VkImage image = VK_NULL_HANDLE;
  VK_CHECK(vkCreateImage(device, &imageInfo, nullptr, &image));
  result.image = OwnedImage(device, image);

  VkMemoryRequirements requirements{};
  vkGetImageMemoryRequirements(device, image, &requirements);
  // Render targets are the allocations drivers most like dedicated; two or three per renderer cost nothing.
  const VkMemoryDedicatedAllocateInfo dedicatedInfo{.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
                                                    .image = image};
  const VkMemoryAllocateInfo allocateInfo{
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .pNext = &dedicatedInfo,
      .allocationSize = requirements.size,
      .memoryTypeIndex = findMemoryType(context.physicalDevice(), requirements.memoryTypeBits,
                                        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateMemory(device, &allocateInfo, nullptr, &memory));
  result.memory = OwnedMemory(device, memory);
  VK_CHECK(vkBindImageMemory(device, image, memory, 0));

  const VkImageViewCreateInfo viewInfo{.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
                                       .image = image,
                                       .viewType = VK_IMAGE_VIEW_TYPE_2D,
                                       .format = format,
                                       .subresourceRange = {aspect, 0, 1, 0, 1}};
  VkImageView view = VK_NULL_HANDLE;
  VK_CHECK(vkCreateImageView(device, &viewInfo, nullptr, &view));
  result.view = OwnedImageView(device, view);
  return result;
}

} // namespace graphsim::render
