// --camera-path FILE: orbit keyframes that drive the camera, frame by frame, for videos made without a mouse.
//
//   [{"time": 0, "yaw": 30, "pitch": 35, "distance": 9, "target": [0, 0, 0]},
//    {"time": 5, "yaw": 210, "pitch": 10, "distance": 6, "target": [0, 0.5, 0]}, ...]
//
// time in seconds (>= 0, strictly increasing), yaw and pitch in degrees (the orbit camera's, render/camera.h: pitch
// within [-89, 89]; yaw is not wrapped, so 0 -> 720 turns twice), distance in scene units, target a point. Frame k
// is at time k / fps, fps being --video-fps with --video and 60 without.
//
// Each field is interpolated on its own by a monotone cubic Hermite spline (Fritsch-Butland slopes): smooth (C1),
// and never beyond its neighbouring keyframes' values, so a pitch stays within range and a distance positive. The
// camera eases in at the first keyframe and out at the last (zero velocity there), holds the first pose before the
// first time and the last pose after the last. The field of view is the scene's.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "render/camera.h"

namespace graphsim::app {

struct CameraKeyframe {
  double time = 0; // seconds
  // yaw (deg), pitch (deg), distance, target x, y, z: the fields interpolated
  std::array<double, 6> values{};
};

class CameraPath {
public:
  // keys: at least one, times strictly increasing (as parseCameraPath checks); std::invalid_argument otherwise.
  CameraPath(std::vector<CameraKeyframe> keys, double framesPerSecond);

  // The camera at `seconds`: `base` with the path's yaw, pitch, distance and target (its fov stays).
  render::Camera at(double seconds, const render::Camera& base) const;
  render::Camera atFrame(std::uint64_t frame, const render::Camera& base) const {
    return at(static_cast<double>(frame) / framesPerSecond_, base);
  }
  const std::vector<CameraKeyframe>& keyframes() const { return keys_; }
  double framesPerSecond() const { return framesPerSecond_; }

private:
  std::vector<CameraKeyframe> keys_;
  std::vector<std::array<double, 6>> slopes_; // per keyframe, per field: d value / d time
  double framesPerSecond_;
};

// The keyframes of a document, checked: every message is "SOURCE: [i].key what is wrong" (UsageError, exit 2).
CameraPath parseCameraPath(const nlohmann::json& doc, const std::string& source, double framesPerSecond);
// Reads and parses FILE (a regular file up to 1 MiB of JSON; a key given twice in one object is refused). Messages
// start "--camera-path FILE: ".
CameraPath loadCameraPath(const std::filesystem::path& file, double framesPerSecond);

} // namespace graphsim::app
