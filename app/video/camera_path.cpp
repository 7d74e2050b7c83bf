#include "app/video/camera_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "app/base/errors.h"
#include "app/base/input_file.h"
#include "app/base/json_reader.h"

namespace graphsim::app {
namespace {

using nlohmann::json;

constexpr double kMaxTime = 1e6;      // seconds: 11 days of video
constexpr double kMaxYaw = 36000;     // degrees: a hundred turns either way
constexpr double kMaxPitch = 89;      // as render/camera.h clamps it
constexpr double kMinDistance = 1e-3; // as a scene file's render.camera.distance
constexpr double kMaxDistance = 1e6;
constexpr double kMaxTarget = 1e6;
constexpr std::uintmax_t kMaxFileBytes = 1 << 20;

constexpr const char* kShape =
    "a keyframe is {\"time\": s, \"yaw\": deg, \"pitch\": deg, \"distance\": d, "
    "\"target\": [x, y, z]}";

CameraKeyframe readKeyframe(const JsonReader& r) {
  r.allowOnly({"time", "yaw", "pitch", "distance", "target"});
  for (const char* key : {"time", "yaw", "pitch", "distance", "target"})
    if (!r.has(key)) r.fail(key, std::string("is missing (") + kShape + ")");
  CameraKeyframe k;
  k.time = r.checkedDouble(r.at("time"), "time", 0, kMaxTime); // double: close times stay apart
  k.values[0] = r.checkedNumber(r.at("yaw"), "yaw", -kMaxYaw, kMaxYaw);
  k.values[1] =
      r.checkedNumber(r.at("pitch"), "pitch", -kMaxPitch, kMaxPitch, "the orbit camera stops short of the poles");
  k.values[2] = r.checkedNumber(r.at("distance"), "distance", kMinDistance, kMaxDistance);
  float target[3] = {};
  r.vec3("target", target, -kMaxTarget, kMaxTarget);
  for (int i = 0; i < 3; ++i) k.values[3 + static_cast<std::size_t>(i)] = target[i];
  return k;
}

// Fritsch-Butland: the weighted harmonic mean of the neighbouring secants where they agree in sign, else 0. Keeps
// the curve within each pair of neighbouring values (no overshoot). Zero at the ends: the camera eases in and out.
std::vector<std::array<double, 6>> monotoneSlopes(const std::vector<CameraKeyframe>& keys) {
  std::vector<std::array<double, 6>> slopes(keys.size());
  for (std::size_t i = 1; i + 1 < keys.size(); ++i) {
    const double h0 = keys[i].time - keys[i - 1].time, h1 = keys[i + 1].time - keys[i].time;
    for (std::size_t f = 0; f < 6; ++f) {
      const double d0 = (keys[i].values[f] - keys[i - 1].values[f]) / h0;
      const double d1 = (keys[i + 1].values[f] - keys[i].values[f]) / h1;
      slopes[i][f] = d0 * d1 <= 0 ? 0 : 3 * (h0 + h1) / ((2 * h1 + h0) / d0 + (h1 + 2 * h0) / d1);
    }
  }
  return slopes;
}

} // namespace

CameraPath::CameraPath(std::vector<CameraKeyframe> keys, double framesPerSecond)
    : keys_(std::move(keys)), framesPerSecond_(framesPerSecond) {
  if (keys_.empty()) throw std::invalid_argument("CameraPath: no keyframes");
  if (!(framesPerSecond_ > 0)) throw std::invalid_argument("CameraPath: frames per second must be > 0");
  for (std::size_t i = 1; i < keys_.size(); ++i)
    if (!(keys_[i].time > keys_[i - 1].time)) throw std::invalid_argument("CameraPath: times must increase");
  slopes_ = monotoneSlopes(keys_);
}

render::Camera CameraPath::at(double seconds, const render::Camera& base) const {
  std::array<double, 6> v{};
  if (seconds <= keys_.front().time) {
    v = keys_.front().values;
  } else if (seconds >= keys_.back().time) {
    v = keys_.back().values;
  } else {
    // The segment [i, i + 1] holding `seconds`: the last keyframe at or before it.
    const auto after = std::upper_bound(keys_.begin(), keys_.end(), seconds,
                                        [](double t, const CameraKeyframe& k) { return t < k.time; });
    const auto i = static_cast<std::size_t>(after - keys_.begin()) - 1;
    const double h = keys_[i + 1].time - keys_[i].time, s = (seconds - keys_[i].time) / h;
    const double s2 = s * s, s3 = s2 * s;
    const double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    for (std::size_t f = 0; f < 6; ++f)
      v[f] = h00 * keys_[i].values[f] + h10 * h * slopes_[i][f] + h01 * keys_[i + 1].values[f] +
             h11 * h * slopes_[i + 1][f];
  }
  render::Camera camera = base;
  camera.yawDeg = static_cast<float>(v[0]);
  camera.pitchDeg = static_cast<float>(v[1]);
  camera.distance = static_cast<float>(v[2]);
  camera.target = glm::vec3(static_cast<float>(v[3]), static_cast<float>(v[4]), static_cast<float>(v[5]));
  return camera;
}

CameraPath parseCameraPath(const json& doc, const std::string& source, double framesPerSecond) {
  if (!doc.is_array() || doc.empty())
    throw UsageError(source + ": top level must be a non-empty array of keyframes (" + kShape + "), got " +
                     shownJson(doc));
  std::vector<CameraKeyframe> keys;
  keys.reserve(doc.size());
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const std::string where = "[" + std::to_string(i) + "]";
    if (!doc[i].is_object())
      throw UsageError(source + ": " + where + " must be an object (" + kShape + "), got " + shownJson(doc[i]));
    const JsonReader r(doc[i], source, where);
    CameraKeyframe k = readKeyframe(r);
    if (!keys.empty() && !(k.time > keys.back().time))
      r.fail("time", shownJson(doc[i].at("time")) + " must be greater than [" + std::to_string(i - 1) + "].time " +
                         shownJson(doc[i - 1].at("time")) + " (times increase strictly)");
    keys.push_back(k);
  }
  return CameraPath(std::move(keys), framesPerSecond);
}

CameraPath loadCameraPath(const std::filesystem::path& file, double framesPerSecond) {
  const std::string name = "--camera-path " + shownText(file.string(), kShownPathLimit);
  const json doc = parseJsonFile(readInputFile(file, name, kMaxFileBytes, "a JSON file"), name);
  return parseCameraPath(doc, name, framesPerSecond);
}

} // namespace graphsim::app
