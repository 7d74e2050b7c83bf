// The graphics pipeline that draws each body as an instanced, camera-facing quad shaded as a sphere impostor.
// Host/shader layouts come from shaders/particle_layout.h; the SPIR-V is embedded at build time.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "render/camera.h"
#include "render/vk_handle.h"
#include "shaders/particle_layout.h"

namespace graphsim::render {

struct DrawStyle;

// Push constants for one frame: view-projection for the target's aspect and the camera's right/up in world space.
shaderio::ParticlePushConstants makePushConstants(const Camera& camera, const DrawStyle& style, VkExtent2D extent);

class ParticlePipeline {
public:
  ParticlePipeline(VkDevice device, VkRenderPass renderPass);

  // Inside the render pass: sets viewport/scissor to `extent`, binds the pipeline and `bodies` as the per-instance
  // vertex buffer, and draws bodyCount instances of a 4-vertex strip.
  void cmdDraw(VkCommandBuffer cmd, VkExtent2D extent, VkBuffer bodies, std::uint32_t bodyCount,
               const shaderio::ParticlePushConstants& constants) const;

private:
  OwnedPipelineLayout layout_;
  OwnedPipeline pipeline_; // destroyed before its layout
};

} // namespace graphsim::render
