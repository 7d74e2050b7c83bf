// Fuzz target: camera paths (`--camera-path FILE`, app/video/camera_path.h). The first byte picks the frames per
// second (1..240, as --video-fps); the rest is the file. A path that loads is then evaluated at frames spread over
// its length and at every keyframe's frame, and each pose is checked against what camera_path.h promises: finite,
// and every field within its neighbouring keyframes' values (so the pitch stays within +-89 degrees and the distance
// positive). A broken promise aborts like a crash.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "app/video/camera_path.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using graphsim::app::CameraKeyframe;
using graphsim::app::CameraPath;

// Float rounding of the result (and of the spline's sums) may cross a bound by a few ulps.
bool within(double v, double a, double b) {
  const double lo = std::min(a, b), hi = std::max(a, b);
  const double slack = 1e-5 * std::max({std::abs(lo), std::abs(hi), 1e-30});
  return v >= lo - slack && v <= hi + slack;
}

void checkPose(const CameraPath& path, std::uint64_t frame) {
  const graphsim::render::Camera base;
  const graphsim::render::Camera c = path.atFrame(frame, base);
  const double values[6] = {c.yawDeg, c.pitchDeg, c.distance, c.target.x, c.target.y, c.target.z};
  const double seconds = static_cast<double>(frame) / path.framesPerSecond();
  const auto& keys = path.keyframes();
  // The segment holding `seconds` (before the first or after the last keyframe: that keyframe alone).
  std::size_t i = 0;
  while (i + 1 < keys.size() && keys[i + 1].time <= seconds) ++i;
  const CameraKeyframe& a = keys[i];
  const CameraKeyframe& b = seconds > a.time && i + 1 < keys.size() ? keys[i + 1] : a;
  for (std::size_t f = 0; f < 6; ++f) {
    if (std::isfinite(values[f]) && within(values[f], a.values[f], b.values[f])) continue;
    std::fprintf(stderr, "camera path: frame %llu (%.17g s) field %zu = %.9g, outside [%.17g, %.17g]\n",
                 static_cast<unsigned long long>(frame), seconds, f, values[f], a.values[f], b.values[f]);
    std::abort();
  }
  if (c.fovYDeg != base.fovYDeg) {
    std::fprintf(stderr, "camera path: frame %llu changed the field of view\n", static_cast<unsigned long long>(frame));
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphsim;
  if (size == 0) return 0;
  const double fps = 1 + data[0] % 240;
  const std::filesystem::path& file = fuzz::inputFile(std::span(data + 1, size - 1));
  fuzz::refusalsOnly([&] {
    const CameraPath path = app::loadCameraPath(file, fps);
    const auto& keys = path.keyframes();
    const double lastFrame = std::ceil(keys.back().time * fps) + 1; // times are at most 1e6 s: exact in double
    for (int s = 0; s <= 64; ++s) checkPose(path, static_cast<std::uint64_t>(lastFrame * s / 64));
    for (std::size_t k = 0; k < std::min<std::size_t>(keys.size(), 64); ++k) {
      const auto frame = static_cast<std::uint64_t>(keys[k].time * fps);
      checkPose(path, frame);
      checkPose(path, frame + 1);
    }
  });
  return 0;
}
