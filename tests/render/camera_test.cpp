// Orbit camera conventions: Vulkan clip space (y down, depth 0..1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

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

// frameBox: every corner of the box inside the viewport with the documented margin, for boxes and aspects of
// several shapes; and no farther than needed (some corner reaches the margin).
struct Framing {
  float maxAbsNdc = 0.0f; // over the 8 corners and both axes
  bool depthsInZeroOne = true;
};

Framing framing(const Box& box, float aspect) {
  const Camera camera = frameBox(box, aspect);
  const glm::mat4 viewProj = camera.projection(aspect) * camera.view();
  Framing result;
  for (int bits = 0; bits < 8; ++bits) {
    const glm::vec3 corner{(bits & 1) != 0 ? box.max.x : box.min.x, (bits & 2) != 0 ? box.max.y : box.min.y,
                           (bits & 4) != 0 ? box.max.z : box.min.z};
    const glm::vec4 clip = viewProj * glm::vec4(corner, 1.0f);
    const glm::vec3 ndc = glm::vec3(clip) / clip.w;
    result.maxAbsNdc = std::max({result.maxAbsNdc, std::abs(ndc.x), std::abs(ndc.y)});
    result.depthsInZeroOne = result.depthsInZeroOne && clip.w > 0.0f && ndc.z > 0.0f && ndc.z < 1.0f;
  }
  return result;
}

TEST(FrameBox, KeepsAllCornersInsideTheViewportWithAMargin) {
  const Box boxes[] = {
      {{0.0f, 0.0f, 0.0f}, {1.0f, 1.0f, 1.0f}},       // the fluid's default box
      {{0.0f, 0.0f, 0.0f}, {4.0f, 0.5f, 1.0f}},       // long and flat (a channel)
      {{0.0f, 0.0f, 0.0f}, {0.2f, 2.0f, 0.2f}},       // tall and thin (a column)
      {{0.0f, 0.0f, 0.0f}, {0.05f, 0.03f, 0.4f}},     // small and deep
      {{-12.0f, 3.0f, -7.0f}, {-10.0f, 5.5f, -6.0f}}, // away from the origin
      {{1.0f, 1.0f, 1.0f}, {1.0f, 1.0f, 1.0f}},       // a point
  };
  for (const Box& box : boxes) {
    for (const float aspect : {0.4f, 1.0f, 16.0f / 9.0f, 3.0f}) {
      const Framing f = framing(box, aspect);
      SCOPED_TRACE(testing::Message() << "box (" << box.min.x << ", " << box.min.y << ", " << box.min.z << ") .. ("
                                      << box.max.x << ", " << box.max.y << ", " << box.max.z << "), aspect " << aspect);
      EXPECT_LE(f.maxAbsNdc, kFrameBoxFill + 1e-4f) << "a corner is outside the framed part of the viewport";
      EXPECT_TRUE(f.depthsInZeroOne) << "a corner is behind the eye or outside the depth range";
      if (box.max != box.min) {
        EXPECT_GE(f.maxAbsNdc, kFrameBoxFill - 1e-3f) << "the camera is farther than it needs to be";
      }
    }
  }
}

TEST(FrameBox, LooksAtTheCentreFromTheFrontRightAbove) {
  const Box box{{0.0f, 0.0f, 0.0f}, {2.0f, 1.0f, 1.0f}};
  const Camera camera = frameBox(box, 16.0f / 9.0f);
  const glm::vec3 centre{1.0f, 0.5f, 0.5f};
  EXPECT_NEAR(glm::length(camera.target - centre), 0.0f, 1e-6f);
  const glm::vec3 eye = camera.eye();
  EXPECT_GT(eye.x, box.max.x);
  EXPECT_GT(eye.y, box.max.y);
  EXPECT_GT(eye.z, box.max.z);
  EXPECT_GT(eye.z - centre.z, eye.x - centre.x) << "three-quarter view: more front than side";
}

TEST(FrameBox, RefusesBadArguments) {
  const Box unit{};
  EXPECT_THROW(frameBox(unit, 0.0f), std::invalid_argument);
  EXPECT_THROW(frameBox(unit, -1.0f), std::invalid_argument);
  EXPECT_THROW(frameBox(unit, std::nanf("")), std::invalid_argument);
  EXPECT_THROW(frameBox({{0.0f, 2.0f, 0.0f}, {1.0f, 1.0f, 1.0f}}, 1.0f), std::invalid_argument);
  EXPECT_THROW(frameBox({{0.0f, 0.0f, 0.0f}, {INFINITY, 1.0f, 1.0f}}, 1.0f), std::invalid_argument);
}

} // namespace
} // namespace graphsim::render
