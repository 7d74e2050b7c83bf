#include "render/box_pipeline.h"

#include <array>
#include <cstddef>
#include <cstdint>

#include "render/pipeline_common.h"
#include "render/render_types.h"
#include "render/vk_check.h"

namespace graphsim::render {

static_assert(sizeof(shaderio::BoxPushConstants) == 112, "push constants must match the GLSL block");
static_assert(offsetof(shaderio::BoxPushConstants, boxMin) == 64);
static_assert(offsetof(shaderio::BoxPushConstants, boxMax) == 80);
static_assert(offsetof(shaderio::BoxPushConstants, colour) == 96);

namespace {

constexpr std::uint32_t kVertexSpirv[] =
#include "shaders/box.vert.spv.inc"
    ;
constexpr std::uint32_t kFragmentSpirv[] =
#include "shaders/box.frag.spv.inc"
    ;

constexpr VkShaderStageFlags kPushStages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
constexpr std::uint32_t kEdgeVertices = 24; // 12 edges, shaders/box.vert
constexpr std::uint32_t kFloorVertices = 6; // 2 triangles after the edges
constexpr std::uint32_t kFloorFirstVertex = kEdgeVertices;

constexpr VkPipelineVertexInputStateCreateInfo kNoVertexInput{
    .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
// The floor's tint over whatever is behind it; the target's alpha stays as cleared (opaque captures). In the order of
// VkPipelineColorBlendAttachmentState: enable, colour src/dst/op, alpha src/dst/op, write mask.
constexpr VkPipelineColorBlendAttachmentState kTint{
    VK_TRUE,         VK_BLEND_FACTOR_SRC_ALPHA, VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
    VK_BLEND_OP_ADD, VK_BLEND_FACTOR_ZERO,      VK_BLEND_FACTOR_ONE,
    VK_BLEND_OP_ADD, pipeline::kAllComponents};

// The edges write depth; the floor, drawn first and tinted, does not.
constexpr pipeline::FixedFunction kEdges{&kNoVertexInput, VK_PRIMITIVE_TOPOLOGY_LINE_LIST, VK_TRUE, &pipeline::kOpaque};
constexpr pipeline::FixedFunction kFloor{&kNoVertexInput, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, VK_FALSE, &kTint};

OwnedPipeline createPipeline(VkDevice device, VkPipelineLayout layout, VkRenderPass renderPass,
                             const pipeline::FixedFunction& state) {
  return pipeline::createGraphicsPipeline(device, layout, renderPass, kVertexSpirv, kFragmentSpirv, state);
}

} // namespace

shaderio::BoxPushConstants makeBoxPushConstants(const Camera& camera, const Box& box, VkExtent2D extent) {
  const float aspect = static_cast<float>(extent.width) / static_cast<float>(extent.height);
  shaderio::BoxPushConstants constants{};
  constants.viewProj = camera.projection(aspect) * camera.view();
  constants.boxMin = glm::vec4(box.min, 1.0f);
  constants.boxMax = glm::vec4(box.max, 1.0f);
  return constants;
}

BoxPipeline::BoxPipeline(VkDevice device, VkRenderPass renderPass)
    : layout_(pipeline::createPushConstantLayout(device, kPushStages, sizeof(shaderio::BoxPushConstants))),
      edges_(createPipeline(device, layout_.get(), renderPass, kEdges)),
      floor_(createPipeline(device, layout_.get(), renderPass, kFloor)) {}

void BoxPipeline::cmdDraw(VkCommandBuffer cmd, VkExtent2D extent, const shaderio::BoxPushConstants& constants,
                          bool floor) const {
  pipeline::cmdSetFullViewport(cmd, extent);
  shaderio::BoxPushConstants push = constants;
  if (floor) {
    push.colour = glm::vec4(kBoxFloorColour[0], kBoxFloorColour[1], kBoxFloorColour[2], kBoxFloorAlpha);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, floor_.get());
    vkCmdPushConstants(cmd, layout_.get(), kPushStages, 0, sizeof(push), &push);
    vkCmdDraw(cmd, kFloorVertices, 1, kFloorFirstVertex, 0);
  }
  push.colour = glm::vec4(kBoxEdgeColour[0], kBoxEdgeColour[1], kBoxEdgeColour[2], 1.0f);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, edges_.get());
  vkCmdPushConstants(cmd, layout_.get(), kPushStages, 0, sizeof(push), &push);
  vkCmdDraw(cmd, kEdgeVertices, 1, 0, 0);
}

} // namespace graphsim::render
