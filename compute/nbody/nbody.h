// The nbody scene as plain data: parameters, the stage table and the body state. Shared by the CPU reference
// backend and the CUDA backend so that a stage name and a parameter mean the same thing in both.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compute/float4.h"

namespace graphsim {

// Per-frame parameters: changing one is an individual node update on the CUDA backend.
struct NBodyParams {
  float dt = 0.0015f;             // time step of one substep
  float G = 1.0f;                 // gravitational constant
  float softening = 0.025f;       // Plummer softening length epsilon
  float damping = 0.5f;           // damping stage: v *= exp(-damping * dt)
  float attractorStrength = 2.0f; // attractor stage: mass of a softened point attractor
  float attractorPos[3] = {0, 0, 0};
  float boundaryRadius = 12.0f; // boundary stage: bodies outside this sphere are reflected back in
  float colourScale = 1.0f;     // colour stage: colour attribute = clamp(|v| * colourScale / 2, 0, 1)
  // The tree code (forces: tree; compute/nbody/nbody_tree.h): opening angle, the most bodies a leaf holds, and the
  // relative criterion's tolerance: the walk also opens a cell whose next multipole term (m s^3 / d^5) exceeds this
  // fraction of the group's smallest |a| of the previous step (Gadget's ErrTolForceAcc; 0: theta alone).
  float theta = 0.5f;
  int leafSize = 16;
  float treeTolerance = 0.003f;
  friend bool operator==(const NBodyParams&, const NBodyParams&) = default;
};

// Softening length of the attractor stage: keeps the kick finite for a body that sits on the attractor.
inline constexpr float kAttractorSoftening = 0.25f;

// Smallest softening a scene file may ask for (issue 12), in the presets' length unit (standard N-body units: the
// galaxies and the Plummer sphere have radius ~1, the presets use 0.02-0.025). A softened pair pulls with at most
// 0.385 G m / eps^2 (at distance eps / sqrt(2)); as eps -> 0 that bound goes to infinity and a close encounter
// gives an unbounded acceleration, i.e. the run blows up. 1e-4 keeps the bound finite (3.9e7 G m) and eps^2 = 1e-8
// far above FLT_MIN, so the GPU's flush-to-zero rsqrt still sees a softened sum. The backends accept any eps >= 0
// (tests run with 0); the check lives where users type values (app/scenes/scene_config.cpp).
inline constexpr float kMinSoftening = 1e-4f;

// The damping stage's per-substep factor exp(-damping * dt), computed once on the host in float and handed to both
// backends, so that neither evaluates exp itself (host and device exp may round differently).
inline float dampingFactor(const NBodyParams& params) { return std::exp(-params.damping * params.dt); }

// The scene's stages, one row each in kNBodyStages below (the enum value is the row's index).
enum class NBodyStage : int { Forces, Attractor, Integrate, Damping, Boundary, Colour, WriteRender };

struct NBodyStageInfo {
  NBodyStage stage;
  std::string_view name;            // in scene files, node names, --inject and messages
  bool perSubstep;                  // runs once per substep; otherwise once per frame, after the last substep
  std::string_view whyNotTogglable; // empty when the stage may be disabled; otherwise why not (shown in the panel)
  constexpr bool togglable() const { return whyNotTogglable.empty(); }
};

// The stage table, in execution order: a frame runs the per-substep rows `substeps` times, then the other rows once
// (forEachStageInstance). The CPU backend, the graph builder, the panel, the soak and the scene files iterate it;
// nothing else lists the stages or decides which may be disabled.
inline constexpr auto kNBodyStages = std::to_array<NBodyStageInfo>({
    {NBodyStage::Forces, "forces", true, {}},
    {NBodyStage::Attractor, "attractor", true, {}},
    {NBodyStage::Integrate, "integrate", true, {}},
    {NBodyStage::Damping, "damping", true, {}},
    {NBodyStage::Boundary, "boundary", true, {}},
    {NBodyStage::Colour, "colour", false, {}},
    // Skipping it would leave the renderer drawing a buffer nobody filled this frame.
    {NBodyStage::WriteRender, "write_render", false, "the renderer draws this buffer every frame"},
});
inline constexpr int kStageCount = static_cast<int>(kNBodyStages.size());

namespace detail {
// Row i describes Stage(i), names are distinct and non-empty, and the per-substep rows come first (so that the
// table's order is the execution order).
constexpr bool stageTableIsWellFormed() {
  bool afterSubsteps = false;
  for (int i = 0; i < kStageCount; ++i) {
    const NBodyStageInfo& row = kNBodyStages[static_cast<std::size_t>(i)];
    if (static_cast<int>(row.stage) != i || row.name.empty() || (row.perSubstep && afterSubsteps)) return false;
    for (int j = 0; j < i; ++j) {
      if (kNBodyStages[static_cast<std::size_t>(j)].name == row.name) return false;
    }
    afterSubsteps = !row.perSubstep;
  }
  return true;
}
} // namespace detail
static_assert(detail::stageTableIsWellFormed(),
              "kNBodyStages: one row per NBodyStage in enum order, per-substep rows first");

inline constexpr int kSubstepStageCount = [] {
  int n = 0;
  for (const NBodyStageInfo& row : kNBodyStages) n += row.perSubstep ? 1 : 0;
  return n;
}();
inline constexpr std::array<std::string_view, kStageCount> kStageNames = [] {
  std::array<std::string_view, kStageCount> names{};
  for (std::size_t i = 0; i < names.size(); ++i) names[i] = kNBodyStages[i].name;
  return names;
}();

constexpr const NBodyStageInfo& stageInfo(NBodyStage s) { return kNBodyStages[static_cast<std::size_t>(s)]; }
constexpr std::string_view stageName(NBodyStage s) { return stageInfo(s).name; }
constexpr std::optional<NBodyStage> stageFromName(std::string_view name) {
  for (const NBodyStageInfo& row : kNBodyStages) {
    if (row.name == name) return row.stage;
  }
  return std::nullopt;
}
// Empty when the stage may be toggled; otherwise the reason it may not (shown in the panel).
constexpr std::string_view whyNotTogglable(NBodyStage s) { return stageInfo(s).whyNotTogglable; }

// Stage instances in one frame of `substeps` substeps (the CPU backend's node count; the CUDA graph adds its
// report, semaphore and timing nodes).
constexpr int stageInstanceCount(int substeps) {
  return substeps * kSubstepStageCount + (kStageCount - kSubstepStageCount);
}
// Calls f(stage, substep) for every stage instance of a frame, in execution order; once-per-frame stages get
// substep 0.
template <class F>
constexpr void forEachStageInstance(int substeps, F&& f) {
  for (int s = 0; s < substeps; ++s) {
    for (const NBodyStageInfo& row : kNBodyStages) {
      if (row.perSubstep) f(row.stage, s);
    }
  }
  for (const NBodyStageInfo& row : kNBodyStages) {
    if (!row.perSubstep) f(row.stage, 0);
  }
}
// Name of one stage instance in a frame: "forces" for substep 0, "forces#2" for substep 2 (NodeInfo::name; shown,
// never parsed: NodeInfo carries the stage and substep).
std::string stageInstanceName(NBodyStage s, int substep);

// How the forces stage sums (issue 33, docs/FORCES.md): every pair (direct), an octree's multipoles (tree), or the
// faster of the two for the body count (auto: tree from kTreeFromBodies on).
enum class NBodyForces : int { Direct, Tree, Auto };
inline constexpr std::array<std::string_view, 3> kForcesNames = {"direct", "tree", "auto"};
constexpr std::string_view forcesName(NBodyForces f) { return kForcesNames[static_cast<std::size_t>(f)]; }
constexpr std::optional<NBodyForces> forcesFromName(std::string_view name) {
  for (std::size_t i = 0; i < kForcesNames.size(); ++i) {
    if (kForcesNames[i] == name) return static_cast<NBodyForces>(i);
  }
  return std::nullopt;
}
// auto's crossover: the body count from which the tree's frame is faster than direct summation's (measured on an
// H200, docs/FORCES.md "The tree").
inline constexpr std::int64_t kTreeFromBodies = 65536;
inline constexpr float kMaxTheta = 1.5f;
inline constexpr int kMaxLeafSize = 64;

// Structural settings: changing one rebuilds the state (CPU) or updates the whole graph (CUDA).
struct NBodyConfig {
  std::string scene = "nbody";
  std::string initial = "galaxy-pair"; // galaxy-pair | plummer | two-body
  std::int64_t bodies = 16384;
  std::uint64_t seed = 1;
  int substeps = 1;
  NBodyParams params;
  std::array<bool, kStageCount> enabled = {true, false, true, false, true, true, true};
  // The capacity (issue 14): bodies the CUDA backend's state arrays are allocated for. A reset to a count up to it
  // (same substeps) reuses them and changes the graph by kernel-node updates only; beyond it the arrays are
  // reallocated and the graph rebuilt. 0 (or less than bodies): the body count, no headroom. The app sets it to the
  // render buffers' capacity (one number for both: --max-bodies, the scene file's max_bodies, or its default rule).
  // The CPU backend has no graph and ignores it.
  std::int64_t maxBodies = 0;
  // Live diagnostics (issue 15, compute/nbody/nbody_diagnostics.h): a sample every this many frames, 0 to
  // kMaxDiagnosticsEvery. 0: the frame has no diagnostics node at all (the default here; the app's default is
  // kDefaultDiagnosticsEvery); > 0: the node exists and is enabled only on the frames that sample. Structural: on
  // CUDA going between 0 and > 0 adds or removes the node (a rebuild); another non-zero interval is not.
  int diagnosticsEvery = 0;
  NBodyForces forces = NBodyForces::Direct;
};

// Whether the forces stage of `config` walks a tree (auto resolved by the body count).
constexpr bool usesTree(const NBodyConfig& config) {
  return config.forces == NBodyForces::Tree || (config.forces == NBodyForces::Auto && config.bodies >= kTreeFromBodies);
}

// Bodies the state arrays of `config` hold: the larger of its body count and its capacity.
constexpr std::int64_t bodyCapacity(const NBodyConfig& config) {
  return config.maxBodies > config.bodies ? config.maxBodies : config.bodies;
}

inline constexpr std::int64_t kMaxBodies = 1 << 24;
inline constexpr int kMaxSubsteps = 64;

// Throws std::invalid_argument naming the field when config cannot be built: scene other than "nbody", body count
// or capacity (maxBodies) outside [0, kMaxBodies], substeps outside [1, kMaxSubsteps], a stage that is not
// togglable (write_render) disabled, diagnosticsEvery outside [0, 1000000]. The initial-condition name is checked by
// makeInitialConditions (nbody_initial_conditions.h).
void validateSceneConfig(const NBodyConfig& config);

// Body state, structure of float4 arrays: position + mass in posMass, velocity in vel (w unused).
// Velocities are leapfrog half-step velocities v(t - dt/2); see nbody_initial_conditions.h.
struct BodyState {
  std::vector<Float4> posMass, vel;
  std::size_t size() const { return posMass.size(); }
};

} // namespace graphsim
