// What the particle and box pipelines share: shader modules from embedded SPIR-V and the fixed-function state they
// both use (one viewport and scissor, both dynamic since the overlay sets its own in the same pass; one sample).
// Internal to render/.
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "render/vk_check.h"
#include "render/vk_handle.h"
#include "shaders/particle_layout.h"

namespace graphsim::render::pipeline {

template <std::size_t N>
OwnedShaderModule createShaderModule(VkDevice device, const std::uint32_t (&words)[N]) {
  const VkShaderModuleCreateInfo createInfo{.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                            .codeSize = N * sizeof(std::uint32_t),
                                            .pCode = words};
  VkShaderModule module = VK_NULL_HANDLE;
  VK_CHECK(vkCreateShaderModule(device, &createInfo, nullptr, &module));
  return OwnedShaderModule(device, module);
}

inline constexpr VkPipelineViewportStateCreateInfo kViewportState{
    .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO, .viewportCount = 1, .scissorCount = 1};
inline constexpr VkPipelineMultisampleStateCreateInfo kMultisample{
    .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO, .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT};
inline constexpr std::array<VkDynamicState, 2> kDynamicStates{VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
inline constexpr VkPipelineDynamicStateCreateInfo kDynamicState{
    .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
    .dynamicStateCount = static_cast<std::uint32_t>(kDynamicStates.size()),
    .pDynamicStates = kDynamicStates.data()};
inline constexpr VkColorComponentFlags kAllComponents =
    VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;

// Filled triangles (or lines), both faces; an opaque colour attachment.
inline constexpr VkPipelineRasterizationStateCreateInfo kRasterization{
    .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
    .polygonMode = VK_POLYGON_MODE_FILL,
    .cullMode = VK_CULL_MODE_NONE,
    .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
    .lineWidth = 1.0f};
inline constexpr VkPipelineColorBlendAttachmentState kOpaque{.blendEnable = VK_FALSE, .colorWriteMask = kAllComponents};

// One sample, no stencil: a colour or depth attachment of a render pass.
inline VkAttachmentDescription attachmentDescription(VkFormat format, VkAttachmentLoadOp loadOp,
                                                     VkAttachmentStoreOp storeOp, VkImageLayout initialLayout,
                                                     VkImageLayout finalLayout) {
  return {.format = format,
          .samples = VK_SAMPLE_COUNT_1_BIT,
          .loadOp = loadOp,
          .storeOp = storeOp,
          .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
          .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
          .initialLayout = initialLayout,
          .finalLayout = finalLayout};
}

// Sets the viewport and scissor to the whole target (dynamic state: the overlay sets its own in the same pass).
inline void cmdSetFullViewport(VkCommandBuffer cmd, VkExtent2D extent) {
  const VkViewport viewport{0.0f, 0.0f, static_cast<float>(extent.width), static_cast<float>(extent.height),
                            0.0f, 1.0f};
  const VkRect2D scissor{{0, 0}, extent};
  vkCmdSetViewport(cmd, 0, 1, &viewport);
  vkCmdSetScissor(cmd, 0, 1, &scissor);
}

// A layout with one push-constant range of `bytes` for `stages` and, when given, one descriptor set.
inline OwnedPipelineLayout createPushConstantLayout(VkDevice device, VkShaderStageFlags stages, std::uint32_t bytes,
                                                    VkDescriptorSetLayout set = VK_NULL_HANDLE) {
  const VkPushConstantRange pushRange{stages, 0, bytes};
  const VkPipelineLayoutCreateInfo layoutInfo{.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                              .setLayoutCount = set != VK_NULL_HANDLE ? 1u : 0u,
                                              .pSetLayouts = &set,
                                              .pushConstantRangeCount = 1,
                                              .pPushConstantRanges = &pushRange};
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VK_CHECK(vkCreatePipelineLayout(device, &layoutInfo, nullptr, &layout));
  return OwnedPipelineLayout(device, layout);
}

// What differs between the pipelines; viewport, multisample and dynamic state are the shared ones above. Depth is
// tested (less) unless depthTest is off; `depthWrite` says whether it is written.
struct FixedFunction {
  const VkPipelineVertexInputStateCreateInfo* vertexInput;
  VkPrimitiveTopology topology;
  VkBool32 depthWrite;
  const VkPipelineColorBlendAttachmentState* blend; // one per colour attachment
  std::uint32_t colourAttachments = 1;
  VkBool32 depthTest = VK_TRUE;
  VkCompareOp depthCompare = VK_COMPARE_OP_LESS;
};

inline constexpr VkPipelineVertexInputStateCreateInfo kNoVertexInput{
    .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};

// One body per instance (the particle and surface pipelines); quad corners come from gl_VertexIndex.
inline constexpr VkVertexInputBindingDescription kBodyBinding{0, GRAPHSIM_BODY_STRIDE, VK_VERTEX_INPUT_RATE_INSTANCE};
inline constexpr VkVertexInputAttributeDescription kBodyAttribute{GRAPHSIM_BODY_LOCATION, 0,
                                                                  VK_FORMAT_R32G32B32A32_SFLOAT, 0};
inline constexpr VkPipelineVertexInputStateCreateInfo kBodyVertexInput{
    .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
    .vertexBindingDescriptionCount = 1,
    .pVertexBindingDescriptions = &kBodyBinding,
    .vertexAttributeDescriptionCount = 1,
    .pVertexAttributeDescriptions = &kBodyAttribute};

// The shader stage of an embedded module (it need only live while the pipeline is created).
inline VkPipelineShaderStageCreateInfo stageOf(VkShaderStageFlagBits stage, VkShaderModule module) {
  return {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
          .stage = stage,
          .module = module,
          .pName = "main"};
}

// A graphics pipeline of an embedded vertex and fragment shader (the modules live only while it is created).
template <std::size_t V, std::size_t F>
OwnedPipeline createGraphicsPipeline(VkDevice device, VkPipelineLayout layout, VkRenderPass renderPass,
                                     const std::uint32_t (&vertexSpirv)[V], const std::uint32_t (&fragmentSpirv)[F],
                                     const FixedFunction& state) {
  const OwnedShaderModule vertexModule = createShaderModule(device, vertexSpirv);
  const OwnedShaderModule fragmentModule = createShaderModule(device, fragmentSpirv);
  const std::array<VkPipelineShaderStageCreateInfo, 2> stages{
      stageOf(VK_SHADER_STAGE_VERTEX_BIT, vertexModule.get()),
      stageOf(VK_SHADER_STAGE_FRAGMENT_BIT, fragmentModule.get())};
  const VkPipelineInputAssemblyStateCreateInfo inputAssembly{
      .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
      .topology = state.topology};
  const VkPipelineDepthStencilStateCreateInfo depthStencil{
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = state.depthTest,
      .depthWriteEnable = state.depthWrite,
      .depthCompareOp = state.depthCompare};
  const VkPipelineColorBlendStateCreateInfo colourBlend{
      .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
      .attachmentCount = state.colourAttachments,
      .pAttachments = state.blend};
  const VkGraphicsPipelineCreateInfo pipelineInfo{.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
                                                  .stageCount = static_cast<std::uint32_t>(stages.size()),
                                                  .pStages = stages.data(),
                                                  .pVertexInputState = state.vertexInput,
                                                  .pInputAssemblyState = &inputAssembly,
                                                  .pViewportState = &kViewportState,
                                                  .pRasterizationState = &kRasterization,
                                                  .pMultisampleState = &kMultisample,
                                                  .pDepthStencilState = &depthStencil,
                                                  .pColorBlendState = &colourBlend,
                                                  .pDynamicState = &kDynamicState,
                                                  .layout = layout,
                                                  .renderPass = renderPass,
                                                  .subpass = 0};
  VkPipeline pipeline = VK_NULL_HANDLE;
  VK_CHECK(vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &pipelineInfo, nullptr, &pipeline));
  return OwnedPipeline(device, pipeline);
}

} // namespace graphsim::render::pipeline
