#include "app/scenes/fluid/fluid_scene.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "app/base/errors.h"
#include "app/base/json_reader.h"
#include "app/reliability/soak.h"
#include "app/run/slow_config.h"
#include "app/scenes/fluid/fluid_producer.h"
#include "app/scenes/param_json.h"
#include "app/scenes/scene_config.h"
#include "compute/fluid/fluid_cpu_backend.h"
#include "render/particle_renderer.h"

namespace graphsim::app {
namespace {

using fluid::FluidConfig;

// Room for the particle-count control to grow without new render buffers (and new CUDA imports).
constexpr std::int64_t kMinRenderCapacity = 65536;

// Particle-substeps a frame may take (particles x maxSubsteps) below which no frame takes seconds on the CPU (about
// 1.4e5 particle-substeps per second on CI's 2 cores): the rate is measured only above it.
constexpr double kWorthEstimating = 250'000;

// Particle-substeps per second of the CPU reference on this machine: a substep of 8,192 particles at rest in the
// scene's box and physics, timed after one untimed substep that sizes the workspace (~30 ms in all).
double measureCpuSubstepRate(const FluidConfig& config) {
  FluidConfig small = config;
  small.initial = "rest";
  small.particles = 8192;
  small.params = fluid::validateFluidConfig(small);
  fluid::FluidState state = fluid::makeInitialState(small);
  fluid::FluidWorkspace work;
  fluid::DfsphWorkspace dfsphWork;
  const float dt = small.frameDt / 100.0f;
  const auto step = [&] { // the configured solver's: a DFSPH step is several neighbour passes
    if (small.solver == fluid::FluidSolver::Dfsph) {
      (void)fluid::dfsphStep(small.params, small.dfsph, state, dfsphWork, dt);
    } else {
      fluid::substep(small.params, state, work, dt);
    }
  };
  step();
  const auto start = std::chrono::steady_clock::now();
  step();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return static_cast<double>(state.size()) / std::max(seconds, 1e-6);
}

// The scene file's keys: the config's around the parameter rows' (kFluidParams: "restDensity" … "obstacle", "box").
constexpr auto kParamKeys = paramKeys(fluid::kFluidParams, false);
constexpr auto kJsonKeys = [] {
  constexpr std::string_view before[] = {"initial", "particles"};
  constexpr std::string_view after[] = {"frameDt", "colourBy", "colourScale", "enabled", "solver", "dfsph"};
  std::array<std::string_view, std::size(before) + kParamKeys.size + std::size(after)> keys{};
  std::size_t n = 0;
  for (std::string_view k : before) keys[n++] = k;
  for (std::string_view k : kParamKeys.view()) keys[n++] = k;
  for (std::string_view k : after) keys[n++] = k;
  return keys;
}();

std::string text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string vecText(const float (&v)[3]) { return "[" + text(v[0]) + ", " + text(v[1]) + ", " + text(v[2]) + "]"; }

// The lattice spacing follows from the count; the box must hold one cell of h = 2 x spacing per axis.
std::optional<std::string> whyBoxTooSmall(const FluidConfig& c) {
  float h = 0;
  try {
    h = 2.0f * fluid::spacingFor(c);
  } catch (const std::invalid_argument& e) { // a column that does not fit the box (fluid_backend.cpp: blockShare)
    std::string what = e.what();
    if (what.rfind("fluid: ", 0) == 0) what.erase(0, 7);
    return "does not fit: " + what;
  }
  for (const float side : c.params.boxSize) {
    if (!(side >= h)) {
      return "must hold at least one cell of h = 2 x spacing = " + text(h) + " m per axis (the spacing follows from " +
             std::to_string(c.particles) + " particles); got " + vecText(c.params.boxSize);
    }
  }
  return std::nullopt;
}

std::optional<std::string> whyObstacleOutside(const fluid::FluidParams& p) {
  for (int a = 0; a < 3; ++a) {
    const float lo = p.obstacleRadius, hi = p.boxSize[a] - p.obstacleRadius;
    if (!(p.obstacleCentre[a] >= lo && p.obstacleCentre[a] <= hi)) {
      return "must lie inside the box " + vecText(p.boxSize) + ": centre " + vecText(p.obstacleCentre) +
             " and radius " + text(p.obstacleRadius) + " need centre." + "xyz"[a] + " in [" + text(lo) + ", " +
             text(hi) + "]";
    }
  }
  return std::nullopt;
}

// "solver": "wcsph" | "dfsph", and "dfsph": {its settings' rows}, refused by name (the rows' ranges, then min <= max).
constexpr auto kDfsphKeys = paramKeys(fluid::kDfsphSettings, false);
void applySolver(FluidConfig& c, const JsonReader& r) {
  std::string solver(fluid::kFluidSolverNames[static_cast<int>(c.solver)]);
  r.oneOf("solver", solver, {fluid::kFluidSolverNames[0], fluid::kFluidSolverNames[1]});
  c.solver = solver == fluid::kFluidSolverNames[1] ? fluid::FluidSolver::Dfsph : fluid::FluidSolver::Wcsph;
  if (!r.has("dfsph")) return;
  const JsonReader d = r.child("dfsph");
  d.allowOnly(kDfsphKeys.view());
  readParams(d, c.dfsph, fluid::kDfsphSettings);
  try {
    fluid::validateDfsphSettings(c.dfsph);
  } catch (const std::invalid_argument& e) { // "fluid: minIterations = 8 is above maxIterations = 4"
    const std::string why = e.what();
    r.fail("dfsph", "is refused: " + why.substr(why.find(": ") + 2));
  }
}

void applyEnabled(fluid::FluidSwitches& enabled, const JsonReader& r) {
  const JsonReader e = r.child("enabled");
  std::array<std::string_view, fluid::kFluidToggleCount> names{};
  for (std::size_t i = 0; i < names.size(); ++i) names[i] = fluid::kFluidToggles[i].name;
  e.allowOnly(names);
  for (const fluid::FluidToggleInfo& row : fluid::kFluidToggles)
    e.boolean(row.name, enabled[static_cast<std::size_t>(row.toggle)]);
}

class FluidScene final : public Scene {
public:
  FluidScene()
      : Scene({.name = "fluid",
               .description =
                   "SPH fluid (incompressible DFSPH; weakly compressible with the scene file's \"solver\": \"wcsph\"): "
                   "a dam break around a sphere obstacle in a box, steps and solver iterations decided on the GPU",
               .countNoun = "particles",
               .maxCount = fluid::kMaxFluidParticles,
               .jsonKeys = kJsonKeys,
               .diagnostics = true,
               .soakDefaultCount = 4096,
               .soakMinCount = 2048}) {} // half of the default still fills the dam-break block

  void applyJson(SceneSettings& settings, const JsonReader& r) const override {
    FluidConfig& c = fluidConfig(settings);
    r.oneOf("initial", c.initial, {"dam-break", "rest", "column"});
    r.integer("particles", c.particles, 1, fluid::kMaxFluidParticles);
    readParams(r, c.params, fluid::kFluidParams);
    r.numberOpen("frameDt", c.frameDt, 0.0, true, 0.1, false);
    std::string colourBy = c.colourBy == fluid::ColourBy::Speed ? "speed" : "density";
    r.oneOf("colourBy", colourBy, {"speed", "density"});
    c.colourBy = colourBy == "speed" ? fluid::ColourBy::Speed : fluid::ColourBy::Density;
    r.numberOpen("colourScale", c.colourScale, 0.0, true, 1e6, false);
    if (r.has("enabled")) applyEnabled(c.enabled, r);
    applySolver(c, r);
    if (r.has("render") && r.at("render").is_object() && r.at("render").contains("point_radius"))
      r.child("render").fail("point_radius",
                             "is not for the fluid scene: particles are drawn at their physical "
                             "radius (half the lattice spacing, which follows from particles)");
    if (const auto why = whyBoxTooSmall(c)) r.fail(r.has("box") ? "box" : "particles", *why);
    if (const auto why = whyObstacleOutside(c.params)) r.fail("obstacle", *why);
  }
  SceneSettings defaults() const override {
    SceneSettings s;
    s.scene = "fluid";
    FluidConfig c;
    c.diagnosticsEvery = kDefaultDiagnosticsEvery; // run, bench and soak; --diagnostics-every sets it
    s.config = c;
    return s;
  }

  Fields fields(SceneSettings& s) const override {
    return {.count = &fluidConfig(s).particles, .diagnosticsEvery = &fluidConfig(s).diagnosticsEvery};
  }
  void checkCount(const SceneSettings& s, std::uint32_t framesInFlight, const std::string& flag,
                  std::size_t cudaTotalMemory) const override {
    const std::int64_t n = fluidConfig(s).particles;
    if (n < 1 || n > fluid::kMaxFluidParticles)
      throw UsageError(flag + ": must be 1.." + std::to_string(fluid::kMaxFluidParticles) + ", got " +
                       std::to_string(n));
    checkHostMemory(n, fluidHostBytesPerParticle(framesInFlight), flag, "particles");
    const double gpu = static_cast<double>(n) * fluidGpuBytesPerParticle(framesInFlight);
    if (cudaTotalMemory > 0 && gpu > static_cast<double>(cudaTotalMemory))
      throw UsageError(flag + ": " + std::to_string(n) + " particles need about " +
                       std::to_string(static_cast<long long>(gpu / (1 << 20))) +
                       " MiB of GPU memory (estimate), more than the CUDA device's " +
                       std::to_string(static_cast<long long>(cudaTotalMemory >> 20)) + " MiB");
  }
  void checkSettings(const SceneSettings& s) const override {
    const FluidConfig& c = fluidConfig(s);
    if (const auto why = whyBoxTooSmall(c))
      throw UsageError("--particles " + std::to_string(c.particles) + ": box " + *why);
    try {
      fluid::validateFluidConfig(c);
    } catch (const std::invalid_argument& e) {
      std::string what = e.what(); // "fluid: particles = 512: ..."
      if (what.rfind("fluid: ", 0) == 0) what.erase(0, 7);
      throw UsageError("fluid scene: " + what);
    }
  }

  render::Camera initialCamera(const SceneSettings& s) const override {
    if (s.render.cameraGiven) return s.render.camera;
    const float* box = fluidConfig(s).params.boxSize;
    const float aspect = static_cast<float>(s.render.width) / static_cast<float>(s.render.height);
    return render::frameBox(render::Box{glm::vec3(0.0f), glm::vec3(box[0], box[1], box[2])}, aspect);
  }
  std::int64_t renderCapacity(const SceneSettings& s) const override {
    return std::clamp<std::int64_t>(std::max(fluidConfig(s).particles, kMinRenderCapacity), 1,
                                    fluid::kMaxFluidParticles);
  }

  std::unique_ptr<SceneProducer> makeProducer(const SceneSettings& s, const ProducerRequest& r) const override {
    const std::int64_t capacity = r.renderer != nullptr ? r.renderer->config().maxBodies : fluidConfig(s).particles;
    return makeFluidProducer(s, r, capacity);
  }
  std::unique_ptr<SceneSoak> makeSoak(const SceneSettings& s, const SoakOptions& o,
                                      std::int64_t maxCount) const override {
    return makeFluidSoak(s, o, maxCount);
  }
  void runBench(const BenchOptions& options, BenchReport& report) const override { runFluidBench(options, report); }

  // Particle-substeps: the substeps a frame needs are at least frameDt over the CFL step at rest (the fluid moves,
  // so more), up to maxSubsteps. The CUDA graph does ~9e8 particle-substeps/s on an H100 (docs/PERFORMANCE.md):
  // even 8M particles x 32 substeps is a fraction of a second there, so only the CPU is estimated.
  std::optional<CostEstimate> estimateCost(const SceneSettings& s, bool cpu) const override {
    const FluidConfig& c = fluidConfig(s);
    if (!cpu || static_cast<double>(c.particles) * c.params.maxSubsteps < kWorthEstimating) return std::nullopt;
    FluidConfig sized = c;
    sized.params = fluid::validateFluidConfig(c);
    const fluid::FluidParams& p = sized.params;
    const float restDt = sph_math::cflDt(p.cflNumber, fluid::smoothingLength(p), fluid::speedOfSound(p), 0.0f);
    const int atRest = std::max(1, static_cast<int>(std::ceil(c.frameDt / restDt)));
    const int substeps = std::min(atRest, p.maxSubsteps);
    double rate = 0;
    try {
      rate = measureCpuSubstepRate(sized);
    } catch (const std::invalid_argument&) { // 8,192 particles do not fit this box's lattice: no estimate
      return std::nullopt;
    }
    CostEstimate cost;
    cost.frameSeconds = static_cast<double>(c.particles) * substeps / rate;
    cost.worstFrameSeconds = static_cast<double>(c.particles) * p.maxSubsteps / rate;
    cost.basis = (atRest > p.maxSubsteps
                      ? "maxSubsteps = " + std::to_string(substeps) + " substeps per frame"
                      : "at least " + std::to_string(substeps) + " substeps per frame (the CFL step at rest)") +
                 " of " + std::to_string(c.particles) + " particles at " + rateText(rate) +
                 " particle-substeps per second, measured on this machine just now";
    cost.advice = "--backend cuda or fewer particles is practical";
    return cost;
  }
};

} // namespace

const Scene& fluidScene() {
  static const FluidScene scene;
  return scene;
}

fluid::FluidConfig& fluidConfig(SceneSettings& settings) { return std::any_cast<FluidConfig&>(settings.config); }
const fluid::FluidConfig& fluidConfig(const SceneSettings& settings) {
  return std::any_cast<const FluidConfig&>(settings.config);
}

// State (pos, vel: 32), density, workspace (sorted key/index 8, scratch pos/vel 32, accel 16, pressure 4), colour,
// the render buffers (16 per frame in flight) and the initial lattice's temporaries (32).
double fluidHostBytesPerParticle(std::uint32_t framesInFlight) {
  return 32.0 + 4 + 8 + 32 + 16 + 4 + 4 + 16.0 * framesInFlight + 32;
}

// State (32), sorted copies (32), density and pressure (8), accel (16), keys and values twice for the sort (16),
// colour and the render output (20), the cell table's share (~8) and CUB's temp storage (~16); plus the render
// buffers the renderer exports.
double fluidGpuBytesPerParticle(std::uint32_t framesInFlight) { return 148.0 + 16.0 * framesInFlight; }

} // namespace graphsim::app
