// The renderer's plain types: how it is configured and what one frame's submit asks for. No Vulkan header, so the
// renderer's parts and its callers include this rather than the façade (render/particle_renderer.h) when the types
// are all they need.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include <glm/glm.hpp>

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

// How the particles are drawn (docs/FLUID.md, "Rendering").
enum class RenderMode : int {
  Particles = 0, // shaded sphere impostors, one per particle (the debugging view)
  Surface = 1,   // a screen-space liquid surface over them (render/surface_passes.h)
};

// The name a scene file's render.mode and the panel use.
inline const char* renderModeName(RenderMode mode) { return mode == RenderMode::Surface ? "surface" : "particles"; }

// The screen-space surface's look (RenderMode::Surface). Defaults are the scene file's and the panel's.
struct SurfaceStyle {
  // The depth smoothing: a separable narrow-range filter (Truong and Yuksel 2018) whose half-width is this many sphere
  // radii, projected to pixels at each pixel's depth, run this many times (each a horizontal and a vertical pass).
  float smoothingRadius = 3.0f;
  int smoothingIterations = 2;
  // Beer-Lambert absorption per metre of liquid, per channel (linear RGB): light behind a thickness t keeps
  // exp(-absorption * t). Water's tint: red goes first.
  glm::vec3 absorption{6.0f, 1.8f, 0.9f};
  // Foam: where the liquid's mean colour attribute (the fluid's speed, scaled by its colour scale into [0, 1]) along
  // a pixel's ray passes 0.6, its colour turns towards white, at most this much (0: no foam).
  float foam = 0.6f;
  bool operator==(const SurfaceStyle&) const = default;
};
inline constexpr float kMinSmoothingRadius = 0.0f, kMaxSmoothingRadius = 10.0f;
inline constexpr int kMaxSmoothingIterations = 8;
inline constexpr float kMaxAbsorption = 100.0f;

// A solid sphere drawn lit and depth-correct in both modes (the fluid's obstacle).
struct Sphere {
  glm::vec3 centre{0.0f};
  float radius = 0.0f;
  bool operator==(const Sphere&) const = default;
};

// The render GPU time of one frame by pass, in ms (timestamps around each; negative when the device has none).
// In particle mode the surface's passes are zero and `scene` holds everything the one pass draws.
struct RenderPassTimes {
  double total = -1.0;
  double scene = -1.0;     // the room, box, obstacle (surface mode: into the scene image)
  double thickness = -1.0; // additive sphere chords
  double depth = -1.0;     // front-most sphere depth
  double smoothing = -1.0; // the depth filter's passes
  double shading = -1.0;   // the composite (and the overlay, blit and particle draw of the last pass)
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
  // Scene bounds, drawn as the box's 12 edges in kBoxEdgeColour (depth tested, 1 pixel wide) over its room (when
  // boxFloor: the floor and the far walls, lit, with a grid every 0.1 m; render/box_pipeline.h); nullopt: no box
  // (n-body).
  std::optional<Box> box;
  bool boxFloor = true;
  std::optional<Sphere> obstacle; // drawn lit and depth-correct; nullopt: none
  RenderMode mode = RenderMode::Particles;
  SurfaceStyle surface; // used when mode is Surface
};

// Opaque linear RGB of the box's edges.
inline constexpr float kBoxEdgeColour[3] = {0.45f, 0.45f, 0.45f};

} // namespace graphsim::render
