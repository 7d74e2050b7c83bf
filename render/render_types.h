// The renderer's plain types: how it is configured and what one frame's submit asks for. No Vulkan header, so the
// renderer's parts and its callers include this rather than the façade (render/particle_renderer.h) when the types
// are all they need.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "compute/errors.h"
#include "render/camera.h"

namespace graphsim::render {

enum class BodyBufferMode {
  HostVisible, // mapped, written by the CPU backend
  Exported,    // device-local, exported as OPAQUE_FD for CUDA
  Staged,      // device-local, filled at the start of each frame's commands from a mapped staging buffer
               // (vkCmdCopyBuffer): the no-interop path `graphsim bench` compares with (host-copy)
};

struct RendererConfig {
  std::uint32_t width = 1280;
  std::uint32_t height = 720;
  std::uint32_t maxBodies = 0;      // capacity of each body buffer (16 bytes per body: x, y, z, colour)
  std::uint32_t framesInFlight = 3; // 1..kMaxFramesInFlight (compute/protocol.h)
  BodyBufferMode mode = BodyBufferMode::HostVisible;
  std::chrono::milliseconds waitTimeout{5000};
};

struct DrawStyle {
  float pointRadius = 0.02f; // world-space sphere radius
  float colourScale = 1.0f;  // multiplies the per-body colour attribute before the colour map
};

class OverlayRecorder; // render/particle_renderer.h
struct PresentTarget;  // render/swapchain.h

struct FrameSubmit {
  std::uint64_t frame = 0; // k; signals renderDone = renderDoneSignalled(k)
  std::uint32_t bodyCount = 0;
  Camera camera;
  DrawStyle style;
  std::optional<std::uint64_t> waitSimDone; // wait simDone >= value at vertex input (CUDA: simDoneSignalled(k))
  bool capture = false;                     // copy this frame to the readback buffer (see finishCapture)
  OverlayRecorder* overlay = nullptr;       // not owned; nullptr: particles only
  // Windowed: blit the finished frame into this swapchain image (waiting for its acquire, signalling renderFinished).
  const PresentTarget* present = nullptr;
};

} // namespace graphsim::render
