// The offscreen colour + depth target every frame renders into, and the classic VkRenderPass that draws it.
// A render pass rather than dynamic rendering because ImGui 1.86's Vulkan backend records into a VkRenderPass:
// the overlay draws in the same pass (subpass 0, one sample) after the particles.
#pragma once

#include <vulkan/vulkan.h>

#include "render/vk_handle.h"
#include "render/vk_memory.h"
#include "render/vulkan_context.h"

namespace graphsim::render {

// The layouts and depth store of a pass like the target's: same attachments, subpass and dependencies, so every
// pipeline made for the target's pass draws in it too (render pass compatibility ignores layouts and load/store
// ops). The surface's scene pass is one (render/surface_passes.h).
struct ScenePassLayouts {
  VkImageLayout colourInitial, colourFinal, depthInitial;
  VkAttachmentStoreOp depthStore;
};
OwnedRenderPass createScenePass(VkDevice device, const ScenePassLayouts& layouts);

class OffscreenTarget {
public:
  static constexpr VkFormat kColourFormat = VK_FORMAT_R8G8B8A8_UNORM;
  static constexpr VkFormat kDepthFormat = VK_FORMAT_D32_SFLOAT;
  static constexpr VkClearColorValue kBackground{{0.015f, 0.015f, 0.03f, 1.0f}}; // dark blue-black

  OffscreenTarget(const VulkanContext& context, VkExtent2D extent);
  // New attachments and framebuffer of another size; the render pass (and every pipeline made for it) stays. The
  // caller makes sure the GPU no longer uses the old images.
  void resize(const VulkanContext& context, VkExtent2D extent);

  VkExtent2D extent() const { return extent_; }
  VkRenderPass renderPass() const { return renderPass_.get(); }
  VkImage colourImage() const { return colour_.image.get(); }

  // Begins the render pass, clearing colour to kBackground and depth to 1. Between frames the images are shared:
  // the pass's external dependencies order it after the previous frame's attachment writes and transfer reads.
  // After vkCmdEndRenderPass the colour image is in TRANSFER_SRC_OPTIMAL with its writes available to transfers
  // (capture copy, or a later blit to a swapchain image).
  void cmdBeginRenderPass(VkCommandBuffer cmd) const;

private:
  void createAttachments(const VulkanContext& context);

  VkExtent2D extent_;
  // Destroyed in reverse: framebuffer, render pass, depth, colour.
  Attachment colour_;
  Attachment depth_;
  OwnedRenderPass renderPass_;
  OwnedFramebuffer framebuffer_;
};

} // namespace graphsim::render
