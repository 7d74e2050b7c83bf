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

// Sets the viewport and scissor to the whole target (dynamic state: the overlay sets its own in the same pass).
inline void cmdSetFullViewport(VkCommandBuffer cmd, VkExtent2D extent) {
  const VkViewport viewport{0.0f, 0.0f, static_cast<float>(extent.width), static_cast<float>(extent.height),
                            0.0f, 1.0f};
  const VkRect2D scissor{{0, 0}, extent};
  vkCmdSetViewport(cmd, 0, 1, &viewport);
  vkCmdSetScissor(cmd, 0, 1, &scissor);
}

} // namespace graphsim::render::pipeline
