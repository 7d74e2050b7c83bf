// Draws the bodies as shaded sphere impostors (and, when a frame asks, the scene box: FrameSubmit::box) into an
// offscreen colour+depth target and reads frames back to PNG.
// Holds F body buffers (one per frame in flight) and two timeline semaphores, whose values compute/protocol.h gives:
//   simDone    - signalled by the producer (CUDA), waited on at the vertex-input stage of frame k;
//   renderDone - signalled by this renderer's queue submit of frame k.
// The façade: its plain types are in render/render_types.h, the PNG encoder in render/png.h.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "compute/interop.h"
#include "compute/protocol.h"
#include "render/png.h" // encodePng, for the callers that capture through the façade
#include "render/render_types.h"
#include "render/swapchain.h"
#include "render/vulkan_context.h"

namespace graphsim::render {

// Draws extra content into a frame after the particles, inside the renderer's render pass (renderPass(), subpass 0,
// one sample, colour R8G8B8A8_UNORM + depth D32_SFLOAT): the ImGui panel, via ImGui_ImplVulkan_RenderDrawData.
// Implemented by app/; called from submit() while it records, so it only has to outlive that call. Whatever GPU
// resources it uses must stay alive until the frame's renderDone (ImGui keeps one vertex buffer set per frame in
// flight when its ImageCount >= framesInFlight).
class OverlayRecorder {
public:
  virtual ~OverlayRecorder() = default;
  virtual void cmdDrawOverlay(VkCommandBuffer cmd) = 0;
};

class ParticleRenderer {
public:
  ParticleRenderer(VulkanContext& context, const RendererConfig& config);
  ~ParticleRenderer(); // waits (bounded) for the queue before destroying
  ParticleRenderer(const ParticleRenderer&) = delete;
  ParticleRenderer& operator=(const ParticleRenderer&) = delete;

  const RendererConfig& config() const;
  // The pass every frame is drawn in, for pipelines that draw into it too (ImGui_ImplVulkan_InitInfo / Init).
  VkRenderPass renderPass() const;
  // The protocol of config().framesInFlight frames; slotOf(k) is its slot(k).
  const FrameProtocol& protocol() const;
  std::uint32_t slotOf(std::uint64_t frame) const;

  // Frames-in-flight throttle: waits until renderDone >= renderDoneWaited(frame), i.e. the frame that last used
  // slotOf(frame) finished. Host wait on a value Vulkan signals (never on a CUDA-signalled value: see docs). Throws
  // TimeoutError.
  void waitForSlot(std::uint64_t frame);
  // HostVisible mode: the mapped body buffer of a slot (maxBodies * 4 floats), coherent. Staged mode: the slot's
  // mapped staging buffer, copied to the vertex buffer by the slot's next submit.
  float* mappedBodies(std::uint32_t slot);
  // Exported mode: new fds for every body buffer (in slot order) and both semaphores, with what the importer needs
  // to map them; the caller owns the fds (compute/interop.h). std::logic_error in the other modes.
  InteropDesc exportInterop();

  // Records and submits frame k drawing slotOf(k). Signals renderDone = renderDoneSignalled(k).
  void submit(const FrameSubmit& frame);
  // Waits for renderDone >= value (bounded by config().waitTimeout; throws TimeoutError naming the frame).
  // std::logic_error when no submitted frame signals that value.
  void waitRenderDone(std::uint64_t value);
  std::uint64_t renderDoneValue() const; // current counter value (vkGetSemaphoreCounterValue)

  // After submit(capture = true) for frame k: waits for it and returns RGBA8 pixels (width*height*4, top row first).
  std::vector<std::uint8_t> finishCapture(std::uint64_t frame);
  // The same into `out`, reusing its memory when it already has the size (captures in a loop: no page faults).
  void finishCapture(std::uint64_t frame, std::vector<std::uint8_t>& out);
  // Render GPU time of the last completed frame in ms (timestamp queries), or negative when unsupported.
  double lastRenderGpuMs() const;
  // The same frame's time by pass (render_types.h); all negative when unsupported.
  RenderPassTimes lastRenderPassTimes() const;
  // Host time the last submit() spent in vkQueueSubmit itself, in microseconds (the rest is recording).
  double lastQueueSubmitUs() const;

  // Waits (bounded) until the queue is idle: before the producer's semaphores or memory go away.
  void drain();
  // Drains, then renders later frames at width x height (the window's new framebuffer size). Body buffers,
  // semaphores and the render pass stay, so the producer and any overlay pipeline are unaffected.
  void resize(std::uint32_t width, std::uint32_t height);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace graphsim::render
