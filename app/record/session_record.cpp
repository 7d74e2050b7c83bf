#include "app/record/session_record.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "app/base/errors.h"
#include "app/base/input_file.h"
#include "app/base/json_reader.h"
#include "app/io/output_file.h"

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{1} << 30; // a session of hours with checkpoints is far less
constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(const void* data, std::size_t size) {
  const auto* in = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  for (std::size_t i = 0; i < size; i += 3) {
    const unsigned b0 = in[i], b1 = i + 1 < size ? in[i + 1] : 0u, b2 = i + 2 < size ? in[i + 2] : 0u;
    const unsigned triple = (b0 << 16) | (b1 << 8) | b2;
    out += kBase64[(triple >> 18) & 63];
    out += kBase64[(triple >> 12) & 63];
    out += i + 1 < size ? kBase64[(triple >> 6) & 63] : '=';
    out += i + 2 < size ? kBase64[triple & 63] : '=';
  }
  return out;
}

// False for a character outside the alphabet or a length that is not a multiple of 4.
bool unbase64(const std::string& text, std::vector<unsigned char>& out) {
  if (text.size() % 4 != 0) return false;
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  out.clear();
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int j = 0; j < 4; ++j) {
      const char c = text[i + static_cast<std::size_t>(j)];
      if (c == '=' && i + 4 == text.size() && j >= 2) {
        v[j] = 0;
        ++pad;
      } else if ((v[j] = value(c)) < 0 || pad > 0) {
        return false;
      }
    }
    const unsigned triple = (unsigned(v[0]) << 18) | (unsigned(v[1]) << 12) | (unsigned(v[2]) << 6) | unsigned(v[3]);
    out.push_back(static_cast<unsigned char>(triple >> 16));
    if (pad < 2) out.push_back(static_cast<unsigned char>((triple >> 8) & 255));
    if (pad < 1) out.push_back(static_cast<unsigned char>(triple & 255));
  }
  return true;
}

ordered_json cameraJson(const render::Camera& c) {
  return {{"yaw", c.yawDeg},
          {"pitch", c.pitchDeg},
          {"distance", c.distance},
          {"target", {c.target.x, c.target.y, c.target.z}},
          {"fov", c.fovYDeg}};
}

render::Camera readCamera(const JsonReader& r) {
  r.allowOnly({"yaw", "pitch", "distance", "target", "fov"});
  for (const char* key : {"yaw", "pitch", "distance", "target", "fov"})
    if (!r.has(key)) r.fail(key, "is missing");
  render::Camera c;
  r.number("yaw", c.yawDeg, -1e6, 1e6);
  r.number("pitch", c.pitchDeg, -90, 90);
  r.number("distance", c.distance, 1e-6, 1e9);
  float target[3] = {};
  r.vec3("target", target, -1e9, 1e9);
  c.target = {target[0], target[1], target[2]};
  r.number("fov", c.fovYDeg, 1, 179);
  return c;
}

} // namespace

json mergePatch(const json& from, const json& to) {
  if (!from.is_object() || !to.is_object()) return from == to ? json() : to;
  json patch = json::object();
  for (auto it = from.begin(); it != from.end(); ++it)
    if (!to.contains(it.key())) patch[it.key()] = nullptr;
  for (auto it = to.begin(); it != to.end(); ++it) {
    const auto old = from.find(it.key());
    if (old == from.end()) {
      patch[it.key()] = it.value();
    } else if (json inner = mergePatch(*old, it.value()); !inner.is_null()) {
      patch[it.key()] = std::move(inner);
    }
  }
  return patch.empty() ? json() : patch;
}

std::uint64_t fnv1a64(const void* data, std::size_t size, std::uint64_t hash) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    hash ^= p[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

ordered_json toJson(const SessionRecording& r) {
  ordered_json out;
  out["format"] = kSessionFormatName;
  out["version"] = kSessionFormatVersion;
  out["graphsim"] = r.graphsim;
  out["scene"] = r.scene;
  out["backend"] = r.backend;
  out["count"] = r.count;
  out["frames_in_flight"] = r.framesInFlight;
  out["headless"] = r.headless;
  out["panel"] = r.panel;
  out["frames"] = r.frames;
  out["interrupted"] = r.interrupted;
  out["checkpoint_every"] = r.checkpointEvery;
  out["settings"] = r.settings;
  out["controls"] = r.controls;
  out["camera"] = cameraJson(r.camera);
  ordered_json events = ordered_json::array();
  for (const RecordedEvent& e : r.events) {
    ordered_json event;
    event["frame"] = e.frame;
    if (!e.controls.is_null()) event["controls"] = e.controls;
    if (e.camera) event["camera"] = cameraJson(*e.camera);
    if (e.panelVisible) event["panel"] = *e.panelVisible;
    if (e.sceneCapture) event["capture"] = true;
    events.push_back(std::move(event));
  }
  out["events"] = std::move(events);
  ordered_json checkpoints = ordered_json::array();
  for (const RecordedCheckpoint& c : r.checkpoints) {
    ordered_json checkpoint;
    checkpoint["frame"] = c.frame;
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(c.hash));
    checkpoint["hash"] = hash;
    if (!c.positions.empty()) checkpoint["positions"] = base64(c.positions.data(), c.positions.size() * sizeof(Float4));
    checkpoints.push_back(std::move(checkpoint));
  }
  out["checkpoints"] = std::move(checkpoints);
  return out;
}

void writeSessionRecording(const fs::path& path, const SessionRecording& recording) {
  writeOutput(path, toJson(recording).dump(1) + "\n");
}

namespace {

// The recording's "events": each an object at a frame after the previous event's, within the `frames` recorded.
// "the recording's last frame 11", or for a recording of no frames what it has instead.
std::string lastFrameOf(std::uint64_t frames) {
  return frames == 0 ? "the recording's frames (it has none)"
                     : "the recording's last frame " + std::to_string(frames - 1);
}

std::vector<RecordedEvent> readEvents(const json& top, const JsonReader& r, const std::string& source,
                                      std::uint64_t frames) {
  std::vector<RecordedEvent> events;
  if (!top["events"].is_array()) r.fail("events", "must be an array");
  std::uint64_t last = 0;
  for (std::size_t i = 0; i < top["events"].size(); ++i) {
    const json& item = top["events"][i];
    const std::string where = "events[" + std::to_string(i) + "]";
    if (!item.is_object()) r.fail(where, "must be an object");
    const JsonReader e(item, source, where);
    e.allowOnly({"frame", "controls", "camera", "panel", "capture"});
    if (!e.has("frame")) e.fail("frame", "is missing");
    RecordedEvent event;
    e.unsignedInteger("frame", event.frame);
    if (i > 0 && event.frame <= last)
      e.fail("frame", "must be after the previous event's frame " + std::to_string(last));
    if (event.frame >= frames)
      e.fail("frame",
             "is " + std::to_string(event.frame) + ", past " + lastFrameOf(frames) + " (it would never be replayed)");
    last = event.frame;
    if (e.has("controls")) {
      if (!item["controls"].is_object()) e.fail("controls", "must be an object (a merge patch)");
      event.controls = item["controls"];
    }
    if (e.has("camera")) event.camera = readCamera(e.child("camera"));
    if (e.has("panel")) {
      bool visible = true;
      e.boolean("panel", visible);
      event.panelVisible = visible;
    }
    e.boolean("capture", event.sceneCapture);
    events.push_back(std::move(event));
  }

  return events;
}

// The recording's "checkpoints" (optional): frame, 16-digit hash and optionally the positions in base64; in frame
// order, each once, within the `frames` recorded (a replay compares every one it lists).
std::vector<RecordedCheckpoint> readCheckpoints(const json& top, const JsonReader& r, const std::string& source,
                                                std::uint64_t frames) {
  std::vector<RecordedCheckpoint> list;
  const json checkpoints = top.value("checkpoints", json::array());
  if (!checkpoints.is_array()) r.fail("checkpoints", "must be an array");
  for (std::size_t i = 0; i < checkpoints.size(); ++i) {
    const json& item = checkpoints[i];
    const std::string where = "checkpoints[" + std::to_string(i) + "]";
    if (!item.is_object()) r.fail(where, "must be an object");
    const JsonReader c(item, source, where);
    c.allowOnly({"frame", "hash", "positions"});
    if (!c.has("frame") || !c.has("hash")) c.fail(c.has("frame") ? "hash" : "frame", "is missing");
    RecordedCheckpoint checkpoint;
    c.unsignedInteger("frame", checkpoint.frame);
    if (!list.empty() && checkpoint.frame <= list.back().frame)
      c.fail("frame", "must be after the previous checkpoint's frame " + std::to_string(list.back().frame));
    if (checkpoint.frame >= frames)
      c.fail("frame", "is " + std::to_string(checkpoint.frame) + ", past " + lastFrameOf(frames));
    std::string hash;
    c.string("hash", hash);
    char* end = nullptr;
    checkpoint.hash = std::strtoull(hash.c_str(), &end, 16);
    if (hash.size() != 16 || end != hash.c_str() + 16) c.fail("hash", "must be 16 hexadecimal digits");
    if (c.has("positions")) {
      std::string text;
      c.string("positions", text);
      std::vector<unsigned char> bytes;
      if (!unbase64(text, bytes) || bytes.size() % sizeof(Float4) != 0 || bytes.empty())
        c.fail("positions", "must be base64 of float x, y, z, w per element");
      checkpoint.positions.resize(bytes.size() / sizeof(Float4));
      std::memcpy(checkpoint.positions.data(), bytes.data(), bytes.size());
    }
    list.push_back(std::move(checkpoint));
  }
  return list;
}

} // namespace

SessionRecording readSessionRecording(const fs::path& path) {
  const std::string source = fileNamedBy("replay", path.string());
  const json top = parseJsonFile(readInputFile(path, source, kMaxFileBytes, "a recorded session"), source);
  if (!top.is_object() || top.value("format", json()) != kSessionFormatName)
    throw UsageError(source + " is not a recorded graphsim session (no \"format\": \"" + kSessionFormatName + "\")");
  const JsonReader r(top, source, "");
  std::int64_t version = 0;
  r.integer("version", version, 1, INT32_MAX);
  if (version > kSessionFormatVersion)
    throw UsageError(source + " is format version " + std::to_string(version) + ", newer than this graphsim reads (" +
                     std::to_string(kSessionFormatVersion) + "): replay it with the graphsim that recorded it (" +
                     shownJson(top.value("graphsim", json("?"))) + ")");
  r.allowOnly({"format", "version", "graphsim", "scene", "backend", "count", "frames_in_flight", "headless", "panel",
               "frames", "interrupted", "checkpoint_every", "settings", "controls", "camera", "events", "checkpoints"});
  for (const char* key : {"version", "scene", "count", "frames", "settings", "controls", "camera", "events"})
    if (!r.has(key)) r.fail(key, "is missing");
  SessionRecording out;
  out.source = source;
  r.string("graphsim", out.graphsim);
  r.string("scene", out.scene);
  r.oneOf("backend", out.backend, {"cpu", "cuda"});
  r.integer("count", out.count, 1, INT64_MAX);
  r.integer("frames_in_flight", out.framesInFlight, 1, 4);
  r.boolean("headless", out.headless);
  r.boolean("panel", out.panel);
  r.integer("frames", out.frames, 0, static_cast<std::int64_t>(kMaxRecordedFrames));
  r.boolean("interrupted", out.interrupted);
  r.unsignedInteger("checkpoint_every", out.checkpointEvery);
  if (!top["settings"].is_object()) r.fail("settings", "must be an object (a scene file)");
  if (!top["controls"].is_object()) r.fail("controls", "must be an object");
  out.settings = top["settings"];
  out.controls = top["controls"];
  out.camera = readCamera(r.child("camera"));

  out.events = readEvents(top, r, source, out.frames);
  out.checkpoints = readCheckpoints(top, r, source, out.frames);
  return out;
}

} // namespace graphsim::app
