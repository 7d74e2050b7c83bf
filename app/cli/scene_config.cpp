#include "app/cli/scene_config.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <span>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/cli/errors.h"
#include "app/embedded_presets.h"

namespace graphsim::app {
namespace {

using nlohmann::json;

// A value for an error message. Never dump() an array or object: dump() recurses once per nesting level, and a
// hostile file of nested brackets within the 1 MiB limit overflowed the stack (a crash instead of exit 2).
std::string shown(const json& v) {
  if (v.is_array()) return "an array of " + std::to_string(v.size());
  if (v.is_object()) return "an object";
  std::string text = v.dump();
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

// Walks one JSON object with a key path for messages; every read checks type and range.
class Reader {
public:
  Reader(const json& object, std::string source, std::string path)
      : object_(object), source_(std::move(source)), path_(std::move(path)) {
    if (!object_.is_object()) fail("", "must be a JSON object");
  }

  // Rejects keys outside `allowed` so that a typo is an error, not a silently ignored setting.
  void allowOnly(std::initializer_list<std::string_view> allowed) const {
    allowOnly(std::span<const std::string_view>(allowed.begin(), allowed.size()));
  }
  void allowOnly(std::span<const std::string_view> allowed) const {
    for (const auto& [key, value] : object_.items()) {
      bool known = false;
      for (auto a : allowed) known = known || key == a;
      if (!known) {
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(key, "is not a known key (allowed: " + list + ")");
      }
    }
  }

  bool has(std::string_view key) const { return object_.contains(key); }
  const json& at(std::string_view key) const { return object_.at(std::string(key)); }
  std::string keyPath(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }

  // why: said after the range when a bound is not obvious.
  void number(std::string_view key, float& out, double lo, double hi, std::string_view why = {}) const {
    if (!has(key)) return;
    out = checkedNumber(at(key), key, lo, hi, why);
  }
  float checkedNumber(const json& v, std::string_view key, double lo, double hi, std::string_view why = {}) const {
    if (!v.is_number()) fail(key, "must be a number, got " + std::string(v.type_name()));
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < lo || d > hi)
      fail(key, "must be in [" + fmt(lo) + ", " + fmt(hi) + "], got " + shown(v) +
                    (why.empty() ? "" : "; " + std::string(why)));
    return static_cast<float>(d);
  }
  template <class Int>
  void integer(std::string_view key, Int& out, std::int64_t lo, std::int64_t hi) const {
    if (!has(key)) return;
    const json& v = at(key);
    if (!v.is_number_integer()) fail(key, "must be an integer, got " + shown(v));
    // A large unsigned value does not fit int64: compare it as unsigned first (hi is never negative here).
    const bool ok = v.is_number_unsigned()
                        ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(hi) && v.get<std::int64_t>() >= lo
                        : v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
    if (!ok)
      fail(key, "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + shown(v));
    out = static_cast<Int>(v.get<std::int64_t>());
  }
  void unsignedInteger(std::string_view key, std::uint64_t& out) const {
    if (!has(key)) return;
    const json& v = at(key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
      fail(key, "must be a non-negative integer, got " + shown(v));
    out = v.get<std::uint64_t>();
  }
  void string(std::string_view key, std::string& out) const {
    if (!has(key)) return;
    if (!at(key).is_string()) fail(key, "must be a string, got " + shown(at(key)));
    out = at(key).get<std::string>();
  }
  void boolean(std::string_view key, bool& out) const {
    if (!has(key)) return;
    if (!at(key).is_boolean()) fail(key, "must be true or false, got " + shown(at(key)));
    out = at(key).get<bool>();
  }
  Reader child(std::string_view key) const { return Reader(at(key), source_, keyPath(key)); }

  [[noreturn]] void fail(std::string_view key, const std::string& what) const {
    const std::string where = key.empty() ? (path_.empty() ? std::string("top level") : path_) : keyPath(key);
    throw UsageError(source_ + ": " + where + " " + what);
  }

private:
  static std::string fmt(double d) {
    std::ostringstream s;
    s << d;
    return s.str();
  }
  const json& object_;
  std::string source_;
  std::string path_;
};

void applyParams(NBodyParams& p, const Reader& r) {
  r.allowOnly(
      {"dt", "G", "softening", "damping", "attractor_strength", "attractor_pos", "boundary_radius", "colour_scale"});
  r.number("dt", p.dt, 1e-7, 0.1);
  r.number("G", p.G, 0.0, 1e3);
  r.number("softening", p.softening, kMinSoftening, 10.0,
           "a smaller softening lets close encounters give unbounded accelerations (the run blows up)");
  r.number("damping", p.damping, 0.0, 100.0);
  r.number("attractor_strength", p.attractorStrength, -1e3, 1e3);
  r.number("boundary_radius", p.boundaryRadius, 1e-3, 1e6);
  r.number("colour_scale", p.colourScale, 0.0, 1e3);
  if (r.has("attractor_pos")) {
    const json& v = r.at("attractor_pos");
    if (!v.is_array() || v.size() != 3) r.fail("attractor_pos", "must be an array of 3 numbers, got " + shown(v));
    for (int i = 0; i < 3; ++i)
      p.attractorPos[i] = r.checkedNumber(v[static_cast<std::size_t>(i)], "attractor_pos", -1e6, 1e6);
  }
}

void applyStages(std::array<bool, kStageCount>& enabled, const Reader& r) {
  const Reader stages = r.child("stages");
  stages.allowOnly(kStageNames);
  for (const StageInfo& row : kStages) {
    bool on = enabled[static_cast<std::size_t>(row.stage)];
    stages.boolean(row.name, on);
    if (!on && !row.togglable()) stages.fail(row.name, "cannot be disabled: " + std::string(row.whyNotTogglable));
    enabled[static_cast<std::size_t>(row.stage)] = on;
  }
}

void applyRender(RenderSettings& s, const Reader& r) {
  r.allowOnly({"width", "height", "point_radius", "camera"});
  r.integer("width", s.width, kMinImageSize, kMaxImageSize);
  r.integer("height", s.height, kMinImageSize, kMaxImageSize);
  r.number("point_radius", s.pointRadius, 1e-5, 10.0);
  if (r.has("camera")) {
    const Reader c = r.child("camera");
    c.allowOnly({"yaw", "pitch", "distance", "target", "fov"});
    c.number("yaw", s.camera.yawDeg, -360.0, 360.0);
    c.number("pitch", s.camera.pitchDeg, -89.0, 89.0);
    c.number("distance", s.camera.distance, 1e-3, 1e6);
    c.number("fov", s.camera.fovYDeg, 5.0, 150.0);
    if (c.has("target")) {
      const json& v = c.at("target");
      if (!v.is_array() || v.size() != 3) c.fail("target", "must be an array of 3 numbers, got " + shown(v));
      for (int i = 0; i < 3; ++i)
        s.camera.target[i] = c.checkedNumber(v[static_cast<std::size_t>(i)], "target", -1e6, 1e6);
    }
  }
}

} // namespace

std::vector<std::string> sceneNames() {
  std::vector<std::string> names;
  for (const auto& preset : kEmbeddedPresets) names.emplace_back(preset.name);
  return names;
}

SceneSettings loadPreset(std::string_view scene) {
  for (const auto& preset : kEmbeddedPresets) {
    if (preset.name != scene) continue;
    SceneSettings settings;
    applyJson(settings, json::parse(preset.json), "preset " + std::string(scene));
    return settings;
  }
  std::string list;
  for (const auto& name : sceneNames()) list += (list.empty() ? "" : ", ") + name;
  throw UsageError("--scene: unknown scene '" + std::string(scene) + "' (available: " + list + ")");
}

void applyJson(SceneSettings& settings, const json& doc, std::string_view source) {
  const Reader r(doc, std::string(source), "");
  r.allowOnly({"scene", "initial", "bodies", "seed", "substeps", "params", "stages", "render"});
  std::string scene = settings.sim.scene;
  r.string("scene", scene);
  if (scene != settings.sim.scene)
    r.fail("scene", "is " + shown(json(scene)) + " but this run's scene is '" + settings.sim.scene + "'");
  r.string("initial", settings.sim.initial);
  if (settings.sim.initial != "galaxy-pair" && settings.sim.initial != "plummer" && settings.sim.initial != "two-body")
    r.fail("initial", "must be one of galaxy-pair, plummer, two-body; got " + shown(json(settings.sim.initial)));
  r.integer("bodies", settings.sim.bodies, 1, kMaxBodies);
  r.unsignedInteger("seed", settings.sim.seed);
  r.integer("substeps", settings.sim.substeps, 1, kMaxSubsteps);
  if (r.has("params")) applyParams(settings.sim.params, r.child("params"));
  if (r.has("stages")) applyStages(settings.sim.enabled, r);
  if (r.has("render")) applyRender(settings.render, r.child("render"));
}

void applyConfigFile(SceneSettings& settings, const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  const std::string name = "--config " + path.string();
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw UsageError(name + ": no such file");
  if (fs::is_directory(status)) throw UsageError(name + ": is a directory, expected a JSON file");
  if (!fs::is_regular_file(status)) throw UsageError(name + ": not a regular file");
  const auto size = fs::file_size(path, ec);
  constexpr std::uintmax_t kMaxConfigBytes = 1 << 20;
  if (ec || size > kMaxConfigBytes) throw UsageError(name + ": larger than 1 MiB, not a scene file");
  std::ifstream in(path, std::ios::binary);
  if (!in || ::access(path.c_str(), R_OK) != 0) throw UsageError(name + ": cannot be read (permission denied?)");
  std::stringstream text;
  text << in.rdbuf();
  json doc;
  try {
    // A key given twice is a mistake JSON parsers settle silently (the last one wins): refuse it like a typo.
    std::vector<std::vector<std::string>> keysSeen; // per open object
    doc = json::parse(text.str(), [&](int, json::parse_event_t event, json& parsed) {
      if (event == json::parse_event_t::object_start) keysSeen.emplace_back();
      if (event == json::parse_event_t::object_end) keysSeen.pop_back();
      if (event == json::parse_event_t::key && !keysSeen.empty()) {
        std::vector<std::string>& keys = keysSeen.back();
        const std::string key = parsed.get<std::string>();
        if (std::find(keys.begin(), keys.end(), key) != keys.end())
          throw UsageError(name + ": key " + shown(json(key)) + " appears twice in one object");
        keys.push_back(key);
      }
      return true;
    });
  } catch (const json::exception& e) { // parse_error, and out_of_range for numbers like 1e400
    throw UsageError(name + ": not valid JSON: " + e.what());
  }
  applyJson(settings, doc, name);
}

void checkBodyCount(std::int64_t bodies, std::uint32_t framesInFlight) {
  if (bodies < 1) throw UsageError("--bodies: must be at least 1, got " + std::to_string(bodies));
  if (bodies > kMaxBodies)
    throw UsageError("--bodies: " + std::to_string(bodies) + " exceeds the maximum of " + std::to_string(kMaxBodies));
  // Host memory the CPU path needs per body: posMass, vel, accel (float4 each), colour, the render buffers and
  // the initial-condition temporaries. Refuse before allocating rather than dying in the allocator.
  const double bytes = static_cast<double>(bodies) * (16.0 * 3 + 4 + 16.0 * framesInFlight + 64);
  const double physical =
      static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * static_cast<double>(::sysconf(_SC_PAGE_SIZE));
  if (physical > 0 && bytes > 0.5 * physical)
    throw UsageError("--bodies: " + std::to_string(bodies) + " bodies need about " +
                     std::to_string(static_cast<long long>(bytes / (1 << 20))) +
                     " MiB, more than half of this machine's " +
                     std::to_string(static_cast<long long>(physical / (1 << 20))) + " MiB");
}

} // namespace graphsim::app
