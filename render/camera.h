// Orbit camera: yaw/pitch/distance around a target point. Plain data plus the matrix it implies.
#pragma once

#include <glm/glm.hpp>

namespace graphsim::render {

// An axis-aligned box in world units (min <= max per axis): a scene's bounds, e.g. the fluid's [0, boxSize].
struct Box {
  glm::vec3 min{0.0f};
  glm::vec3 max{1.0f};
};

struct Camera {
  float yawDeg = 30.0f;
  float pitchDeg = 35.0f;
  float distance = 9.0f;
  glm::vec3 target{0.0f};
  float fovYDeg = 45.0f;

  glm::vec3 eye() const;
  glm::mat4 view() const;
  glm::mat4 projection(float aspect) const; // Vulkan clip space (y down, depth 0..1)
};

// The three-quarter view of a box used when a scene with bounds starts: from the front (+z), right (+x) and above
// (+y) — yaw kFrameBoxYawDeg, pitch kFrameBoxPitchDeg — looking at the box's centre, at the smallest distance that
// keeps all 8 corners inside the central kFrameBoxFill of the viewport on both axes (a margin of 5 % of the
// viewport per side), whatever the aspect (width / height, > 0) and the box's shape. Default fovYDeg.
// std::invalid_argument for a non-positive or non-finite aspect, or a box with min > max or non-finite corners.
inline constexpr float kFrameBoxYawDeg = 35.0f;
inline constexpr float kFrameBoxPitchDeg = 25.0f;
inline constexpr float kFrameBoxFill = 0.9f;
Camera frameBox(const Box& box, float aspect);

} // namespace graphsim::render
