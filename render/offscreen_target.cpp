#include "render/offscreen_target.h"

#include <array>
#include <string>

#include "render/pipeline_common.h"
#include "render/vk_check.h"

namespace graphsim::render {

namespace {

void requireFormat(VkPhysicalDevice physicalDevice, VkFormat format, VkFormatFeatureFlags features, const char* what) {
  VkFormatProperties properties{};
  vkGetPhysicalDeviceFormatProperties(physicalDevice, format, &properties);
  if ((properties.optimalTilingFeatures & features) != features) {
    throw EnvironmentError(std::string("the Vulkan device cannot use ") + what + " with optimal tiling");
  }
}

} // namespace

OwnedRenderPass createScenePass(VkDevice device, const ScenePassLayouts& layouts) {
  const std::array<VkAttachmentDescription, 2> attachments{
      pipeline::attachmentDescription(OffscreenTarget::kColourFormat, VK_ATTACHMENT_LOAD_OP_CLEAR,
                                      VK_ATTACHMENT_STORE_OP_STORE, layouts.colourInitial, layouts.colourFinal),
      pipeline::attachmentDescription(OffscreenTarget::kDepthFormat, VK_ATTACHMENT_LOAD_OP_CLEAR, layouts.depthStore,
                                      layouts.depthInitial, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
  };
  const VkAttachmentReference colourRef{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  const VkAttachmentReference depthRef{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  const VkSubpassDescription subpass{.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
                                     .colorAttachmentCount = 1,
                                     .pColorAttachments = &colourRef,
                                     .pDepthStencilAttachment = &depthRef};

  const VkPipelineStageFlags attachmentStages = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                                                VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                                                VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
  const VkAccessFlags attachmentWrites =
      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
  const std::array<VkSubpassDependency, 2> dependencies{{
      // The previous frame on this queue wrote both attachments and may have copied colour out (capture):
      // its writes (WAW) and transfer reads (WAR) must finish before this frame's layout transitions and clears.
      {.srcSubpass = VK_SUBPASS_EXTERNAL,
       .dstSubpass = 0,
       .srcStageMask = attachmentStages | VK_PIPELINE_STAGE_TRANSFER_BIT,
       .dstStageMask = attachmentStages,
       .srcAccessMask = attachmentWrites,
       .dstAccessMask =
           attachmentWrites | VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT},
      // Colour (now TRANSFER_SRC_OPTIMAL) is read by the capture copy or a blit recorded after the pass.
      {.srcSubpass = 0,
       .dstSubpass = VK_SUBPASS_EXTERNAL,
       .srcStageMask = attachmentStages,
       .dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
       .srcAccessMask = attachmentWrites,
       .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT},
  }};

  const VkRenderPassCreateInfo createInfo{.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
                                          .attachmentCount = static_cast<std::uint32_t>(attachments.size()),
                                          .pAttachments = attachments.data(),
                                          .subpassCount = 1,
                                          .pSubpasses = &subpass,
                                          .dependencyCount = static_cast<std::uint32_t>(dependencies.size()),
                                          .pDependencies = dependencies.data()};
  VkRenderPass renderPass = VK_NULL_HANDLE;
  VK_CHECK(vkCreateRenderPass(device, &createInfo, nullptr, &renderPass));
  return OwnedRenderPass(device, renderPass);
}

OffscreenTarget::OffscreenTarget(const VulkanContext& context, VkExtent2D extent) : extent_(extent) {
  requireFormat(context.physicalDevice(), kColourFormat,
                VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT,
                "R8G8B8A8_UNORM as a colour attachment and copy source");
  requireFormat(context.physicalDevice(), kDepthFormat, VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT,
                "D32_SFLOAT as a depth attachment");

  // Cleared anyway: no need to keep the previous frame's contents.
  renderPass_ = createScenePass(context.device(), {VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                                   VK_IMAGE_LAYOUT_UNDEFINED, VK_ATTACHMENT_STORE_OP_DONT_CARE});
  createAttachments(context);
}

void OffscreenTarget::resize(const VulkanContext& context, VkExtent2D extent) {
  extent_ = extent;
  framebuffer_.reset();
  for (Attachment* a : {&depth_, &colour_}) { // views and images before the memory bound to them
    a->view.reset();
    a->image.reset();
    a->memory.reset();
  }
  createAttachments(context);
}

void OffscreenTarget::createAttachments(const VulkanContext& context) {
  const VkDevice device = context.device();
  colour_ = createAttachment(context, kColourFormat, extent_,
                             VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                             VK_IMAGE_ASPECT_COLOR_BIT);
  depth_ = createAttachment(context, kDepthFormat, extent_, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                            VK_IMAGE_ASPECT_DEPTH_BIT);
  const std::array<VkImageView, 2> views{colour_.view.get(), depth_.view.get()};
  const VkFramebufferCreateInfo framebufferInfo{.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
                                                .renderPass = renderPass_.get(),
                                                .attachmentCount = static_cast<std::uint32_t>(views.size()),
                                                .pAttachments = views.data(),
                                                .width = extent_.width,
                                                .height = extent_.height,
                                                .layers = 1};
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  VK_CHECK(vkCreateFramebuffer(device, &framebufferInfo, nullptr, &framebuffer));
  framebuffer_ = OwnedFramebuffer(device, framebuffer);
}

void OffscreenTarget::cmdBeginRenderPass(VkCommandBuffer cmd) const {
  std::array<VkClearValue, 2> clearValues{};
  clearValues[0].color = kBackground;
  clearValues[1].depthStencil = {1.0f, 0};
  const VkRenderPassBeginInfo beginInfo{.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
                                        .renderPass = renderPass_.get(),
                                        .framebuffer = framebuffer_.get(),
                                        .renderArea = {{0, 0}, extent_},
                                        .clearValueCount = static_cast<std::uint32_t>(clearValues.size()),
                                        .pClearValues = clearValues.data()};
  vkCmdBeginRenderPass(cmd, &beginInfo, VK_SUBPASS_CONTENTS_INLINE);
}

} // namespace graphsim::render
