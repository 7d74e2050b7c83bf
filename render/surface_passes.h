// The screen-space liquid surface (RenderMode::Surface; after van der Laan, Green and Sainz, I3D 2009, and Green,
// GDC 2010). A frame in this mode records, before the renderer's own pass:
//   scene      the room, box and obstacle into a scene colour image and depth;
//   thickness  every sphere's chord, and the chord times its colour attribute (foam), added up per pixel (RG16F),
//              depth tested against the scene;
//   depth      the front-most sphere surface's eye depth (R32F), depth tested and written;
//   smoothing  a separable narrow-range filter over that depth, `iterations` x (horizontal, vertical), compute;
// and then, inside the renderer's pass, the shading: a full-screen triangle that composites the liquid (normals from
// the smoothed depth, Fresnel between a sky and the refracted scene, Beer-Lambert over the thickness, a highlight)
// over the scene image. The images are shared by the frames in flight: each use is ordered after the last one by
// explicit barriers (the render passes here change no layouts). Internal to render/.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <optional>

#include "render/camera.h"
#include "render/render_types.h"
#include "render/vk_handle.h"
#include "render/vk_memory.h"
#include "render/vulkan_context.h"
#include "shaders/particle_layout.h"

namespace graphsim::render {

// The spheres of the surface passes are this many times the particles' draw radius: overlapping spheres leave no
// holes between neighbours for the smoothing to fill.
inline constexpr float kSurfaceSphereScale = 1.5f;

// What the passes draw with, for one frame.
struct SurfaceFrame {
  VkBuffer bodies = VK_NULL_HANDLE;
  std::uint32_t bodyCount = 0;
  Camera camera;
  float pointRadius = 0.0f;
  SurfaceStyle style;
};

class SurfacePasses {
public:
  // `mainPass` is the renderer's pass, which the shading pipeline draws in.
  SurfacePasses(const VulkanContext& context, VkExtent2D extent, VkRenderPass mainPass);
  // New images of another size (the GPU no longer uses the old ones: the renderer drained).
  void resize(const VulkanContext& context, VkExtent2D extent);

  // Outside any render pass: begins the scene pass (cleared to the background); the caller draws the scenery and
  // ends it with cmdEndScene.
  void cmdBeginScene(VkCommandBuffer cmd) const;
  // Ends the scene pass; then thickness, depth and smoothing, writing timestamps firstQuery + 0, 1, 2 after each
  // (none when `timestamps` is null).
  void cmdLiquid(VkCommandBuffer cmd, const SurfaceFrame& frame, VkQueryPool timestamps,
                 std::uint32_t firstQuery) const;
  // Inside the renderer's pass: the liquid over the scene image.
  void cmdComposite(VkCommandBuffer cmd, const SurfaceFrame& frame) const;

private:
  struct Images {
    Attachment sceneColour, sceneDepth, thickness, eyeDepth, smoothed;
    OwnedFramebuffer sceneFramebuffer, thicknessFramebuffer, depthFramebuffer;
  };
  void createImages(const VulkanContext& context);
  void writeDescriptors() const;
  void cmdBeginPass(VkCommandBuffer cmd, VkRenderPass pass, VkFramebuffer framebuffer) const;
  void cmdLiquidBarriers(VkCommandBuffer cmd) const;
  void cmdDrawSpheres(VkCommandBuffer cmd, const SurfaceFrame& frame, VkPipeline pipeline) const;
  void cmdSmooth(VkCommandBuffer cmd, const SurfaceFrame& frame) const;

  VkDevice device_;
  VkExtent2D extent_;
  OwnedRenderPass scenePass_, thicknessPass_, depthPass_;
  OwnedSampler linear_, nearest_;
  OwnedDescriptorSetLayout smoothSetLayout_, compositeSetLayout_;
  OwnedDescriptorPool pool_;
  VkDescriptorSet smoothSets_[2] = {}; // eyeDepth -> smoothed, smoothed -> eyeDepth
  VkDescriptorSet compositeSet_ = VK_NULL_HANDLE;
  OwnedPipelineLayout sphereLayout_, smoothLayout_, compositeLayout_;
  OwnedPipeline thicknessPipeline_, depthPipeline_, smoothPipeline_, compositePipeline_;
  std::optional<Images> images_; // reset destroys in reverse order: framebuffers, then views, images, memory
};

} // namespace graphsim::render
