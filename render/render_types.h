// The renderer's plain types: how it is configured and what one frame's submit asks for. No Vulkan header, so the
// renderer's parts and its callers include this rather than the façade (render/particle_renderer.h) when the types
// are all they need.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "compute/errors.h"
#include "render/camera.h"
#include "render/throttle_wait.h"

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
  ThrottleWait throttleWait = ThrottleWait::Block; // the frames-in-flight throttle's host wait (throttle_wait.h)
};

// The colour map from a body's attribute (times DrawStyle::colourScale, clamped to [0, 1]) to its base colour, which
// the sphere shading then scales (ambient + Lambert, 0.16 .. ~1.0) without changing its hue. Linear RGB, piecewise
// linear through three stops at 0, 0.5 and 1 (shaders/particle.frag; the values are its GRAPHSIM_PALETTE_*):
enum class Palette : int {
  NBody = 0, // cool blue (0.22, 0.45, 1) -> white (1, 0.97, 0.92) -> warm orange (1, 0.52, 0.1)
  Fluid = 1, // deep blue (0.02, 0.1, 0.45) -> cyan (0.1, 0.8, 1) -> white (1, 1, 1)
};

struct DrawStyle {
  float pointRadius = 0.02f; // world-space sphere radius (the fluid's particle radius, e.g. 0.005 m, as is)
  float colourScale = 1.0f;  // multiplies the per-body colour attribute before the colour map
  Palette palette = Palette::NBody;
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
  // Scene bounds, drawn as the box's 12 edges in kBoxEdgeColour (depth tested, 1 pixel wide) over a faint floor
  // quad at y = box->min.y (when boxFloor); nullopt: no box (n-body).
  std::optional<Box> box;
  bool boxFloor = true;
};

// Opaque linear RGB of the box's edges, and the floor's colour blended over the background with kBoxFloorAlpha.
inline constexpr float kBoxEdgeColour[3] = {0.45f, 0.45f, 0.45f};
inline constexpr float kBoxFloorColour[3] = {0.45f, 0.5f, 0.6f};
inline constexpr float kBoxFloorAlpha = 0.12f;

} // namespace graphsim::render
