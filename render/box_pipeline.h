// What a scene draws around its particles: the box's 12 edges as an opaque line list (depth tested and written,
// 1 pixel wide: lavapipe has no wide lines), optionally its room (floor and far walls, lit, with a grid; blended
// over the background, depth not written), and an obstacle sphere (ray traced, lit, depth written from the hit). No
// vertex buffers: the shaders make their corners from gl_VertexIndex and the push constants.
#pragma once

#include <vulkan/vulkan.h>

#include "render/camera.h"
#include "render/render_types.h"
#include "render/vk_handle.h"
#include "shaders/particle_layout.h"

namespace graphsim::render {

// The box and the view-projection for the target's aspect; colour is set per draw.
shaderio::BoxPushConstants makeBoxPushConstants(const Camera& camera, const Box& box, VkExtent2D extent);
shaderio::ObstaclePushConstants makeObstaclePushConstants(const Camera& camera, const Sphere& sphere,
                                                          VkExtent2D extent);

// The room's opacity over the background.
inline constexpr float kRoomOpacity = 0.35f;

class BoxPipeline {
public:
  BoxPipeline(VkDevice device, VkRenderPass renderPass);

  // Inside the render pass: sets viewport/scissor to `extent`, draws the room (when `room`) and then the edges.
  // Draw it first: the room is blended over the background.
  void cmdDraw(VkCommandBuffer cmd, VkExtent2D extent, const shaderio::BoxPushConstants& constants, bool room) const;
  // Inside the render pass (viewport already set): the sphere.
  void cmdDrawObstacle(VkCommandBuffer cmd, const shaderio::ObstaclePushConstants& constants) const;

private:
  OwnedPipelineLayout layout_;         // box and room: 112 bytes of push constants
  OwnedPipelineLayout obstacleLayout_; // 128 bytes
  OwnedPipeline edges_;                // the pipelines are destroyed before their layouts
  OwnedPipeline room_;
  OwnedPipeline obstacle_;
};

} // namespace graphsim::render
