// The camera path's curve (exact at keyframes, held outside them, smooth, never past its neighbouring keyframes,
// easing at the ends) and its refusals, in-process (the CLI's words for whole files: video_cli_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "app/base/errors.h"
#include "app/video/camera_path.h"
#include "tests/video/video_test_support.h"

namespace graphsim::test {
namespace {

using app::CameraKeyframe;
using app::CameraPath;
using nlohmann::json;

CameraKeyframe key(double time, double yaw, double pitch, double distance, double tx = 0) {
  CameraKeyframe k;
  k.time = time;
  k.values = {yaw, pitch, distance, tx, 0, 0};
  return k;
}

const CameraPath kPath({key(0, 0, 10, 9), key(2, 90, 40, 5, 1), key(3, 180, 40, 6), key(5, 360, -20, 6)}, 60);

TEST(CameraPath, PassesThroughEveryKeyframe) {
  render::Camera base;
  base.fovYDeg = 70;
  for (const CameraKeyframe& k : kPath.keyframes()) {
    const render::Camera c = kPath.at(k.time, base);
    EXPECT_FLOAT_EQ(c.yawDeg, static_cast<float>(k.values[0]));
    EXPECT_FLOAT_EQ(c.pitchDeg, static_cast<float>(k.values[1]));
    EXPECT_FLOAT_EQ(c.distance, static_cast<float>(k.values[2]));
    EXPECT_FLOAT_EQ(c.target.x, static_cast<float>(k.values[3]));
    EXPECT_FLOAT_EQ(c.fovYDeg, 70) << "the field of view is the scene's";
  }
}

TEST(CameraPath, HoldsTheEndsOutsideTheKeyframes) {
  const render::Camera before = kPath.at(-1, {}), after = kPath.at(100, {});
  EXPECT_FLOAT_EQ(before.yawDeg, 0);
  EXPECT_FLOAT_EQ(before.distance, 9);
  EXPECT_FLOAT_EQ(after.yawDeg, 360);
  EXPECT_FLOAT_EQ(after.pitchDeg, -20);
}

TEST(CameraPath, FramesAreTimesAtItsRate) {
  const CameraPath path({key(0, 0, 0, 5), key(1, 100, 0, 5)}, 30);
  EXPECT_FLOAT_EQ(path.atFrame(15, {}).yawDeg, path.at(0.5, {}).yawDeg);
  EXPECT_FLOAT_EQ(path.atFrame(30, {}).yawDeg, 100);
}

// Between two keyframes each field stays between their values (monotone Hermite: no overshoot), so a pitch near the
// limit stays in range and a distance stays positive.
TEST(CameraPath, NeverOvershootsItsNeighbours) {
  const CameraPath path({key(0, 0, 0, 10), key(1, 10, 89, 0.01), key(1.1, 350, 89, 0.01), key(4, 360, -89, 50)}, 60);
  const auto& keys = path.keyframes();
  for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
    for (int step = 0; step <= 100; ++step) {
      const double t = keys[i].time + (keys[i + 1].time - keys[i].time) * step / 100.0;
      const render::Camera c = path.at(t, {});
      const float values[3] = {c.yawDeg, c.pitchDeg, c.distance};
      for (int f = 0; f < 3; ++f) {
        const double lo = std::min(keys[i].values[f], keys[i + 1].values[f]);
        const double hi = std::max(keys[i].values[f], keys[i + 1].values[f]);
        EXPECT_GE(values[f], lo - 1e-3) << "field " << f << " at t = " << t;
        EXPECT_LE(values[f], hi + 1e-3) << "field " << f << " at t = " << t;
      }
    }
  }
}

// C1: the slope just before an inner keyframe equals the slope just after it; zero at the first and last.
TEST(CameraPath, IsSmoothAndEasesAtTheEnds) {
  const double h = 1e-4;
  const auto slope = [&](double t) { return (kPath.at(t + h, {}).yawDeg - kPath.at(t - h, {}).yawDeg) / (2 * h); };
  for (double t : {2.0, 3.0}) {
    const double left = (kPath.at(t, {}).yawDeg - kPath.at(t - h, {}).yawDeg) / h;
    const double right = (kPath.at(t + h, {}).yawDeg - kPath.at(t, {}).yawDeg) / h;
    EXPECT_NEAR(left, right, 0.05 * std::max(1.0, std::abs(left))) << "at t = " << t;
    EXPECT_GT(slope(t), 0) << "yaw keeps turning through an inner keyframe";
  }
  EXPECT_NEAR((kPath.at(h, {}).yawDeg - kPath.at(0, {}).yawDeg) / h, 0, 0.05);
  EXPECT_NEAR((kPath.at(5, {}).yawDeg - kPath.at(5 - h, {}).yawDeg) / h, 0, 0.05);
}

TEST(CameraPath, OneKeyframeIsAStillCamera) {
  const CameraPath still({key(2, 45, 30, 7)}, 60);
  for (double t : {0.0, 2.0, 9.0}) EXPECT_FLOAT_EQ(still.at(t, {}).yawDeg, 45);
}

std::string refusal(const std::string& text) {
  try {
    app::parseCameraPath(json::parse(text), "path.json", 60);
  } catch (const app::UsageError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(CameraPath, RefusesWhatIsNotAPath) {
  EXPECT_CONTAINS(refusal("5"), "path.json: top level must be a non-empty array of keyframes");
  EXPECT_CONTAINS(refusal("[1]"), "path.json: [0] must be an object");
  EXPECT_CONTAINS(refusal(R"([{"time": 0, "yaw": 0, "pitch": 0, "distance": 5}])"), "[0].target is missing");
  EXPECT_CONTAINS(refusal(R"([{"time": "0", "yaw": 0, "pitch": 0, "distance": 5, "target": [0, 0, 0]}])"),
                  "[0].time must be a number, got string");
  EXPECT_CONTAINS(refusal(R"([{"time": -1, "yaw": 0, "pitch": 0, "distance": 5, "target": [0, 0, 0]}])"),
                  "[0].time must be in [0, 1e+06], got -1");
  EXPECT_CONTAINS(refusal(R"([{"time": 0, "yaw": 1e9, "pitch": 0, "distance": 5, "target": [0, 0, 0]}])"),
                  "[0].yaw must be in [-36000, 36000]");
  EXPECT_CONTAINS(refusal(R"([{"time": 2, "yaw": 0, "pitch": 0, "distance": 5, "target": [0, 0, 0]},
                          {"time": 1, "yaw": 0, "pitch": 0, "distance": 5, "target": [0, 0, 0]}])"),
                  "path.json: [1].time 1 must be greater than [0].time 2 (times increase strictly)");
  EXPECT_EQ(refusal(R"([{"time": 0, "yaw": 0, "pitch": 0, "distance": 5, "target": [0, 0, 0]}])"), "accepted");
}

// Times are compared as read (double): two that one float would merge still increase (issue 31: they were refused).
TEST(CameraPath, TimesCloserThanAFloatStillIncrease) {
  const std::string key = R"(, "yaw": 0, "pitch": 0, "distance": 5, "target": [0, 0, 0]})";
  EXPECT_EQ(refusal("[{\"time\": 1.00000001" + key + ", {\"time\": 1.00000002" + key + "]"), "accepted");
  EXPECT_CONTAINS(refusal("[{\"time\": 1.00000002" + key + ", {\"time\": 1.00000001" + key + "]"),
                  "[1].time 1.00000001 must be greater than [0].time 1.00000002");
}

} // namespace
} // namespace graphsim::test
