#include "app/scenes/scene_config.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/base/errors.h"
#include "app/base/input_file.h"
#include "app/base/json_reader.h"

namespace graphsim::app {
namespace {

using nlohmann::json;

void applyRender(RenderSettings& s, const JsonReader& r) {
  r.allowOnly({"width", "height", "point_radius", "camera", "mode", "smoothing_radius", "smoothing_iterations",
               "absorption", "foam"});
  r.integer("width", s.width, kMinImageSize, kMaxImageSize);
  r.integer("height", s.height, kMinImageSize, kMaxImageSize);
  r.number("point_radius", s.pointRadius, 1e-5, 10.0);
  std::string mode = render::renderModeName(s.mode);
  r.oneOf("mode", mode, {"particles", "surface"});
  s.mode = mode == "surface" ? render::RenderMode::Surface : render::RenderMode::Particles;
  r.number("smoothing_radius", s.surface.smoothingRadius, render::kMinSmoothingRadius, render::kMaxSmoothingRadius);
  r.integer("smoothing_iterations", s.surface.smoothingIterations, 0, render::kMaxSmoothingIterations);
  r.number("foam", s.surface.foam, 0.0, 1.0);
  if (r.has("absorption")) {
    float absorption[3] = {s.surface.absorption.r, s.surface.absorption.g, s.surface.absorption.b};
    r.vec3("absorption", absorption, 0.0, render::kMaxAbsorption);
    s.surface.absorption = glm::vec3(absorption[0], absorption[1], absorption[2]);
  }
  if (r.has("camera")) {
    const JsonReader c = r.child("camera");
    c.allowOnly({"yaw", "pitch", "distance", "target", "fov"});
    c.number("yaw", s.camera.yawDeg, -360.0, 360.0);
    c.number("pitch", s.camera.pitchDeg, -89.0, 89.0);
    c.number("distance", s.camera.distance, 1e-3, 1e6);
    c.number("fov", s.camera.fovYDeg, 5.0, 150.0);
    if (c.has("target")) {
      float target[3] = {s.camera.target.x, s.camera.target.y, s.camera.target.z};
      c.vec3("target", target, -1e6, 1e6);
      s.camera.target = glm::vec3(target[0], target[1], target[2]);
    }
    s.cameraGiven = true;
  }
}

// Finds the first integer literal too large for 64 bits (nlohmann turns it into a double, so a range message
// could only show 1.8446744073709552e+19) and remembers its key path and its text as typed.
class HugeIntegerFinder : public json::json_sax_t {
public:
  std::string path, text; // of the first one found; text empty when none

  bool null() override { return next(); }
  bool boolean(bool) override { return next(); }
  bool number_integer(number_integer_t) override { return next(); }
  bool number_unsigned(number_unsigned_t) override { return next(); }
  bool number_float(number_float_t, const string_t& typed) override {
    const bool integerShaped = typed.find_first_not_of("-0123456789") == std::string::npos;
    if (integerShaped && text.empty()) {
      path = here();
      text = typed;
    }
    return next();
  }
  bool string(string_t&) override { return next(); }
  bool binary(binary_t&) override { return next(); }
  bool start_object(std::size_t) override {
    levels_.push_back({false, {}, 0});
    return true;
  }
  bool key(string_t& key) override {
    levels_.back().key = key;
    return true;
  }
  bool end_object() override {
    levels_.pop_back();
    return next();
  }
  bool start_array(std::size_t) override {
    levels_.push_back({true, {}, 0});
    return true;
  }
  bool end_array() override {
    levels_.pop_back();
    return next();
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

private:
  struct Level {
    bool array;
    std::string key;
    std::size_t index;
  };
  std::vector<Level> levels_;

  bool next() { // a value ended: the next one in an array has the next index
    if (!levels_.empty() && levels_.back().array) ++levels_.back().index;
    return true;
  }
  std::string here() const {
    std::string p;
    for (const Level& l : levels_) p += l.array ? "[" + std::to_string(l.index) + "]" : (p.empty() ? "" : ".") + l.key;
    return p;
  }
};

// An integer literal over 64 bits is out of range for every key: refused with the text as typed (exit 2).
void refuseHugeIntegers(const std::string& text, const std::string& name) {
  HugeIntegerFinder finder;
  json::sax_parse(text, &finder, json::input_format_t::json, false);
  if (!finder.text.empty())
    throw UsageError(name + ": " + (finder.path.empty() ? std::string("top level") : finder.path) + " " +
                     shownText(finder.text) + " is out of range (it does not fit 64 bits; no key takes it)");
}

} // namespace

void applyJson(SceneSettings& settings, const json& doc, std::string_view source) {
  const Scene& scene = findScene(settings.scene);
  const JsonReader r(doc, std::string(source), "");
  std::vector<std::string_view> allowed = {"scene"};
  for (std::string_view key : scene.jsonKeys()) allowed.push_back(key);
  allowed.emplace_back("render");
  r.allowOnly(allowed);
  std::string name = settings.scene;
  r.string("scene", name);
  if (name != settings.scene)
    r.fail("scene", "is " + shownJson(json(name)) + " but this run's scene is '" + settings.scene + "'");
  scene.applyJson(settings, r);
  if (r.has("render")) applyRender(settings.render, r.child("render"));
}

void applyConfigFile(SceneSettings& settings, const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  const std::string name = fileNamedBy("--config", path.string());
  const std::string text = readInputFile(path, name, 1 << 20, "a JSON file");
  const json doc = parseJsonFile(text, name);
  refuseHugeIntegers(text, name);
  applyJson(settings, doc, name);
}

void checkBodyCount(std::int64_t bodies, std::uint32_t framesInFlight, const std::string& flag) {
  if (bodies < 1) throw UsageError(flag + ": must be at least 1, got " + std::to_string(bodies));
  if (bodies > kMaxBodies)
    throw UsageError(flag + ": " + std::to_string(bodies) + " exceeds the maximum of " + std::to_string(kMaxBodies));
  // Host memory the CPU path needs per body: posMass, vel, accel (float4 each), colour, the render buffers and
  // the initial-condition temporaries. Refuse before allocating rather than dying in the allocator.
  checkHostMemory(bodies, 16.0 * 3 + 4 + 16.0 * framesInFlight + 64, flag, "bodies");
}

void checkHostMemory(std::int64_t count, double bytesPerElement, const std::string& flag, std::string_view noun) {
  const double bytes = static_cast<double>(count) * bytesPerElement;
  const double physical =
      static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGE_SIZE));
  if (physical > 0 && bytes > 0.5 * physical)
    throw UsageError(flag + ": " + std::to_string(count) + " " + std::string(noun) + " need about " +
                     std::to_string(static_cast<long long>(bytes / (1 << 20))) +
                     " MiB, more than half of this machine's " +
                     std::to_string(static_cast<long long>(physical / (1 << 20))) + " MiB");
}

} // namespace graphsim::app
