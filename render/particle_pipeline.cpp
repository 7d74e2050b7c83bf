#include "render/particle_pipeline.h"

#include <array>
#include <cstddef>
#include <cstdint>

#include "render/pipeline_common.h"
#include "render/render_types.h"
#include "render/vk_check.h"

namespace graphsim::render {

// The GLSL side sees the same header; these pin the C++ side to the std430 offsets the shaders use.
static_assert(sizeof(shaderio::ParticlePushConstants) == 112, "push constants must match the GLSL block");
static_assert(sizeof(shaderio::ParticlePushConstants) <= 128, "Vulkan guarantees only 128 bytes of push constants");
static_assert(offsetof(shaderio::ParticlePushConstants, viewProj) == 0);
static_assert(offsetof(shaderio::ParticlePushConstants, cameraRight) == 64);
static_assert(offsetof(shaderio::ParticlePushConstants, cameraUp) == 80);
static_assert(offsetof(shaderio::ParticlePushConstants, pointRadius) == 96);
static_assert(offsetof(shaderio::ParticlePushConstants, colourScale) == 100);
static_assert(offsetof(shaderio::ParticlePushConstants, palette) == 104);
static_assert(static_cast<int>(Palette::NBody) == GRAPHSIM_PALETTE_NBODY && GRAPHSIM_PALETTE_NBODY == 0,
              "the default palette must be what the zero padding selected before");
static_assert(static_cast<int>(Palette::Fluid) == GRAPHSIM_PALETTE_FLUID);
static_assert(sizeof(shaderio::Body) == GRAPHSIM_BODY_STRIDE, "16 bytes per body: xyz position, w attribute");

namespace {

constexpr std::uint32_t kVertexSpirv[] =
#include "shaders/particle.vert.spv.inc"
    ;
constexpr std::uint32_t kFragmentSpirv[] =
#include "shaders/particle.frag.spv.inc"
    ;

constexpr VkShaderStageFlags kPushStages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;

OwnedPipeline createPipeline(VkDevice device, VkPipelineLayout layout, VkRenderPass renderPass) {
  return pipeline::createGraphicsPipeline(
      device, layout, renderPass, kVertexSpirv, kFragmentSpirv,
      {&pipeline::kBodyVertexInput, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, VK_TRUE, &pipeline::kOpaque});
}

} // namespace

shaderio::ParticlePushConstants makePushConstants(const Camera& camera, const DrawStyle& style, VkExtent2D extent) {
  const float aspect = static_cast<float>(extent.width) / static_cast<float>(extent.height);
  const glm::mat4 view = camera.view();
  shaderio::ParticlePushConstants constants{};
  constants.viewProj = camera.projection(aspect) * view;
  // The rows of the view matrix's rotation are the camera axes in world space.
  constants.cameraRight = glm::vec4(view[0][0], view[1][0], view[2][0], 0.0f);
  constants.cameraUp = glm::vec4(view[0][1], view[1][1], view[2][1], 0.0f);
  constants.pointRadius = style.pointRadius;
  constants.colourScale = style.colourScale;
  constants.palette = static_cast<int>(style.palette);
  return constants;
}

ParticlePipeline::ParticlePipeline(VkDevice device, VkRenderPass renderPass)
    : layout_(pipeline::createPushConstantLayout(device, kPushStages, sizeof(shaderio::ParticlePushConstants))),
      pipeline_(createPipeline(device, layout_.get(), renderPass)) {}

void ParticlePipeline::cmdDraw(VkCommandBuffer cmd, VkExtent2D extent, VkBuffer bodies, std::uint32_t bodyCount,
                               const shaderio::ParticlePushConstants& constants) const {
  pipeline::cmdSetFullViewport(cmd, extent);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_.get());
  vkCmdPushConstants(cmd, layout_.get(), kPushStages, 0, sizeof(constants), &constants);
  const VkDeviceSize offset = 0;
  vkCmdBindVertexBuffers(cmd, 0, 1, &bodies, &offset);
  vkCmdDraw(cmd, 4, bodyCount, 0, 0);
}

} // namespace graphsim::render
