// The scene box: its 12 edges as an opaque line list (depth tested and written, 1 pixel wide: lavapipe has no wide
// lines) and an optional faint floor quad at y = min (alpha blended, depth tested, not written). No vertex buffer:
// shaders/box.vert makes the corners from gl_VertexIndex and the box in the push constants.
#pragma once

#include <vulkan/vulkan.h>

#include "render/camera.h"
#include "render/vk_handle.h"
#include "shaders/particle_layout.h"

namespace graphsim::render {

// The box and the view-projection for the target's aspect; colour is set per draw.
shaderio::BoxPushConstants makeBoxPushConstants(const Camera& camera, const Box& box, VkExtent2D extent);

class BoxPipeline {
public:
  BoxPipeline(VkDevice device, VkRenderPass renderPass);

  // Inside the render pass: sets viewport/scissor to `extent`, draws the floor (when `floor`) and then the edges.
  // Draw it before the particles: the floor writes no depth, so they cover it; the edges are depth tested.
  void cmdDraw(VkCommandBuffer cmd, VkExtent2D extent, const shaderio::BoxPushConstants& constants, bool floor) const;

private:
  OwnedPipelineLayout layout_;
  OwnedPipeline edges_; // destroyed before their layout
  OwnedPipeline floor_;
};

} // namespace graphsim::render
