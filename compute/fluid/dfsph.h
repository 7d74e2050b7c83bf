// The incompressible solver of the fluid scene (issue 28), DFSPH (Bender & Koschier 2017), as the CPU reference:
// its settings (a parameter table, as the scene's), the two solves whose loops stop when the average error is at most
// a tolerance, one step and one frame. The formulas are sph_math.h's DFSPH section, which the kernels will share;
// the loop rule (sph_math::solveContinues on an exact fixed-point error sum) is what a WHILE node nested in the
// substep WHILE will evaluate on the GPU. docs/FLUID.md gives the equations and the order of a step.
#pragma once

#include <limits>
#include <vector>

#include "compute/fluid/fluid_cpu.h"
#include "compute/fluid/fluid_steps.h"
#include "compute/fluid/sph_math.h"
#include "compute/param_table.h"

namespace graphsim::fluid {

struct DfsphSettings {
  float densityTolerance = 1e-3f;     // the density solve's average (rho* - rho0) / rho0, compression only [-]
  float divergenceTolerance = 1e-3f;  // the divergence solve's average max(drho/dt, 0) dt / rho0 [-]
  int minIterations = 2;              // the density solve's, [0, maxIterations]
  int divergenceMinIterations = 2;    // the divergence solve's, [0, maxIterations] (SPlisHSPlasH's: 1; PERFORMANCE.md)
  int maxIterations = 100;            // per solve, [1, 10000]
  float timeStepFactor = 0.4f;        // lambda in dt = lambda d / max|v| [-], (0, 1]
  float minDt = 1e-4f, maxDt = 1e-3f; // dt's clamp [s] (maxDt: docs/FLUID.md, "The largest step")
  // Layers of boundary particles behind each wall and inside the obstacle, [0, 4], for both solvers (WCSPH's pressure
  // acts on them too: fluid_cpu.h, BoundaryAt); 0: the walls only reflect.
  int boundaryLayers = 2;
  // CUDA's neighbour lists (docs/FLUID.md, "Neighbour lists with a skin"): they list the pairs within (1 + skin) h
  // and are kept, with the particles' order, until a particle has moved skin h / 2. 0: sort and build every step. The
  // CPU reference sorts every step.
  float neighbourSkin = 0.0f;
  bool operator==(const DfsphSettings&) const = default;
  sph_math::SolveRule ruleOf(sph_math::Solve solve) const {
    return solve == sph_math::Solve::Divergence
               ? sph_math::SolveRule{divergenceTolerance, divergenceMinIterations, maxIterations}
               : sph_math::SolveRule{densityTolerance, minIterations, maxIterations};
  }
};

// clang-format off
inline constexpr ParamRow<DfsphSettings> kDfsphSettings[] = {
    {.key = "densityTolerance", .member = &DfsphSettings::densityTolerance, .range = {0.0, 1.0, true, true}, .help = "the density solve stops at this average compression (0.001: 0.1 %)"},
    {.key = "divergenceTolerance", .member = &DfsphSettings::divergenceTolerance, .range = {0.0, 1.0, true, true}, .help = "the divergence solve stops at this average drho/dt dt / rho0"},
    {.key = "minIterations", .member = &DfsphSettings::minIterations, .range = {0.0, 10000.0}, .help = "the density solve runs at least this many iterations"},
    {.key = "divergenceMinIterations", .member = &DfsphSettings::divergenceMinIterations, .range = {0.0, 10000.0}, .help = "the divergence solve runs at least this many iterations"},
    {.key = "maxIterations", .member = &DfsphSettings::maxIterations, .range = {1.0, 10000.0}},
    {.key = "timeStepFactor", .member = &DfsphSettings::timeStepFactor, .range = {0.0, 1.0, true, false}, .help = "lambda in dt = lambda d / max|v|"},
    {.key = "minDt", .member = &DfsphSettings::minDt, .unit = "s", .range = {0.0, 1.0, true, false}},
    {.key = "maxDt", .member = &DfsphSettings::maxDt, .unit = "s", .range = {0.0, 1.0, true, false}},
    {.key = "boundaryLayers", .member = &DfsphSettings::boundaryLayers, .range = {0.0, 4.0}, .role = ParamRole::Structural, .help = "layers of boundary particles behind the walls and in the obstacle, for both solvers (0: the walls only reflect)"},
    {.key = "neighbourSkin", .member = &DfsphSettings::neighbourSkin, .range = {0.0, 1.0}, .help = "CUDA: the neighbour lists reach (1 + skin) h and are kept until a particle moves skin h / 2 (0: sort every step)"},
};
// clang-format on
static_assert(coversEveryField(kDfsphSettings), "kDfsphSettings: a DfsphSettings field has no row (or two rows)");

// Throws std::invalid_argument naming the field: each row's range, then both minimums <= maxIterations and
// minDt <= maxDt.
void validateDfsphSettings(const DfsphSettings& settings);

// One solve's loop: iterations run (velocity updates) and the average error it stopped at.
struct SolveStats {
  int iterations = 0;
  double error = 0;
};

// The walls as particles (Akinci et al. 2012): `layers` layers on the lattice of spacing d behind each face of the box,
// static, sorted by cell in their own grid of cells of h over the box grown by the layers, their positions shifted by
// `offset` (= layers x d) on each axis into that grid's frame (a fluid position adds it to look them up). Each carries
// the volume of its lattice cell in the fluid's share, V_b = cell x m / (rho0 d^3), so that the boundary continues the
// fluid's lattice and a fluid particle at a face, edge or corner of a tank at rest has rho0 exactly. (Akinci's
// V_b = 1 / sum_k W_bk, meant for irregular sampling, gave a face's first layer ~1.3 d^3 — it misses the fluid side
// — so fluid at edges and corners started 3.4 % compressed, and at 65,536 particles the collapse of a column blew up
// in its first frame there.) psi_b = rho0 V_b (computed where used, so a rest-density edit needs no rebuild) is the
// mass that a fluid particle next to it counts in its density. A fluid particle's sums add the boundary's terms with
// psi for m, v_b = 0, and kappa_b / rho_b mirrored from the fluid particle (pressure mirroring).
//
// The obstacle sphere's boundary (makeObstacleBoundary) is `layers` shells inside its surface at R - (k + 1/2) d,
// each sampled on a Fibonacci lattice of about one particle per d^2, V_b = its shell's volume / its count in the same
// share; built around the sphere's centre at the origin (offset = R + h), and looked up with origin = the centre of
// the step, so that moving the sphere (a node update of its centre) rebuilds nothing; a new radius rebuilds it. Its
// reach (the outer shell's radius + h) keeps fluid away from the sphere out of its cells.
struct Boundary {
  std::vector<Float4> pos; // sorted by cell, in the boundary's frame (sph_math::toBoundaryFrame)
  std::vector<float> volume;
  sph_math::BoundaryFrame frame; // its offset and where it matters; origin: the obstacle's centre
  bool active = true;            // the obstacle switched off (or of radius 0): false
  FluidGrid grid;
  std::size_t size() const { return pos.size(); }
};
Boundary makeWallBoundary(const FluidParams& params, int layers);
Boundary makeObstacleBoundary(const FluidParams& params, int layers);

// How the walls reflect under a solver (sph_math::reflectAxis), for the CPU's applyWalls and the walls kernel alike.
// WCSPH: clamp at a particle radius. DFSPH: mirror, and with boundary particles at half a radius, below where the
// boundary's pressure holds the fluid at rest (a radius), so that the boundary, not the reflection, carries the fluid
// (at a radius, a settled tank's bottom layer sat on the reflection, which then carried a quarter of its weight).
// The obstacle pushes out to its radius + this radius alike.
struct WallRule {
  float radius;
  bool mirror;
};
inline WallRule wallRule(FluidSolver solver, const FluidParams& params, const DfsphSettings& settings) {
  if (solver != FluidSolver::Dfsph) return {particleRadius(params), false};
  return {settings.boundaryLayers > 0 ? 0.5f * particleRadius(params) : particleRadius(params), true};
}

// Per-particle arrays of a step, kept between steps so that a step allocates nothing once sized; the boundary is
// rebuilt when the box, spacing, density or layers change.
struct DfsphWorkspace {
  FluidWorkspace fluid; // fluid.neighbours: density_factor's, for the step's later passes
  std::vector<float> alpha, kappaOverRho;
  std::vector<sph_math::Vec3> boundaryGrad; // sum_b psi_b grad W_ib per particle (computeDensityFactor's)
  // sum over the step's velocity updates (both solves) of kappa_i / rho_i: the pressure that acted over the step is
  // p_i = rho_i^2 appliedKappa_i, since a velocity update is the symmetric SPH pressure force with p / rho^2 = kappa /
  // rho (dfsphPressure). A diagnostic of the CPU reference (the hydrostatic test); the kernels do not keep it.
  std::vector<float> appliedKappa;
  Boundary boundary, obstacle; // the walls' and the obstacle's
  FluidParams boundaryParams;
  int boundaryLayers = -1;
  int obstacleBuilds = 0; // how often the obstacle's boundary was built (a moved centre builds nothing)
};

// The walls' and the obstacle's boundary particles for a step: rebuilt when the box, spacing, layers or the obstacle's
// radius changed; the obstacle's placed at its centre and active when on (and of radius > 0).
void prepareBoundaries(const FluidParams& params, const DfsphSettings& settings, bool obstacleOn, DfsphWorkspace& work);
// The walls' and the obstacle's terms at fluid position x, as density_factor adds them (WCSPH's
// FluidWorkspace::boundary).
BoundaryTerms boundaryTermsAt(const FluidParams& params, const DfsphWorkspace& work, sph_math::Vec3 x);

// The step's stages (the solver's nodes), each on particles in sorted order (after buildSortedGrid):
// density and factor: state.density, work.alpha and work.boundaryGrad.
void computeDensityFactor(const FluidParams& params, FluidState& state, DfsphWorkspace& work);
// One solve: the errors and kappas from the current velocities; while solveContinues, the velocity update and the
// errors again. Returns the loop's count and final average error.
SolveStats solve(sph_math::Solve which, const FluidParams& params, const DfsphSettings& settings, float dt,
                 FluidState& state, DfsphWorkspace& work);
// The errors and kappas of one iteration (work.kappaOverRho); returns the exact error sum (sph_math::errorTicks).
unsigned long long solveErrors(sph_math::Solve which, const FluidParams& params, float dt, const FluidState& state,
                               DfsphWorkspace& work);
// v_i += dt sum_j pairAcceleration(kappa_i / rho_i, kappa_j / rho_j): the pressure's velocity change; adds kappa_i /
// rho_i to work.appliedKappa.
void applyKappa(const FluidParams& params, float dt, FluidState& state, DfsphWorkspace& work);
// The pressure of each particle over the last step (in sorted order): rho_i^2 appliedKappa_i [Pa].
std::vector<float> dfsphPressure(const FluidState& state, const DfsphWorkspace& work);
// The non-pressure forces (the same artificial viscosity as WCSPH's, alpha as given; gravity as given) over dt.
void applyNonPressure(const FluidParams& params, float alpha, sph_math::Vec3 gravity, float dt, FluidState& state,
                      DfsphWorkspace& work);

struct DfsphStep {
  SolveStats divergence, density;
  float peakCompression = 0; // max (rho_i / rho0 - 1, 0) at the step's start
  // The momentum the walls' stage gave the fluid (a particle mirrored back across a reflection plane) [kg m/s]: with
  // the boundary's pressure, what the walls carry (the settled tank's floor test adds it).
  double wallImpulse[3] = {0, 0, 0};
};

// One step of dt: grid; density and factor; divergence solve; non-pressure forces; density solve; positions;
// obstacle; walls; state.time += dt.
// after: called after density_factor, advect and walls (the stages the CPU backend checks for a blow-up).
DfsphStep dfsphStep(const FluidParams& params, const DfsphSettings& settings, FluidState& state, DfsphWorkspace& work,
                    float dt, const SubstepSwitches& on = {}, const AfterStage& after = {});

// What a frame ran: its steps, and per solve the fewest, total and most iterations of a step.
struct IterationSpan {
  int min = std::numeric_limits<int>::max(), max = 0;
  long long total = 0;
  void add(int iterations);
};
struct DfsphFrame {
  FrameStep frame;
  IterationSpan divergence, density;
  float peakCompression = 0;         // over the frame's steps
  double densityError = 0;           // the last step's density solve's average error
  double wallImpulse[3] = {0, 0, 0}; // over the frame's steps
};

// One frame (sph_math's frame rule, with dt = velocityDt(lambda, d, max|v|, minDt, maxDt) as the step limit).
DfsphFrame dfsphStepFrame(const FluidParams& params, const DfsphSettings& settings, FluidState& state,
                          DfsphWorkspace& work, float frameDt, const SubstepSwitches& on = {},
                          const AfterSubstepStage& after = {});

} // namespace graphsim::fluid
