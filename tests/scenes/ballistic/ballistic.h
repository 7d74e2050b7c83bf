// The ballistic scene: a scene that exists only for the tests (issue 27, "a third scene is cheap"; docs/SCENES.md
// walks through this folder). Particles fall under gravity in the box [0, 1]^3 and bounce off its walls: two stages
// (fall, bounce), one parameter (restitution), one toggle (the bounce stage). This header is what the CPU stages, the
// CUDA kernels and the scene share: the parameter row, the step table, the per-particle math and the engine.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compute/interop.h"
#include "compute/nbody/nbody.h" // Float4
#include "compute/param_table.h"
#include "compute/nbody/nbody_backend.h" // NodeInfo, UpdateCounters

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
inline constexpr ParamRow<Params> kParams[] = {
    {.key = "restitution",
     .member = &Params::restitution,
     .range = {0, 1},
     .slider = {.label = "restitution", .id = "restitution", .lo = 0, .hi = 1, .format = "%.2f"},
     .soak = {.lo = 0.2f, .hi = 1.0f},
     .help = "the share of its normal speed a particle keeps when it bounces off a wall"}};
static_assert(coversEveryField(kParams));

// Every node of the frame, in execution order: a row each (the CPU's node list, the CUDA graph's nodes, the panel).
enum class Step : int { Fall, Bounce, WriteRender };
struct StepRow {
  Step step;
  std::string_view name;
  std::string_view whyNot; // why the panel cannot switch it off; empty: it can (the scene's one toggle)
};
inline constexpr std::array<StepRow, 3> kSteps{{
    {Step::Fall, "fall", "it moves the particles (gravity, then the position)"},
    {Step::Bounce, "bounce", ""},
    {Step::WriteRender, "write_render", "the renderer draws this buffer every frame"},
}};
constexpr bool stepsInOrder() {
  for (std::size_t i = 0; i < kSteps.size(); ++i)
    if (static_cast<std::size_t>(kSteps[i].step) != i) return false;
  return true;
}
static_assert(stepsInOrder() && kSteps[static_cast<int>(Step::Bounce)].whyNot.empty(), "kSteps: row i is Step i");
inline constexpr std::string_view kBounceMechanism =
    "off: particles leave the box. CUDA: node enable/disable of the bounce kernel (cudaGraphNodeSetEnabled)";

// One particle, the same float operations on the CPU and in the kernels. fall: semi-implicit Euler (v, then x).
BALLISTIC_HD inline void fall(Float4& x, Float4& v, float dt) {
  v.y -= kGravity * dt;
  x.x += v.x * dt;
  x.y += v.y * dt;
  x.z += v.z * dt;
}
// bounce: a particle past a wall is mirrored back in, its normal speed turned inward and scaled by e.
BALLISTIC_HD inline void bounceAxis(float& x, float& v, float e) {
  if (x < 0.0f) x = -x * e, v = (v < 0.0f ? -v : v) * e;
  if (x > 1.0f) x = 1.0f - (x - 1.0f) * e, v = (v > 0.0f ? -v : v) * e;
}
BALLISTIC_HD inline void bounce(Float4& x, Float4& v, float e) {
  bounceAxis(x.x, v.x, e);
  bounceAxis(x.y, v.y, e);
  bounceAxis(x.z, v.z, e);
}
BALLISTIC_HD inline Float4 renderOf(const Float4& x, const Float4& v) { // colour: kinetic energy per mass / 10
  return {x.x, x.y, x.z, 0.1f * (v.x * v.x + v.y * v.y + v.z * v.z)};
}

struct State {
  std::vector<Float4> pos, vel;
};
State initialState(std::int64_t particles); // a jittered lattice in the upper half of the box; no seed

// One backend as the producer drives it. produce: frame k with these controls (advance false: dt 0), returning the
// simDone value the render waits for (CUDA interop) or nullopt (then writeRender fills the slot on the host).
class Engine {
public:
  virtual ~Engine() = default;
  virtual std::string_view name() const = 0; // "cpu" | "cuda"
  virtual std::optional<std::uint64_t> produce(std::uint64_t k, bool advance, const Params& p, bool bounce) = 0;
  virtual void writeRender(Float4* dst) = 0; // the last frame's render output (CUDA: waits for it)
  virtual void waitProduced(std::uint64_t k) = 0;
  virtual void finish() = 0;
  virtual double simMs() const = 0; // last frame: CPU wall time, CUDA GPU time; < 0 unknown
  virtual UpdateCounters counters() const = 0;
  virtual State download() = 0;            // waits for the frames in flight
  virtual void upload(const State& s) = 0; // the same count
};
std::unique_ptr<Engine> makeCpuEngine(std::int64_t particles);
// interop: the renderer's exports (their fds belong to the engine), nullptr: compute only / host copy.
std::unique_ptr<Engine> makeCudaEngine(std::int64_t particles, int device, const InteropDesc* interop,
                                       std::chrono::milliseconds waitTimeout);

} // namespace graphsim::ballistic
