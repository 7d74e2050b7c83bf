// The ballistic scene, for the tests only (issue 27; docs/SCENES.md walks through this folder): particles fall under
// gravity in the box [0, 1]^3 and bounce off its walls. Two stages, one parameter (restitution), one toggle (bounce).
// Shared by the kernels and the scene: the parameter row, the step table, the per-particle math, the CPU backend and
// the CUDA one's declaration (the members BackendEngine, app/scenes/scene_engine.h, asks, plus apply/state/setState).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compute/cuda/chain_frames.h"
#include "compute/float4.h"
#include "compute/interop.h"
#include "compute/node_info.h"
#include "compute/param_table.h"

#ifdef __CUDACC__
#define BALLISTIC_HD __host__ __device__
#else
#define BALLISTIC_HD
#endif

namespace graphsim::ballistic {

inline constexpr float kGravity = 9.81f, kFrameDt = 1.0f / 60.0f; // m/s^2 along -y; simulated seconds per frame
inline constexpr std::int64_t kMaxParticles = std::int64_t{1} << 22;

struct Params {
  float restitution = 0.8f;
  friend bool operator==(const Params&, const Params&) = default;
};
// clang-format off
inline constexpr ParamRow<Params> kParams[] = {
    {.key = "restitution", .member = &Params::restitution, .range = {0, 1},
     .slider = {.label = "restitution", .id = "restitution", .lo = 0, .hi = 1, .format = "%.2f"},
     .soak = {.lo = 0.2f, .hi = 1.0f}, .help = "the share of its normal speed a particle keeps when it bounces off a wall"}};
// clang-format on
static_assert(coversEveryField(kParams));

// Every node of the frame, in execution order (NodeInfo::step is the row): why the panel cannot switch it off; empty:
// it can (the scene's one toggle, the bounce row).
inline constexpr int kBounce = 1;
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kSteps{{
    {"fall", "it moves the particles (gravity, then the position)"},
    {"bounce", ""},
    {"write_render", "the renderer draws this buffer every frame"},
}};

// One particle, the same float operations on the CPU and in the kernels. fall: semi-implicit Euler (v, then x).
BALLISTIC_HD inline void fall(Float4& x, Float4& v, float dt) {
  v.y -= kGravity * dt;
  x.x += v.x * dt, x.y += v.y * dt, x.z += v.z * dt;
}
// bounce: a particle past a wall is mirrored back in, its normal speed turned inward and scaled by e.
BALLISTIC_HD inline void bounceAxis(float& x, float& v, float e) {
  if (x < 0.0f) x = -x * e, v = (v < 0.0f ? -v : v) * e;
  if (x > 1.0f) x = 1.0f - (x - 1.0f) * e, v = (v > 0.0f ? -v : v) * e;
}
BALLISTIC_HD inline void bounce(Float4& x, Float4& v, float e) {
  bounceAxis(x.x, v.x, e), bounceAxis(x.y, v.y, e), bounceAxis(x.z, v.z, e);
}
BALLISTIC_HD inline Float4 renderOf(const Float4& x, const Float4& v) { // colour: kinetic energy per mass / 10
  return {x.x, x.y, x.z, 0.1f * (v.x * v.x + v.y * v.y + v.z * v.z)};
}

struct State {
  std::vector<Float4> pos, vel;
};
inline State initialState(std::int64_t particles) { // a jittered lattice in the upper half of the box; no seed
  const auto jitter = [](std::uint32_t i, std::uint32_t salt) { // in [0, 1): a hash of the index
    return static_cast<float>(((i + salt) * 2654435761u) >> 8) * (1.0f / 16777216.0f);
  };
  State s;
  for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(particles); ++i) {
    s.pos.push_back({0.05f + 0.9f * jitter(i, 1), 0.5f + 0.45f * jitter(i, 2), 0.05f + 0.9f * jitter(i, 3), 0});
    s.vel.push_back({jitter(i, 4) - 0.5f, 0, jitter(i, 5) - 0.5f, 0});
  }
  return s;
}
struct Config { // the scene file's keys; the live controls are params and bounce
  std::int64_t particles = 4096;
  Params params;
  bool bounce = true;
};

// What both backends keep the same way: the config as last applied, the Graph section's list from the rows.
class BackendBase {
public:
  BackendBase(const Config& c, const char* type) : config_(c) {
    for (const auto& [name, whyNot] : kSteps)
      nodes_.push_back(rowNode(name, type, whyNot, static_cast<int>(nodes_.size())));
    nodes_[kBounce].enabled = c.bounce;
  }
  const Config& config() const { return config_; }
  const std::vector<NodeInfo>& nodes() const { return nodes_; }
  std::optional<int> blowUp() const { return std::nullopt; } // the state stays finite: nothing blows up
  // Frame k's controls (advance false: nothing moves; the CPU is not stepped, CUDA runs with dt 0).
  void apply(const Params& p, bool bounceOn, bool advance) {
    config_.params = p, config_.bounce = bounceOn, advance_ = advance;
    nodes_[kBounce].enabled = bounceOn;
  }

protected:
  Config config_;
  std::vector<NodeInfo> nodes_;
  bool advance_ = true;
};

class CpuBackend final : public BackendBase {
public:
  explicit CpuBackend(const Config& c) : BackendBase(c, "cpu"), s_(initialState(c.particles)) {}
  std::string_view name() const { return "cpu"; }
  UpdateCounters counters() const { return {}; }
  void stepFrame(std::uint64_t) { // the rows in order over every particle
    for (std::size_t i = 0; i < s_.pos.size(); ++i) fall(s_.pos[i], s_.vel[i], kFrameDt);
    for (std::size_t i = 0; config_.bounce && i < s_.pos.size(); ++i)
      bounce(s_.pos[i], s_.vel[i], config_.params.restitution);
  }
  void writeRender(Float4* dst) const {
    for (std::size_t i = 0; i < s_.pos.size(); ++i) dst[i] = renderOf(s_.pos[i], s_.vel[i]);
  }
  State state() const { return s_; }
  void setState(const State& s) { s_ = s; }

private:
  State s_;
};

// The kit's chain frame graph (compute/cuda/chain_frames.h) runs the rows; the kernels and specFor are
// ballistic_cuda.cu's. Arrays 0 and 1: pos and vel.
class CudaBackend final : public BackendBase, public cuda::ChainFrames {
public:
  CudaBackend(const Config& c, int device, const std::optional<InteropDesc>& interop,
              std::chrono::milliseconds timeout);
  State state() const {
    std::vector<std::vector<Float4>> a = downloadArrays();
    return {std::move(a[0]), std::move(a[1])};
  }
  void setState(const State& s) { uploadArrays({&s.pos, &s.vel}); }
};

} // namespace graphsim::ballistic
