// Draws the bodies as shaded sphere impostors into an offscreen colour+depth target and reads frames back to PNG.
// Holds F body buffers (one per frame in flight) and two timeline semaphores:
//   simDone    - signalled by the producer (CUDA), waited on at the vertex-input stage of frame k (value k+1);
//   renderDone - signalled by this renderer's queue submit of frame k (value k+1).
#pragma once

#include <vulkan/vulkan.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "render/camera.h"
#include "render/swapchain.h"
#include "render/vulkan_context.h"

namespace graphsim::render {

// A host wait ran out: names what was waited on and for which frame.
struct TimeoutError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class BodyBufferMode {
  HostVisible, // mapped, written by the CPU backend
  Exported,    // device-local, exported as OPAQUE_FD for CUDA
  Staged,      // device-local, filled at the start of each frame's commands from a mapped staging buffer
               // (vkCmdCopyBuffer): the no-interop path `graphsim bench` compares with (host-copy)
};

struct RendererConfig {
  std::uint32_t width = 1280;
  std::uint32_t height = 720;
  std::uint32_t maxBodies = 0;       // capacity of each body buffer (16 bytes per body: x, y, z, colour)
  std::uint32_t framesInFlight = 3;  // 1..4
  BodyBufferMode mode = BodyBufferMode::HostVisible;
  std::chrono::milliseconds waitTimeout{5000};
};

// Plain data handed to compute/ for import. The fd belongs to the receiver (CUDA takes ownership on import).
struct ExportedMemory {
  int fd = -1;
  std::uint64_t allocationSize = 0; // VkMemoryAllocateInfo::allocationSize (what CUDA must import)
  std::uint64_t offset = 0;         // buffer offset inside the allocation
  std::uint64_t bufferSize = 0;
  bool dedicated = false;
};

struct DrawStyle {
  float pointRadius = 0.02f; // world-space sphere radius
  float colourScale = 1.0f;  // multiplies the per-body colour attribute before the colour map
};

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

struct FrameSubmit {
  std::uint64_t frame = 0;             // k; signals renderDone = k+1
  std::uint32_t bodyCount = 0;
  Camera camera;
  DrawStyle style;
  std::optional<std::uint64_t> waitSimDone; // wait simDone >= value at vertex input (CUDA backend: k+1)
  bool capture = false;                // copy this frame to the readback buffer (see finishCapture)
  OverlayRecorder* overlay = nullptr;  // not owned; nullptr: particles only
  // Windowed: blit the finished frame into this swapchain image (waiting for its acquire, signalling renderFinished).
  const PresentTarget* present = nullptr;
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
  std::uint32_t slotOf(std::uint64_t frame) const;

  // Frames-in-flight throttle: waits until renderDone >= frame - F + 1, i.e. the frame that last used slotOf(frame)
  // finished. Host wait on a value Vulkan signals (never on a CUDA-signalled value: see docs). Throws TimeoutError.
  void waitForSlot(std::uint64_t frame);
  // HostVisible mode: the mapped body buffer of a slot (maxBodies * 4 floats), coherent. Staged mode: the slot's
  // mapped staging buffer, copied to the vertex buffer by the slot's next submit.
  float* mappedBodies(std::uint32_t slot);
  // Exported mode: a new fd for a slot's buffer memory, and for the semaphores.
  ExportedMemory exportBodies(std::uint32_t slot);
  int exportSimDoneFd();
  int exportRenderDoneFd();

  // Records and submits frame k drawing slotOf(k). Signals renderDone = k+1.
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

// Encodes RGBA8 pixels (width x height, top row first) as a PNG file's bytes. Throws std::invalid_argument when
// rgba is not width * height * 4 bytes. Writing them is the caller's (graphsim: app/io/output_file.h).
std::vector<std::uint8_t> encodePng(const std::vector<std::uint8_t>& rgba, std::uint32_t width,
                                    std::uint32_t height);

} // namespace graphsim::render
