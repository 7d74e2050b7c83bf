#include "render/camera.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace graphsim::render {

namespace {
// lookAt degenerates when the view direction is parallel to world up: keep the orbit just short of the poles.
constexpr float kMaxPitchDeg = 89.0f;
constexpr glm::vec3 kWorldUp{0.0f, 1.0f, 0.0f};
} // namespace

glm::vec3 Camera::eye() const {
  const float yaw = glm::radians(yawDeg);
  const float pitch = glm::radians(std::clamp(pitchDeg, -kMaxPitchDeg, kMaxPitchDeg));
  const glm::vec3 direction{std::cos(pitch) * std::sin(yaw), std::sin(pitch), std::cos(pitch) * std::cos(yaw)};
  return target + direction * distance;
}

glm::mat4 Camera::view() const { return glm::lookAtRH(eye(), target, kWorldUp); }

glm::mat4 Camera::projection(float aspect) const {
  // Near/far follow the orbit distance so depth precision suits any scene scale; D32_SFLOAT keeps 1e4 ratio easy.
  const float nearPlane = std::max(distance * 0.01f, 1e-4f);
  const float farPlane = distance * 100.0f + 1.0f;
  // perspectiveRH_ZO gives Vulkan's 0..1 depth without GLM_FORCE_DEPTH_ZERO_TO_ONE, a macro every translation unit
  // would have to agree on.
  glm::mat4 projection = glm::perspectiveRH_ZO(glm::radians(fovYDeg), aspect, nearPlane, farPlane);
  projection[1][1] *= -1.0f; // Vulkan clip space has +y pointing down
  return projection;
}

} // namespace graphsim::render
