#include "render/camera.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

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

namespace {

void checkFramable(const Box& box, float aspect) {
  if (!(aspect > 0.0f) || !std::isfinite(aspect)) {
    throw std::invalid_argument("frameBox: aspect must be positive and finite, got " + std::to_string(aspect));
  }
  for (int axis = 0; axis < 3; ++axis) {
    if (!std::isfinite(box.min[axis]) || !std::isfinite(box.max[axis]) || box.min[axis] > box.max[axis]) {
      throw std::invalid_argument("frameBox: box axis " + std::to_string(axis) + " spans [" +
                                  std::to_string(box.min[axis]) + ", " + std::to_string(box.max[axis]) +
                                  "]: need finite min <= max");
    }
  }
}

} // namespace

Camera frameBox(const Box& box, float aspect) {
  checkFramable(box, aspect);
  Camera camera;
  camera.yawDeg = kFrameBoxYawDeg;
  camera.pitchDeg = kFrameBoxPitchDeg;
  camera.target = 0.5f * (box.min + box.max);
  // The camera's axes do not depend on the distance: take them from a unit orbit.
  camera.distance = 1.0f;
  const glm::mat4 rotation = camera.view();
  const float tanY = std::tan(glm::radians(camera.fovYDeg) * 0.5f);
  const float tanX = tanY * aspect;
  // A corner at (right, up, towards the eye) = (x, y, z) relative to the target lies at view depth distance - z;
  // it is inside the fill when |x| <= fill * tanX * (distance - z), and the same for y. Also keep every corner at
  // least a tenth of the distance in front of the eye, far beyond the near plane (1 % of the distance).
  float distance = 1e-3f + glm::length(box.max - box.min) * 1e-3f;
  for (int corner = 0; corner < 8; ++corner) {
    const glm::vec3 world{(corner & 1) != 0 ? box.max.x : box.min.x, (corner & 2) != 0 ? box.max.y : box.min.y,
                          (corner & 4) != 0 ? box.max.z : box.min.z};
    const glm::vec3 v = glm::vec3(rotation * glm::vec4(world - camera.target, 0.0f));
    const float towardsEye = v.z; // view space looks down -z
    distance = std::max(distance, towardsEye + std::abs(v.x) / (kFrameBoxFill * tanX));
    distance = std::max(distance, towardsEye + std::abs(v.y) / (kFrameBoxFill * tanY));
    distance = std::max(distance, towardsEye / 0.9f);
  }
  camera.distance = distance;
  return camera;
}

} // namespace graphsim::render
