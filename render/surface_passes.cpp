#include "render/surface_passes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>

#include <glm/gtc/matrix_inverse.hpp>

#include "render/offscreen_target.h"
#include "render/pipeline_common.h"
#include "render/vk_barrier.h"
#include "render/vk_check.h"

namespace graphsim::render {

static_assert(sizeof(shaderio::SurfacePushConstants) == 128, "push constants must match the GLSL block");
static_assert(offsetof(shaderio::SurfacePushConstants, cameraForward) == 96);
static_assert(offsetof(shaderio::SurfacePushConstants, eye) == 112);
static_assert(sizeof(shaderio::SmoothPushConstants) == 32);
static_assert(offsetof(shaderio::SmoothPushConstants, threshold) == 16);
static_assert(sizeof(shaderio::CompositePushConstants) == 112);
static_assert(offsetof(shaderio::CompositePushConstants, lightView) == 96);

namespace {

constexpr std::uint32_t kSphereVertexSpirv[] =
#include "shaders/surface.vert.spv.inc"
    ;
constexpr std::uint32_t kThicknessSpirv[] =
#include "shaders/surface_thickness.frag.spv.inc"
    ;
constexpr std::uint32_t kDepthSpirv[] =
#include "shaders/surface_depth.frag.spv.inc"
    ;
constexpr std::uint32_t kSmoothSpirv[] =
#include "shaders/surface_smooth.comp.spv.inc"
    ;
constexpr std::uint32_t kFullscreenSpirv[] =
#include "shaders/fullscreen.vert.spv.inc"
    ;
constexpr std::uint32_t kCompositeSpirv[] =
#include "shaders/surface_composite.frag.spv.inc"
    ;

constexpr VkFormat kThicknessFormat = VK_FORMAT_R16G16_SFLOAT; // chord sum, chord x attribute sum
constexpr VkFormat kEyeDepthFormat = VK_FORMAT_R32_SFLOAT;
constexpr std::uint32_t kGroupSize = 16;        // shaders/surface_smooth.comp's local size
constexpr float kRefractionPerMetre = 0.15f;    // uv offset per metre of liquid along the normal
constexpr glm::vec3 kLight{0.27f, 0.9f, 0.34f}; // towards the light (world), as the room and obstacle
constexpr float kThresholdInRadii = 8.0f;       // the filter's depth range behind a pixel, in sphere radii
constexpr float kClampInRadii = 1.0f;           // ... and how far a sample in front may pull it, in sphere radii

constexpr VkShaderStageFlags kSphereStages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
constexpr VkColorComponentFlags kRed = VK_COLOR_COMPONENT_R_BIT;
// Thickness (and its attribute-weighted twin): added up. Depth: the nearest written.
constexpr VkPipelineColorBlendAttachmentState kThicknessBlend{VK_TRUE,
                                                              VK_BLEND_FACTOR_ONE,
                                                              VK_BLEND_FACTOR_ONE,
                                                              VK_BLEND_OP_ADD,
                                                              VK_BLEND_FACTOR_ONE,
                                                              VK_BLEND_FACTOR_ONE,
                                                              VK_BLEND_OP_ADD,
                                                              kRed | VK_COLOR_COMPONENT_G_BIT};
constexpr VkPipelineColorBlendAttachmentState kDepthBlend{.blendEnable = VK_FALSE, .colorWriteMask = kRed};

// Stored; the barriers around the pass change layouts, the pass none.
VkAttachmentDescription attachment(VkFormat format, VkAttachmentLoadOp load, VkImageLayout layout) {
  return pipeline::attachmentDescription(format, load, VK_ATTACHMENT_STORE_OP_STORE, layout, layout);
}

// One subpass over `colours` and the last attachment as depth; no dependencies: the explicit barriers order it.
template <std::size_t N>
OwnedRenderPass createPass(VkDevice device, const std::array<VkAttachmentDescription, N>& attachments) {
  std::array<VkAttachmentReference, N - 1> colourRefs{};
  for (std::uint32_t i = 0; i + 1 < N; ++i) colourRefs[i] = {i, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  const VkAttachmentReference depthRef{N - 1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  const VkSubpassDescription subpass{.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
                                     .colorAttachmentCount = N - 1,
                                     .pColorAttachments = colourRefs.data(),
                                     .pDepthStencilAttachment = &depthRef};
  const VkRenderPassCreateInfo createInfo{.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
                                          .attachmentCount = N,
                                          .pAttachments = attachments.data(),
                                          .subpassCount = 1,
                                          .pSubpasses = &subpass};
  VkRenderPass pass = VK_NULL_HANDLE;
  VK_CHECK(vkCreateRenderPass(device, &createInfo, nullptr, &pass));
  return OwnedRenderPass(device, pass);
}

OwnedSampler createSampler(VkDevice device, VkFilter filter) {
  const VkSamplerCreateInfo info{.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
                                 .magFilter = filter,
                                 .minFilter = filter,
                                 .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                                 .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                                 .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE};
  VkSampler sampler = VK_NULL_HANDLE;
  VK_CHECK(vkCreateSampler(device, &info, nullptr, &sampler));
  return OwnedSampler(device, sampler);
}

OwnedDescriptorSetLayout createSetLayout(VkDevice device, VkDescriptorType type, std::uint32_t count,
                                         VkShaderStageFlags stages) {
  std::array<VkDescriptorSetLayoutBinding, 3> bindings{};
  for (std::uint32_t i = 0; i < count; ++i) bindings[i] = {i, type, 1, stages, nullptr};
  const VkDescriptorSetLayoutCreateInfo info{.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                             .bindingCount = count,
                                             .pBindings = bindings.data()};
  VkDescriptorSetLayout layout = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDescriptorSetLayout(device, &info, nullptr, &layout));
  return OwnedDescriptorSetLayout(device, layout);
}

OwnedDescriptorPool createPool(VkDevice device) {
  const std::array<VkDescriptorPoolSize, 2> sizes{
      {{VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 4}, {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 3}}};
  const VkDescriptorPoolCreateInfo info{.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                        .maxSets = 3,
                                        .poolSizeCount = static_cast<std::uint32_t>(sizes.size()),
                                        .pPoolSizes = sizes.data()};
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDescriptorPool(device, &info, nullptr, &pool));
  return OwnedDescriptorPool(device, pool);
}

VkDescriptorSet allocateSet(VkDevice device, VkDescriptorPool pool, VkDescriptorSetLayout layout) {
  const VkDescriptorSetAllocateInfo info{.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                         .descriptorPool = pool,
                                         .descriptorSetCount = 1,
                                         .pSetLayouts = &layout};
  VkDescriptorSet set = VK_NULL_HANDLE;
  VK_CHECK(vkAllocateDescriptorSets(device, &info, &set));
  return set;
}

OwnedPipeline createComputePipeline(VkDevice device, VkPipelineLayout layout) {
  const OwnedShaderModule module = pipeline::createShaderModule(device, kSmoothSpirv);
  const VkComputePipelineCreateInfo info{.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
                                         .stage = pipeline::stageOf(VK_SHADER_STAGE_COMPUTE_BIT, module.get()),
                                         .layout = layout};
  VkPipeline result = VK_NULL_HANDLE;
  VK_CHECK(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &info, nullptr, &result));
  return OwnedPipeline(device, result);
}

OwnedFramebuffer createFramebuffer(VkDevice device, VkRenderPass pass, std::initializer_list<VkImageView> views,
                                   VkExtent2D extent) {
  const VkFramebufferCreateInfo info{.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
                                     .renderPass = pass,
                                     .attachmentCount = static_cast<std::uint32_t>(views.size()),
                                     .pAttachments = views.begin(),
                                     .width = extent.width,
                                     .height = extent.height,
                                     .layers = 1};
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  VK_CHECK(vkCreateFramebuffer(device, &info, nullptr, &framebuffer));
  return OwnedFramebuffer(device, framebuffer);
}

template <std::size_t N>
void cmdBarriers(VkCommandBuffer cmd, VkPipelineStageFlags src, VkPipelineStageFlags dst,
                 const std::array<VkImageMemoryBarrier, N>& barriers) {
  vkCmdPipelineBarrier(cmd, src, dst, 0, 0, nullptr, 0, nullptr, N, barriers.data());
}

void cmdComputeWritesVisible(VkCommandBuffer cmd) {
  const VkMemoryBarrier barrier{.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                                .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, 1, &barrier, 0,
                       nullptr, 0, nullptr);
}

constexpr VkImageLayout kColourAttachment = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
constexpr VkImageLayout kDepthAttachment = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
constexpr VkImageLayout kSampled = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
constexpr VkAccessFlags kColourRW = VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
constexpr VkAccessFlags kDepthRW =
    VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
constexpr VkAccessFlags kShaderRW = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
constexpr VkPipelineStageFlags kFragmentTests =
    VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;

} // namespace

SurfacePasses::SurfacePasses(const VulkanContext& context, VkExtent2D extent, VkRenderPass mainPass)
    : device_(context.device()), extent_(extent) {
  const VkDevice device = device_;
  // The scenery's pipelines are made for the renderer's pass: the scene pass is compatible with it.
  scenePass_ =
      createScenePass(device, {kColourAttachment, kColourAttachment, kDepthAttachment, VK_ATTACHMENT_STORE_OP_STORE});
  const VkAttachmentDescription sceneDepth =
      attachment(OffscreenTarget::kDepthFormat, VK_ATTACHMENT_LOAD_OP_LOAD, kDepthAttachment);
  thicknessPass_ = createPass(
      device, std::array{attachment(kThicknessFormat, VK_ATTACHMENT_LOAD_OP_CLEAR, kColourAttachment), sceneDepth});
  depthPass_ = createPass(
      device, std::array{attachment(kEyeDepthFormat, VK_ATTACHMENT_LOAD_OP_CLEAR, kColourAttachment), sceneDepth});
  linear_ = createSampler(device, VK_FILTER_LINEAR);
  nearest_ = createSampler(device, VK_FILTER_NEAREST);
  smoothSetLayout_ = createSetLayout(device, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 2, VK_SHADER_STAGE_COMPUTE_BIT);
  compositeSetLayout_ =
      createSetLayout(device, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 3, VK_SHADER_STAGE_FRAGMENT_BIT);
  pool_ = createPool(device);
  for (VkDescriptorSet& set : smoothSets_) set = allocateSet(device, pool_.get(), smoothSetLayout_.get());
  compositeSet_ = allocateSet(device, pool_.get(), compositeSetLayout_.get());

  sphereLayout_ = pipeline::createPushConstantLayout(device, kSphereStages, sizeof(shaderio::SurfacePushConstants));
  smoothLayout_ = pipeline::createPushConstantLayout(device, VK_SHADER_STAGE_COMPUTE_BIT,
                                                     sizeof(shaderio::SmoothPushConstants), smoothSetLayout_.get());
  compositeLayout_ = pipeline::createPushConstantLayout(
      device, VK_SHADER_STAGE_FRAGMENT_BIT, sizeof(shaderio::CompositePushConstants), compositeSetLayout_.get());
  const pipeline::FixedFunction thickness{&pipeline::kBodyVertexInput, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, VK_FALSE,
                                          &kThicknessBlend};
  const pipeline::FixedFunction depth{&pipeline::kBodyVertexInput, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, VK_TRUE,
                                      &kDepthBlend};
  const pipeline::FixedFunction composite{
      &pipeline::kNoVertexInput, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, VK_FALSE, &pipeline::kOpaque, 1, VK_FALSE};
  thicknessPipeline_ = pipeline::createGraphicsPipeline(device, sphereLayout_.get(), thicknessPass_.get(),
                                                        kSphereVertexSpirv, kThicknessSpirv, thickness);
  depthPipeline_ = pipeline::createGraphicsPipeline(device, sphereLayout_.get(), depthPass_.get(), kSphereVertexSpirv,
                                                    kDepthSpirv, depth);
  smoothPipeline_ = createComputePipeline(device, smoothLayout_.get());
  compositePipeline_ = pipeline::createGraphicsPipeline(device, compositeLayout_.get(), mainPass, kFullscreenSpirv,
                                                        kCompositeSpirv, composite);
  createImages(context);
}

void SurfacePasses::resize(const VulkanContext& context, VkExtent2D extent) {
  extent_ = extent;
  images_.reset();
  createImages(context);
}

void SurfacePasses::createImages(const VulkanContext& context) {
  const auto colour = [&](VkFormat format, VkImageUsageFlags usage) {
    return createAttachment(context, format, extent_, usage, VK_IMAGE_ASPECT_COLOR_BIT);
  };
  Images& i = images_.emplace();
  i.sceneColour =
      colour(OffscreenTarget::kColourFormat, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT);
  i.sceneDepth = createAttachment(context, OffscreenTarget::kDepthFormat, extent_,
                                  VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT);
  i.thickness = colour(kThicknessFormat, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT);
  i.eyeDepth = colour(kEyeDepthFormat,
                      VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT);
  i.smoothed = colour(kEyeDepthFormat, VK_IMAGE_USAGE_STORAGE_BIT);
  i.sceneFramebuffer =
      createFramebuffer(device_, scenePass_.get(), {i.sceneColour.view.get(), i.sceneDepth.view.get()}, extent_);
  i.thicknessFramebuffer =
      createFramebuffer(device_, thicknessPass_.get(), {i.thickness.view.get(), i.sceneDepth.view.get()}, extent_);
  i.depthFramebuffer =
      createFramebuffer(device_, depthPass_.get(), {i.eyeDepth.view.get(), i.sceneDepth.view.get()}, extent_);
  writeDescriptors();
}

void SurfacePasses::writeDescriptors() const {
  const Images& i = *images_;
  const auto storage = [](const Attachment& a) {
    return VkDescriptorImageInfo{VK_NULL_HANDLE, a.view.get(), VK_IMAGE_LAYOUT_GENERAL};
  };
  const std::array<VkDescriptorImageInfo, 4> storageInfos{storage(i.eyeDepth), storage(i.smoothed), storage(i.smoothed),
                                                          storage(i.eyeDepth)};
  const std::array<VkDescriptorImageInfo, 3> samplerInfos{{
      {linear_.get(), i.sceneColour.view.get(), kSampled},
      {nearest_.get(), i.eyeDepth.view.get(), VK_IMAGE_LAYOUT_GENERAL},
      {nearest_.get(), i.thickness.view.get(), kSampled},
  }};
  const auto write = [](VkDescriptorSet set, VkDescriptorType type, const VkDescriptorImageInfo* infos,
                        std::uint32_t count) {
    return VkWriteDescriptorSet{.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                .dstSet = set,
                                .dstBinding = 0,
                                .descriptorCount = count,
                                .descriptorType = type,
                                .pImageInfo = infos};
  };
  const std::array<VkWriteDescriptorSet, 3> writes{
      write(smoothSets_[0], VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, &storageInfos[0], 2),
      write(smoothSets_[1], VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, &storageInfos[2], 2),
      write(compositeSet_, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, samplerInfos.data(), 3)};
  vkUpdateDescriptorSets(device_, static_cast<std::uint32_t>(writes.size()), writes.data(), 0, nullptr);
}

void SurfacePasses::cmdBeginScene(VkCommandBuffer cmd) const {
  // The previous frame sampled the scene colour (shading) and wrote the scene depth (the liquid's depth pass).
  cmdBarriers(cmd, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT | kFragmentTests,
              VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | kFragmentTests,
              std::array{imageBarrier(images_->sceneColour.image.get(), VK_IMAGE_ASPECT_COLOR_BIT, 0, kColourRW,
                                      VK_IMAGE_LAYOUT_UNDEFINED, kColourAttachment),
                         imageBarrier(images_->sceneDepth.image.get(), VK_IMAGE_ASPECT_DEPTH_BIT,
                                      VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, kDepthRW, VK_IMAGE_LAYOUT_UNDEFINED,
                                      kDepthAttachment)});
  cmdBeginPass(cmd, scenePass_.get(), images_->sceneFramebuffer.get());
}

void SurfacePasses::cmdBeginPass(VkCommandBuffer cmd, VkRenderPass pass, VkFramebuffer framebuffer) const {
  // Colour: the scene's background, or 0 (no thickness, no liquid); depth 1 (the loaded passes ignore it).
  std::array<VkClearValue, 2> clear{};
  if (pass == scenePass_.get()) clear[0].color = OffscreenTarget::kBackground;
  clear[1].depthStencil = {1.0f, 0};
  const VkRenderPassBeginInfo begin{.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
                                    .renderPass = pass,
                                    .framebuffer = framebuffer,
                                    .renderArea = {{0, 0}, extent_},
                                    .clearValueCount = static_cast<std::uint32_t>(clear.size()),
                                    .pClearValues = clear.data()};
  vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
}

void SurfacePasses::cmdLiquidBarriers(VkCommandBuffer cmd) const {
  const Images& i = *images_;
  // The scene colour becomes the shading's input; its depth the liquid's depth test. Thickness and eye depth were
  // read by the previous frame's smoothing and shading: cleared anew.
  cmdBarriers(
      cmd,
      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | kFragmentTests | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT |
          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | kFragmentTests | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
      std::array{
          imageBarrier(i.sceneColour.image.get(), VK_IMAGE_ASPECT_COLOR_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                       VK_ACCESS_SHADER_READ_BIT, kColourAttachment, kSampled),
          imageBarrier(i.sceneDepth.image.get(), VK_IMAGE_ASPECT_DEPTH_BIT,
                       VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, kDepthRW, kDepthAttachment, kDepthAttachment),
          imageBarrier(i.thickness.image.get(), VK_IMAGE_ASPECT_COLOR_BIT, 0, kColourRW, VK_IMAGE_LAYOUT_UNDEFINED,
                       kColourAttachment),
          imageBarrier(i.eyeDepth.image.get(), VK_IMAGE_ASPECT_COLOR_BIT, 0, kColourRW, VK_IMAGE_LAYOUT_UNDEFINED,
                       kColourAttachment)});
}

void SurfacePasses::cmdDrawSpheres(VkCommandBuffer cmd, const SurfaceFrame& frame, VkPipeline pipeline) const {
  if (frame.bodyCount == 0) return;
  const float aspect = static_cast<float>(extent_.width) / static_cast<float>(extent_.height);
  const glm::mat4 view = frame.camera.view();
  shaderio::SurfacePushConstants push{};
  push.viewProj = frame.camera.projection(aspect) * view;
  // The rows of the view matrix's rotation are the camera axes in world space; its third points back at the eye.
  push.cameraRight = glm::vec4(view[0][0], view[1][0], view[2][0], frame.pointRadius * kSurfaceSphereScale);
  push.cameraUp = glm::vec4(view[0][1], view[1][1], view[2][1], 0.0f);
  push.cameraForward = glm::vec4(-view[0][2], -view[1][2], -view[2][2], 0.0f);
  push.eye = glm::vec4(frame.camera.eye(), 1.0f);
  pipeline::cmdSetFullViewport(cmd, extent_);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  vkCmdPushConstants(cmd, sphereLayout_.get(), kSphereStages, 0, sizeof(push), &push);
  const VkDeviceSize offset = 0;
  vkCmdBindVertexBuffers(cmd, 0, 1, &frame.bodies, &offset);
  vkCmdDraw(cmd, 4, frame.bodyCount, 0, 0);
}

void SurfacePasses::cmdLiquid(VkCommandBuffer cmd, const SurfaceFrame& frame, VkQueryPool timestamps,
                              std::uint32_t firstQuery) const {
  const auto timestamp = [&](std::uint32_t i) {
    if (timestamps != VK_NULL_HANDLE)
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timestamps, firstQuery + i);
  };
  const Images& i = *images_;
  vkCmdEndRenderPass(cmd); // the scene's
  cmdLiquidBarriers(cmd);
  cmdBeginPass(cmd, thicknessPass_.get(), i.thicknessFramebuffer.get());
  cmdDrawSpheres(cmd, frame, thicknessPipeline_.get());
  vkCmdEndRenderPass(cmd);
  timestamp(0);
  // The depth pass writes the depth the thickness pass tested against (and stored).
  const VkMemoryBarrier depthOrder{.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                   .srcAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                                   .dstAccessMask = kDepthRW};
  vkCmdPipelineBarrier(cmd, kFragmentTests, kFragmentTests, 0, 1, &depthOrder, 0, nullptr, 0, nullptr);
  cmdBeginPass(cmd, depthPass_.get(), i.depthFramebuffer.get());
  cmdDrawSpheres(cmd, frame, depthPipeline_.get());
  vkCmdEndRenderPass(cmd);
  timestamp(1);
  cmdSmooth(cmd, frame);
  timestamp(2);
}

void SurfacePasses::cmdSmooth(VkCommandBuffer cmd, const SurfaceFrame& frame) const {
  const Images& i = *images_;
  // Thickness to the shading; eye depth to the filter (GENERAL: stored and sampled); the filter's other image
  // was last written by the previous frame's filter.
  cmdBarriers(
      cmd, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
      std::array{imageBarrier(i.thickness.image.get(), VK_IMAGE_ASPECT_COLOR_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                              VK_ACCESS_SHADER_READ_BIT, kColourAttachment, kSampled),
                 imageBarrier(i.eyeDepth.image.get(), VK_IMAGE_ASPECT_COLOR_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                              kShaderRW, kColourAttachment, VK_IMAGE_LAYOUT_GENERAL),
                 imageBarrier(i.smoothed.image.get(), VK_IMAGE_ASPECT_COLOR_BIT, 0, kShaderRW,
                              VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL)});
  const int iterations = std::clamp(frame.style.smoothingIterations, 0, kMaxSmoothingIterations);
  if (iterations == 0 || frame.style.smoothingRadius <= 0.0f) return;
  const float sphereRadius = frame.pointRadius * kSurfaceSphereScale;
  shaderio::SmoothPushConstants push{};
  push.radius = frame.style.smoothingRadius * sphereRadius;
  push.pixelsPerUnitAtOneMetre =
      0.5f * static_cast<float>(extent_.height) / std::tan(glm::radians(frame.camera.fovYDeg) * 0.5f);
  push.threshold = kThresholdInRadii * sphereRadius;
  push.clampDepth = kClampInRadii * sphereRadius;
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, smoothPipeline_.get());
  const std::uint32_t groupsX = (extent_.width + kGroupSize - 1) / kGroupSize;
  const std::uint32_t groupsY = (extent_.height + kGroupSize - 1) / kGroupSize;
  for (int pass = 0; pass < 2 * iterations; ++pass) { // horizontal into `smoothed`, vertical back
    push.stepX = pass % 2 == 0 ? 1 : 0;
    push.stepY = 1 - push.stepX;
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, smoothLayout_.get(), 0, 1, &smoothSets_[pass % 2], 0,
                            nullptr);
    vkCmdPushConstants(cmd, smoothLayout_.get(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
    vkCmdDispatch(cmd, groupsX, groupsY, 1);
    cmdComputeWritesVisible(cmd);
  }
}

void SurfacePasses::cmdComposite(VkCommandBuffer cmd, const SurfaceFrame& frame) const {
  const float aspect = static_cast<float>(extent_.width) / static_cast<float>(extent_.height);
  const glm::mat4 view = frame.camera.view();
  const float tanHalf = std::tan(glm::radians(frame.camera.fovYDeg) * 0.5f);
  shaderio::CompositePushConstants push{};
  push.viewToWorld = glm::inverse(view);
  push.absorption =
      glm::vec4(glm::clamp(frame.style.absorption, glm::vec3(0.0f), glm::vec3(kMaxAbsorption)), kRefractionPerMetre);
  push.frustum =
      glm::vec4(tanHalf * aspect, tanHalf, static_cast<float>(extent_.width), static_cast<float>(extent_.height));
  push.lightView = glm::vec4(glm::mat3(view) * glm::normalize(kLight), std::clamp(frame.style.foam, 0.0f, 1.0f));
  pipeline::cmdSetFullViewport(cmd, extent_);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, compositePipeline_.get());
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, compositeLayout_.get(), 0, 1, &compositeSet_, 0,
                          nullptr);
  vkCmdPushConstants(cmd, compositeLayout_.get(), VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(push), &push);
  vkCmdDraw(cmd, 3, 1, 0, 0);
}

} // namespace graphsim::render
