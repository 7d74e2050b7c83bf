#include "render/swapchain.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <stdexcept>

#include "compute/errors.h"
#include "render/offscreen_target.h"
#include "render/vk_check.h"

namespace graphsim::render {
namespace {

VkPresentModeKHR toVk(PresentMode mode) {
  switch (mode) {
  case PresentMode::Mailbox: return VK_PRESENT_MODE_MAILBOX_KHR;
  case PresentMode::Immediate: return VK_PRESENT_MODE_IMMEDIATE_KHR;
  case PresentMode::Fifo: break;
  }
  return VK_PRESENT_MODE_FIFO_KHR;
}

// UNORM formats, so that the window shows exactly the pixel values a capture writes (the offscreen target is UNORM
// and the blit copies values without any sRGB conversion).
VkSurfaceFormatKHR chooseFormat(VkPhysicalDevice physicalDevice, VkSurfaceKHR surface) {
  std::uint32_t count = 0;
  VK_CHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(physicalDevice, surface, &count, nullptr));
  std::vector<VkSurfaceFormatKHR> formats(count);
  VK_CHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(physicalDevice, surface, &count, formats.data()));
  formats.resize(count);
  for (const VkFormat wanted : {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM}) {
    for (const auto& f : formats) {
      VkFormatProperties properties{};
      vkGetPhysicalDeviceFormatProperties(physicalDevice, f.format, &properties);
      if (f.format == wanted && f.colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR &&
          (properties.optimalTilingFeatures & VK_FORMAT_FEATURE_BLIT_DST_BIT)) {
        return f;
      }
    }
  }
  throw EnvironmentError(
      "the window surface offers no B8G8R8A8_UNORM or R8G8B8A8_UNORM format that can be a blit "
      "destination (" +
      std::to_string(formats.size()) + " formats offered)");
}

OwnedSemaphore createBinarySemaphore(VkDevice device) {
  const VkSemaphoreCreateInfo info{.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  VkSemaphore semaphore = VK_NULL_HANDLE;
  VK_CHECK(vkCreateSemaphore(device, &info, nullptr, &semaphore));
  return OwnedSemaphore(device, semaphore);
}

} // namespace

std::string_view presentModeName(PresentMode mode) {
  switch (mode) {
  case PresentMode::Mailbox: return "mailbox";
  case PresentMode::Immediate: return "immediate";
  case PresentMode::Fifo: break;
  }
  return "fifo";
}

Swapchain::Swapchain(const VulkanContext& context, VkExtent2D framebufferSize, PresentMode requested,
                     std::uint32_t slots, std::chrono::milliseconds timeout)
    : context_(context), requested_(requested), timeout_(timeout), protocol_(slots) {
  if (context.surface() == VK_NULL_HANDLE) {
    throw std::logic_error("Swapchain needs a VulkanContext created with a surface (DeviceRequest::createSurface)");
  }
  VkFormatProperties properties{};
  vkGetPhysicalDeviceFormatProperties(context.physicalDevice(), OffscreenTarget::kColourFormat, &properties);
  if (!(properties.optimalTilingFeatures & VK_FORMAT_FEATURE_BLIT_SRC_BIT)) {
    throw EnvironmentError("the Vulkan device cannot blit from R8G8B8A8_UNORM images, needed to show frames");
  }
  for (std::uint32_t i = 0; i < protocol_.framesInFlight(); ++i) {
    acquired_.push_back(createBinarySemaphore(context.device()));
  }

  std::uint32_t count = 0;
  VK_CHECK(vkGetPhysicalDeviceSurfacePresentModesKHR(context.physicalDevice(), context.surface(), &count, nullptr));
  std::vector<VkPresentModeKHR> modes(count);
  VK_CHECK(
      vkGetPhysicalDeviceSurfacePresentModesKHR(context.physicalDevice(), context.surface(), &count, modes.data()));
  modes.resize(count);
  mode_ = requested;
  if (std::find(modes.begin(), modes.end(), toVk(requested)) == modes.end()) {
    mode_ = PresentMode::Fifo; // the one mode every implementation supports
    std::fprintf(stderr, "graphsim: present mode %s is not supported by this window system; using fifo\n",
                 std::string(presentModeName(requested)).c_str());
  }
  create(framebufferSize, VK_NULL_HANDLE);
}

Swapchain::~Swapchain() { destroy(); }

void Swapchain::destroy() noexcept {
  renderFinished_.clear();
  images_.clear();
  if (swapchain_ != VK_NULL_HANDLE) {
    vkDestroySwapchainKHR(context_.device(), swapchain_, nullptr);
    swapchain_ = VK_NULL_HANDLE;
  }
}

void Swapchain::create(VkExtent2D framebufferSize, VkSwapchainKHR old) {
  const VkPhysicalDevice physicalDevice = context_.physicalDevice();
  const VkSurfaceKHR surface = context_.surface();
  VkSurfaceCapabilitiesKHR caps{};
  VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(physicalDevice, surface, &caps));
  if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT)) {
    throw EnvironmentError("the window surface's images cannot be transfer destinations (needed for the blit)");
  }
  const VkSurfaceFormatKHR format = chooseFormat(physicalDevice, surface);

  // currentExtent is the window's size where the window system decides it; 0xFFFFFFFF means the swapchain decides.
  VkExtent2D extent = caps.currentExtent;
  if (extent.width == 0xFFFFFFFFu) {
    extent.width = std::clamp(framebufferSize.width, caps.minImageExtent.width, caps.maxImageExtent.width);
    extent.height = std::clamp(framebufferSize.height, caps.minImageExtent.height, caps.maxImageExtent.height);
  }
  std::uint32_t imageCount = caps.minImageCount + 1;
  if (caps.maxImageCount > 0) imageCount = std::min(imageCount, caps.maxImageCount);

  const VkSwapchainCreateInfoKHR info{.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
                                      .surface = surface,
                                      .minImageCount = imageCount,
                                      .imageFormat = format.format,
                                      .imageColorSpace = format.colorSpace,
                                      .imageExtent = extent,
                                      .imageArrayLayers = 1,
                                      .imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                      .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
                                      .preTransform = caps.currentTransform,
                                      .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
                                      .presentMode = toVk(mode_),
                                      .clipped = VK_TRUE,
                                      .oldSwapchain = old};
  VkSwapchainKHR swapchain = VK_NULL_HANDLE;
  VK_CHECK(vkCreateSwapchainKHR(context_.device(), &info, nullptr, &swapchain));
  destroy(); // the old swapchain (retired by oldSwapchain) and its semaphores
  swapchain_ = swapchain;
  format_ = format.format;
  extent_ = extent;

  std::uint32_t count = 0;
  VK_CHECK(vkGetSwapchainImagesKHR(context_.device(), swapchain_, &count, nullptr));
  images_.resize(count);
  VK_CHECK(vkGetSwapchainImagesKHR(context_.device(), swapchain_, &count, images_.data()));
  for (std::uint32_t i = 0; i < count; ++i) renderFinished_.push_back(createBinarySemaphore(context_.device()));
}

void Swapchain::recreate(VkExtent2D framebufferSize) { create(framebufferSize, swapchain_); }

std::optional<PresentTarget> Swapchain::acquire(std::uint64_t frame) {
  const VkSemaphore acquired = acquired_[protocol_.slot(frame)].get();
  std::uint32_t index = 0;
  const auto timeoutNs = static_cast<std::uint64_t>(std::chrono::nanoseconds(timeout_).count());
  const VkResult result =
      vkAcquireNextImageKHR(context_.device(), swapchain_, timeoutNs, acquired, VK_NULL_HANDLE, &index);
  if (result == VK_ERROR_OUT_OF_DATE_KHR) return std::nullopt;
  if (result == VK_TIMEOUT || result == VK_NOT_READY) {
    throw TimeoutError("frame " + std::to_string(frame) + ": the window system gave no swapchain image within " +
                       std::to_string(timeout_.count()) + " ms (vkAcquireNextImageKHR)");
  }
  if (result != VK_SUBOPTIMAL_KHR) VK_CHECK(result); // suboptimal still acquired: draw, then recreate after present
  return PresentTarget{images_[index], extent_, acquired, renderFinished_[index].get(), index};
}

bool Swapchain::present(const PresentTarget& target) {
  const VkSemaphore wait = target.renderFinished;
  const VkPresentInfoKHR info{.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
                              .waitSemaphoreCount = 1,
                              .pWaitSemaphores = &wait,
                              .swapchainCount = 1,
                              .pSwapchains = &swapchain_,
                              .pImageIndices = &target.imageIndex};
  const VkResult result = vkQueuePresentKHR(context_.queue(), &info);
  if (result == VK_ERROR_OUT_OF_DATE_KHR || result == VK_SUBOPTIMAL_KHR) return false;
  VK_CHECK(result);
  return true;
}

} // namespace graphsim::render
