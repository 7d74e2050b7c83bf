// Dear ImGui (Debian's 1.86) drawn by Vulkan into the renderer's pass, on top of the particles: the panel in a
// window and in headless runs alike. Owns the ImGui context, the Vulkan backend's objects and its descriptor pool.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "app/ui/window.h"
#include "render/particle_renderer.h"
#include "render/vk_handle.h"

namespace graphsim::app {

class ImGuiLayer final : public render::OverlayRecorder {
public:
  // framesInFlight: the backend keeps one vertex/index buffer set per frame in flight (ImageCount), so a set is
  // rewritten only after the frame that used it reached renderDone.
  ImGuiLayer(const render::VulkanContext& context, VkRenderPass renderPass, std::uint32_t framesInFlight,
             Window& window, std::chrono::milliseconds timeout);
  // The caller drained the renderer first: frames in flight may still read the backend's buffers.
  ~ImGuiLayer() override;
  ImGuiLayer(const ImGuiLayer&) = delete;
  ImGuiLayer& operator=(const ImGuiLayer&) = delete;

  void beginFrame(); // platform + Vulkan backend new frame, ImGui::NewFrame
  void endFrame();   // ImGui::Render: the draw data cmdDrawOverlay records
  void cmdDrawOverlay(VkCommandBuffer cmd) override;

private:
  void uploadFonts(const render::VulkanContext& context, std::chrono::milliseconds timeout);

  Window& window_;
  render::OwnedDescriptorPool descriptorPool_;
  bool backendReady_ = false;
};

} // namespace graphsim::app
