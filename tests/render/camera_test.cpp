// Orbit camera conventions: Vulkan clip space (y down, depth 0..1).
#include <gtest/gtest.h>

#include <cmath>

#include "render/camera.h"

namespace graphsim::render {
namespace {

glm::vec3 toNdc(const Camera& camera, glm::vec3 world) {
  const glm::vec4 clip = camera.projection(1.0f) * camera.view() * glm::vec4(world, 1.0f);
  return glm::vec3(clip) / clip.w;
}

TEST(Camera, TargetProjectsToTheCentreWithDepthInZeroOne) {
  Camera camera;
  camera.target = {1.0f, 2.0f, 3.0f};
  const glm::vec3 ndc = toNdc(camera, camera.target);
  EXPECT_NEAR(ndc.x, 0.0f, 1e-5f);
  EXPECT_NEAR(ndc.y, 0.0f, 1e-5f);
  EXPECT_GT(ndc.z, 0.0f);
  EXPECT_LT(ndc.z, 1.0f);
}

TEST(Camera, WorldUpIsUpOnScreenAndNearerIsSmallerDepth) {
  Camera camera;
  camera.pitchDeg = 0.0f;
  const glm::vec3 above = toNdc(camera, {0.0f, 1.0f, 0.0f});
  EXPECT_LT(above.y, 0.0f) << "Vulkan NDC y points down: a point above the target is in the upper half";
  const glm::vec3 nearer = toNdc(camera, camera.eye() * 0.5f);
  EXPECT_LT(nearer.z, toNdc(camera, camera.target).z);
}

TEST(Camera, EyeIsAtDistanceAndSurvivesThePoles) {
  Camera camera;
  camera.distance = 4.0f;
  camera.pitchDeg = 90.0f; // clamped just short of the pole so lookAt stays defined
  EXPECT_NEAR(glm::length(camera.eye() - camera.target), 4.0f, 1e-4f);
  const glm::mat4 view = camera.view();
  for (int c = 0; c < 4; ++c) {
    for (int r = 0; r < 4; ++r) {
      EXPECT_TRUE(std::isfinite(view[c][r]));
    }
  }
}

} // namespace
} // namespace graphsim::render
