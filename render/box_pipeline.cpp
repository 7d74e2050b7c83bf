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
static_assert(sizeof(shaderio::ObstaclePushConstants) == 128);
static_assert(offsetof(shaderio::ObstaclePushConstants, sphere) == 64);
static_assert(offsetof(shaderio::ObstaclePushConstants, cameraUp) == 112);

namespace {

constexpr std::uint32_t kVertexSpirv[] =
#include "shaders/box.vert.spv.inc"
    ;
constexpr std::uint32_t kFragmentSpirv[] =
#include "shaders/box.frag.spv.inc"
    ;
constexpr std::uint32_t kRoomVertexSpirv[] =
#include "shaders/room.vert.spv.inc"
    ;
constexpr std::uint32_t kRoomFragmentSpirv[] =
#include "shaders/room.frag.spv.inc"
    ;
constexpr std::uint32_t kObstacleVertexSpirv[] =
#include "shaders/obstacle.vert.spv.inc"
    ;
constexpr std::uint32_t kObstacleFragmentSpirv[] =
#include "shaders/obstacle.frag.spv.inc"
    ;

constexpr VkShaderStageFlags kPushStages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
constexpr std::uint32_t kEdgeVertices = 24; // 12 edges, shaders/box.vert
constexpr std::uint32_t kRoomVertices = 30; // 5 faces, shaders/room.vert

// The room's tint over whatever is behind it; the target's alpha stays as cleared (opaque captures). In the order of
// VkPipelineColorBlendAttachmentState: enable, colour src/dst/op, alpha src/dst/op, write mask.
constexpr VkPipelineColorBlendAttachmentState kTint{
    VK_TRUE,         VK_BLEND_FACTOR_SRC_ALPHA, VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
    VK_BLEND_OP_ADD, VK_BLEND_FACTOR_ZERO,      VK_BLEND_FACTOR_ONE,
    VK_BLEND_OP_ADD, pipeline::kAllComponents};

// The edges and the obstacle write depth; the room, drawn first and tinted, does not (the back edges lie in its
// walls' planes and would lose the depth test to them).
constexpr pipeline::FixedFunction kEdges{&pipeline::kNoVertexInput, VK_PRIMITIVE_TOPOLOGY_LINE_LIST, VK_TRUE,
                                         &pipeline::kOpaque};
constexpr pipeline::FixedFunction kRoom{&pipeline::kNoVertexInput, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, VK_FALSE,
                                        &kTint};
constexpr pipeline::FixedFunction kObstacle{&pipeline::kNoVertexInput, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, VK_TRUE,
                                            &pipeline::kOpaque};

} // namespace

shaderio::BoxPushConstants makeBoxPushConstants(const Camera& camera, const Box& box, VkExtent2D extent) {
  const float aspect = static_cast<float>(extent.width) / static_cast<float>(extent.height);
  shaderio::BoxPushConstants constants{};
  constants.viewProj = camera.projection(aspect) * camera.view();
  constants.boxMin = glm::vec4(box.min, 1.0f);
  constants.boxMax = glm::vec4(box.max, 1.0f);
  constants.colour = glm::vec4(camera.eye(), kRoomOpacity); // the room's RoomPushConstants::eye
  return constants;
}

shaderio::ObstaclePushConstants makeObstaclePushConstants(const Camera& camera, const Sphere& sphere,
                                                          VkExtent2D extent) {
  const float aspect = static_cast<float>(extent.width) / static_cast<float>(extent.height);
  const glm::mat4 view = camera.view();
  shaderio::ObstaclePushConstants constants{};
  constants.viewProj = camera.projection(aspect) * view;
  constants.sphere = glm::vec4(sphere.centre, sphere.radius);
  constants.eye = glm::vec4(camera.eye(), 1.0f);
  constants.cameraRight = glm::vec4(view[0][0], view[1][0], view[2][0], 0.0f);
  constants.cameraUp = glm::vec4(view[0][1], view[1][1], view[2][1], 0.0f);
  return constants;
}

BoxPipeline::BoxPipeline(VkDevice device, VkRenderPass renderPass)
    : layout_(pipeline::createPushConstantLayout(device, kPushStages, sizeof(shaderio::BoxPushConstants))),
      obstacleLayout_(pipeline::createPushConstantLayout(device, kPushStages, sizeof(shaderio::ObstaclePushConstants))),
      edges_(pipeline::createGraphicsPipeline(device, layout_.get(), renderPass, kVertexSpirv, kFragmentSpirv, kEdges)),
      room_(pipeline::createGraphicsPipeline(device, layout_.get(), renderPass, kRoomVertexSpirv, kRoomFragmentSpirv,
                                             kRoom)),
      obstacle_(pipeline::createGraphicsPipeline(device, obstacleLayout_.get(), renderPass, kObstacleVertexSpirv,
                                                 kObstacleFragmentSpirv, kObstacle)) {}

void BoxPipeline::cmdDraw(VkCommandBuffer cmd, VkExtent2D extent, const shaderio::BoxPushConstants& constants,
                          bool room) const {
  pipeline::cmdSetFullViewport(cmd, extent);
  shaderio::BoxPushConstants push = constants;
  if (room) { // the same 112 bytes read as RoomPushConstants: colour is the eye and the opacity
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, room_.get());
    vkCmdPushConstants(cmd, layout_.get(), kPushStages, 0, sizeof(push), &push);
    vkCmdDraw(cmd, kRoomVertices, 1, 0, 0);
  }
  push.colour = glm::vec4(kBoxEdgeColour[0], kBoxEdgeColour[1], kBoxEdgeColour[2], 1.0f);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, edges_.get());
  vkCmdPushConstants(cmd, layout_.get(), kPushStages, 0, sizeof(push), &push);
  vkCmdDraw(cmd, kEdgeVertices, 1, 0, 0);
}

void BoxPipeline::cmdDrawObstacle(VkCommandBuffer cmd, const shaderio::ObstaclePushConstants& constants) const {
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, obstacle_.get());
  vkCmdPushConstants(cmd, obstacleLayout_.get(), kPushStages, 0, sizeof(constants), &constants);
  vkCmdDraw(cmd, 4, 1, 0, 0);
}

} // namespace graphsim::render
