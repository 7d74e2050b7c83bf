// Orbit camera: yaw/pitch/distance around a target point. Plain data plus the matrix it implies.
#pragma once

#include <glm/glm.hpp>

namespace graphsim::render {

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

} // namespace graphsim::render
