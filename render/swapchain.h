// The window's swapchain: images the renderer blits its offscreen frame into, and the binary semaphores that order
// acquire -> render -> present. Created for the context's surface (VulkanContext with DeviceRequest::createSurface).
//
//   acquire(k)  vkAcquireNextImageKHR signals acquired[slot(k)]    (one per frame slot: reused once frame k-F is done)
//   render k    waits acquired[slot(k)] at the blit, signals renderFinished[image] (one per swapchain image)
//   present     waits renderFinished[image]
//
// A renderFinished semaphore is signalled again only after its image was re-acquired, which happens after the
// presentation engine finished with the earlier present that waited on it.
#pragma once

#include <vulkan/vulkan.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compute/protocol.h"
#include "render/vk_handle.h"
#include "render/vulkan_context.h"

namespace graphsim::render {

enum class PresentMode { Fifo, Mailbox, Immediate };
std::string_view presentModeName(PresentMode mode); // "fifo", "mailbox", "immediate"

// What a frame renders into and which semaphores it waits and signals (FrameSubmit::present).
struct PresentTarget {
  VkImage image = VK_NULL_HANDLE;
  VkExtent2D extent{};
  VkSemaphore acquired = VK_NULL_HANDLE;       // wait before writing the image
  VkSemaphore renderFinished = VK_NULL_HANDLE; // signal when the image is ready to present
  std::uint32_t imageIndex = 0;
};

class Swapchain {
public:
  // framebufferSize: the window's size in pixels (HiDPI: framebuffer, not screen coordinates), > 0 each side.
  // slots: the renderer's frames in flight (its FrameProtocol's F). Falls back to FIFO (always supported) with a
  // notice on stderr when the requested mode is not, and says which mode is in use.
  Swapchain(const VulkanContext& context, VkExtent2D framebufferSize, PresentMode requested, std::uint32_t slots,
            std::chrono::milliseconds timeout);
  ~Swapchain();
  Swapchain(const Swapchain&) = delete;
  Swapchain& operator=(const Swapchain&) = delete;

  // The caller makes sure no submitted frame still uses the old images (ParticleRenderer::drain) before this.
  void recreate(VkExtent2D framebufferSize);

  // Frame k's image, or nullopt when the swapchain is out of date (recreate, then try again). Must follow the
  // renderer's waitForSlot(k): the slot's acquire semaphore is reused only after frame k-F finished.
  // Throws TimeoutError when no image comes within the timeout.
  std::optional<PresentTarget> acquire(std::uint64_t frame);
  // Presents the image; false when the swapchain became out of date or suboptimal (recreate before the next frame).
  bool present(const PresentTarget& target);

  VkExtent2D extent() const { return extent_; }
  PresentMode mode() const { return mode_; }
  std::uint32_t imageCount() const { return static_cast<std::uint32_t>(images_.size()); }

private:
  void create(VkExtent2D framebufferSize, VkSwapchainKHR old);
  void destroy() noexcept;

  const VulkanContext& context_;
  PresentMode requested_;
  PresentMode mode_ = PresentMode::Fifo;
  std::chrono::milliseconds timeout_;
  FrameProtocol protocol_; // which acquire semaphore frame k uses
  VkSwapchainKHR swapchain_ = VK_NULL_HANDLE;
  VkFormat format_ = VK_FORMAT_UNDEFINED;
  VkExtent2D extent_{};
  std::vector<VkImage> images_;                // owned by the swapchain
  std::vector<OwnedSemaphore> renderFinished_; // one per image
  std::vector<OwnedSemaphore> acquired_;       // one per frame slot
};

} // namespace graphsim::render
