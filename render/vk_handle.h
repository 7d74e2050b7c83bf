// Move-only owners for Vulkan objects that belong to a VkDevice. One owner per handle: whoever holds the owner
// destroys the handle, everybody else gets the raw handle through get(). The destroy function is a template
// argument, so an owner costs two pointers and no per-object std::function.
#pragma once

#include <vulkan/vulkan.h>

#include <utility>

namespace graphsim::render {

template <typename Handle, void (*Destroy)(VkDevice, Handle, const VkAllocationCallbacks*)>
class DeviceOwned {
public:
  DeviceOwned() = default;
  DeviceOwned(VkDevice device, Handle handle) noexcept : device_(device), handle_(handle) {}
  ~DeviceOwned() { reset(); }

  DeviceOwned(const DeviceOwned&) = delete;
  DeviceOwned& operator=(const DeviceOwned&) = delete;
  DeviceOwned(DeviceOwned&& other) noexcept
      : device_(other.device_), handle_(std::exchange(other.handle_, VK_NULL_HANDLE)) {}
  DeviceOwned& operator=(DeviceOwned&& other) noexcept {
    if (this != &other) {
      reset();
      device_ = other.device_;
      handle_ = std::exchange(other.handle_, VK_NULL_HANDLE);
    }
    return *this;
  }

  Handle get() const { return handle_; }
  explicit operator bool() const { return handle_ != VK_NULL_HANDLE; }

  // Gives the handle up without destroying it: for a handle the GPU may still use after a timed-out wait (leaked on
  // purpose rather than destroyed under the GPU's feet).
  Handle release() noexcept { return std::exchange(handle_, VK_NULL_HANDLE); }

  // The caller guarantees the GPU no longer uses the handle (the owner cannot know).
  void reset() noexcept {
    if (handle_ != VK_NULL_HANDLE) {
      Destroy(device_, handle_, nullptr);
      handle_ = VK_NULL_HANDLE;
    }
  }

private:
  VkDevice device_ = VK_NULL_HANDLE;
  Handle handle_ = VK_NULL_HANDLE;
};

using OwnedBuffer = DeviceOwned<VkBuffer, vkDestroyBuffer>;
using OwnedMemory = DeviceOwned<VkDeviceMemory, vkFreeMemory>; // freeing also unmaps
using OwnedImage = DeviceOwned<VkImage, vkDestroyImage>;
using OwnedImageView = DeviceOwned<VkImageView, vkDestroyImageView>;
using OwnedRenderPass = DeviceOwned<VkRenderPass, vkDestroyRenderPass>;
using OwnedFramebuffer = DeviceOwned<VkFramebuffer, vkDestroyFramebuffer>;
using OwnedShaderModule = DeviceOwned<VkShaderModule, vkDestroyShaderModule>;
using OwnedPipelineLayout = DeviceOwned<VkPipelineLayout, vkDestroyPipelineLayout>;
using OwnedPipeline = DeviceOwned<VkPipeline, vkDestroyPipeline>;
using OwnedCommandPool = DeviceOwned<VkCommandPool, vkDestroyCommandPool>; // frees its command buffers too
using OwnedEvent = DeviceOwned<VkEvent, vkDestroyEvent>;
using OwnedSemaphore = DeviceOwned<VkSemaphore, vkDestroySemaphore>;
using OwnedQueryPool = DeviceOwned<VkQueryPool, vkDestroyQueryPool>;
using OwnedFence = DeviceOwned<VkFence, vkDestroyFence>;
using OwnedDescriptorPool = DeviceOwned<VkDescriptorPool, vkDestroyDescriptorPool>; // frees its sets too
using OwnedDescriptorSetLayout = DeviceOwned<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout>;
using OwnedSampler = DeviceOwned<VkSampler, vkDestroySampler>;

} // namespace graphsim::render
