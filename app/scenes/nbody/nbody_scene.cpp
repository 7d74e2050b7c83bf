#include "app/scenes/nbody/nbody_scene.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <vector>

#include "app/base/errors.h"
#include "app/base/json_reader.h"
#include "app/reliability/soak.h"
#include "app/run/slow_config.h"
#include "app/scenes/nbody/nbody_producer.h"
#include "app/scenes/param_json.h"
#include "compute/nbody/nbody_cpu_stages.h"
#include "compute/nbody/nbody_initial_conditions.h"
#include "compute/nbody/nbody_params.h"
#include "render/particle_renderer.h"

namespace graphsim::app {
namespace {

// Room for the body-count control to grow the scene without new render buffers (and new CUDA imports), and (issue
// 14) without new CUDA state arrays: the default capacity when neither max_bodies nor --max-bodies gives one.
constexpr std::int64_t kMinRenderCapacity = 65536;

constexpr auto kJsonKeys = std::to_array<std::string_view>(
    {"initial", "bodies", "max_bodies", "seed", "substeps", "forces", "params", "stages"});

constexpr double kCudaInteractionsPerSecond = 3.0e12; // H100, the symmetric-pair forces stage (issue 14)
constexpr std::int64_t kWorthEstimating = 32768;      // below this, no backend takes a minute per frame

// Pair interactions per second of the CPU forces stage on this machine: one 2,048-body stage, timed (~10 ms).
double measureCpuForcesRate() {
  NBodyConfig config;
  config.bodies = 2048;
  const BodyState state = makeInitialConditions(config);
  cpu::ForceScratch scratch;
  std::vector<Float4> accel;
  const auto start = std::chrono::steady_clock::now();
  cpu::computeForces(state.posMass, config.params, scratch, accel);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return 2048.0 * 2048.0 / std::max(seconds, 1e-6);
}

// "params": one key per kNBodyParams row, each within its row's range.
void applyParams(NBodyParams& p, const JsonReader& r) {
  static constexpr auto kKeys = paramKeys(kNBodyParams, false);
  r.allowOnly(kKeys.view());
  readParams(r, p, kNBodyParams);
}

void applyStages(std::array<bool, kStageCount>& enabled, const JsonReader& r) {
  const JsonReader stages = r.child("stages");
  stages.allowOnly(kStageNames);
  for (const NBodyStageInfo& row : kNBodyStages) {
    bool on = enabled[static_cast<std::size_t>(row.stage)];
    stages.boolean(row.name, on);
    if (!on && !row.togglable()) stages.fail(row.name, "cannot be disabled: " + std::string(row.whyNotTogglable));
    enabled[static_cast<std::size_t>(row.stage)] = on;
  }
}

class NBodyScene final : public Scene {
public:
  NBodyScene()
      : Scene({.name = "nbody",
               .description =
                   "gravitational n-body: two colliding disc galaxies (or a Plummer sphere), all pairs every substep",
               .countNoun = "bodies",
               .maxCount = kMaxBodies,
               .jsonKeys = kJsonKeys,
               .seeded = true,
               .diagnostics = true,
               .severalGpus = true,
               .capacityHelp =
                   "buffers (render and CUDA state) hold this many bodies: body-count changes up to it are "
                   "kernel-node updates only, beyond it the buffers are reallocated and the graph rebuilt; >= "
                   "--bodies, at most " +
                   std::to_string(kMaxBodies) + " (default: the scene file's max_bodies, else max(bodies, " +
                   std::to_string(kMinRenderCapacity) + "))",
               .soakDefaultCount = 1024,
               .soakMinCount = 2, // the replay needs two bodies to interact
               .followRank0 = followNBodyRank0}) {}

  void applyJson(SceneSettings& settings, const JsonReader& r) const override {
    NBodyConfig& sim = settings.sim;
    r.oneOf("initial", sim.initial, {"galaxy-pair", "plummer", "two-body"});
    r.integer("bodies", sim.bodies, 1, kMaxBodies);
    r.integer("max_bodies", sim.maxBodies, 1, kMaxBodies);
    // This layer's capacity holds this layer's count (a later layer's --bodies or --max-bodies is checked by the
    // command line, app/cli: parseCountAndFramesInFlight).
    if (sim.maxBodies > 0 && sim.maxBodies < sim.bodies)
      r.fail(r.has("max_bodies") ? "max_bodies" : "bodies",
             r.has("max_bodies") ? "must be at least the body count " + std::to_string(sim.bodies) + ", got " +
                                       std::to_string(sim.maxBodies)
                                 : std::to_string(sim.bodies) + " exceeds the capacity " +
                                       std::to_string(sim.maxBodies) + " (max_bodies); raise max_bodies");
    r.unsignedInteger("seed", sim.seed);
    r.integer("substeps", sim.substeps, 1, kMaxSubsteps);
    std::string forces(forcesName(sim.forces));
    r.oneOf("forces", forces, {kForcesNames[0], kForcesNames[1], kForcesNames[2]});
    sim.forces = *forcesFromName(forces);
    if (r.has("params")) applyParams(sim.params, r.child("params"));
    if (r.has("stages")) applyStages(sim.enabled, r);
  }
  SceneSettings defaults() const override {
    SceneSettings s;
    s.scene = "nbody";
    s.sim.diagnosticsEvery = kDefaultDiagnosticsEvery; // run, bench and soak; --diagnostics-every sets it
    return s;
  }

  Fields fields(SceneSettings& s) const override {
    return {.count = &s.sim.bodies,
            .seed = &s.sim.seed,
            .diagnosticsEvery = &s.sim.diagnosticsEvery,
            .capacity = &s.sim.maxBodies};
  }
  void checkCount(const SceneSettings& s, std::uint32_t framesInFlight, const std::string& flag,
                  std::size_t /*cudaTotalMemory*/) const override {
    checkBodyCount(s.sim.bodies, framesInFlight, flag);
    // A capacity given explicitly: its render buffers (host-visible on the CPU backend) must fit too.
    if (s.sim.maxBodies > s.sim.bodies)
      checkHostMemory(s.sim.maxBodies, 16.0 * framesInFlight, "--max-bodies", "bodies");
  }
  void checkSettings(const SceneSettings& s) const override {
    if (s.sim.initial == "two-body" && s.sim.bodies != 2)
      throw UsageError("--bodies: the two-body initial condition needs exactly 2 bodies");
  }

  render::Camera initialCamera(const SceneSettings& s) const override { return s.render.camera; }
  // One number for the render buffers and the CUDA state arrays (makeProducer hands it to both).
  std::int64_t renderCapacity(const SceneSettings& s) const override {
    if (s.sim.maxBodies > 0) return std::clamp<std::int64_t>(std::max(s.sim.maxBodies, s.sim.bodies), 1, kMaxBodies);
    return std::clamp<std::int64_t>(std::max(s.sim.bodies, kMinRenderCapacity), 1, kMaxBodies);
  }

  std::unique_ptr<SceneProducer> makeProducer(const SceneSettings& s, const ProducerRequest& r) const override {
    // The renderer's buffers were sized by renderCapacity: the CUDA arrays get the same capacity.
    const std::int64_t capacity = r.renderer != nullptr ? r.renderer->config().maxBodies : renderCapacity(s);
    return makeNBodyProducer(s, r, capacity);
  }
  std::unique_ptr<SceneSoak> makeSoak(const SceneSettings& s, const SoakOptions& o,
                                      std::int64_t maxCount) const override {
    return makeNBodySoak(s, o, maxCount);
  }
  void runBench(const BenchOptions& options, BenchReport& report) const override { runNBodyBench(options, report); }

  // The forces cost N^2 pair interactions per substep; the CPU backend's start adds one double-precision direct sum
  // of the same size (startLeapfrog), ~4x the float stage per interaction.
  std::optional<CostEstimate> estimateCost(const SceneSettings& s, bool cpu) const override {
    const std::int64_t n = s.sim.bodies;
    if (n < kWorthEstimating) return std::nullopt;
    const double interactions = static_cast<double>(n) * static_cast<double>(n);
    const double rate = cpu ? measureCpuForcesRate() : kCudaInteractionsPerSecond;
    CostEstimate cost;
    cost.frameSeconds = interactions * s.sim.substeps / rate;
    cost.startupSeconds = cpu ? interactions * 4 / rate : 0;
    cost.basis = "N^2 = " + std::to_string(n) + "^2 pair interactions per forces stage at " + rateText(rate) +
                 " per second, " + (cpu ? "measured on this machine just now" : "an H100's rate");
    if (cpu) cost.advice = "--backend cuda or fewer bodies is practical";
    return cost;
  }
};

} // namespace

const Scene& nbodyScene() {
  static const NBodyScene scene;
  return scene;
}

} // namespace graphsim::app
