// The fluid scene's CPU reference (issue 13, point 7): the state, the initial conditions and one WCSPH substep as
// the stages the GPU frame graph will run (docs/FLUID.md), each stage a function so that tests can check it alone.
// Deterministic: the sort is total on (cell key, index), every sum runs over neighbours in cell order and, within a
// cell, in sorted order, whatever the OpenMP thread count.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "compute/float4.h"
#include "compute/fluid/fluid_params.h"
#include "compute/long_work.h"

namespace graphsim::fluid {

// Structure of float4 arrays, as the CUDA side will hold it. The order of particles is the last substep's sorted
// order (the reorder stage permutes the state), so an index names a particle only until the next substep.
struct FluidState {
  std::vector<Float4> pos;    // xyz position [m]; w is carried along unchanged by every stage (tests tag with it)
  std::vector<Float4> vel;    // xyz velocity [m/s], w unused
  std::vector<float> density; // [kg/m^3], from the last density stage (0 before the first substep)
  double time = 0.0;          // simulated time [s], the sum of the substeps' dt
  std::size_t size() const { return pos.size(); }
};

// (cell key, particle index) pairs, the sort's input and output; ordered by key, then index.
struct KeyIndex {
  std::uint32_t key, index;
  friend bool operator<(KeyIndex a, KeyIndex b) { return a.key != b.key ? a.key < b.key : a.index < b.index; }
};

inline constexpr std::uint32_t kEmptyCell = 0xffffffffu;

// The sorted grid of one substep: cell c holds sorted particles [cellStart[c], cellEnd[c]), kEmptyCell if none.
struct FluidGrid {
  sph_math::GridDims dims{};
  std::vector<KeyIndex> sorted;
  std::vector<std::uint32_t> cellStart, cellEnd;
};

using sph_math::BoundaryTerms;
using BoundaryAt = std::function<BoundaryTerms(sph_math::Vec3 x)>;

// Each particle's neighbours (sorted indices j with r^2 < h^2, itself included) in the order forEachCandidate finds
// them, kept by the first neighbour pass of a step for the later passes at the same positions (WCSPH: density for
// forces; DFSPH: density_factor for the solves and the non-pressure forces): they read about 30 neighbours instead of
// testing about 200 candidates, and add the same terms in the same order. Up to kCapacity a particle; count kWalk:
// the later passes walk the cells (more neighbours, or, in DFSPH, a kernel lane's list that overflows and so sums in
// the walk's order).
struct StepNeighbours {
  static constexpr unsigned kCapacity = 48;
  static constexpr std::uint8_t kWalk = 0xff;
  std::vector<std::uint32_t> index; // kCapacity per particle
  std::vector<std::uint8_t> count;

  void resize(std::size_t particles) { index.resize(particles * kCapacity), count.resize(particles); }
  std::uint32_t* listOf(std::size_t i) { return &index[i * kCapacity]; }
  const std::uint32_t* listOf(std::size_t i) const { return &index[i * kCapacity]; }

  // Keeps particle i's neighbours as its pass finds them (add, in order), then their count (finish; walked: DFSPH's
  // overflow). With no StepNeighbours it keeps nothing.
  class Lister {
  public:
    Lister(StepNeighbours* kept, std::size_t i) : kept_(kept), i_(i), listed_(kept ? kept->listOf(i) : nullptr) {}
    void add(std::uint32_t j) {
      if (listed_ && found_ < kCapacity) listed_[found_] = j;
      ++found_;
    }
    void finish(bool walked = false) {
      if (kept_) kept_->count[i_] = walked || found_ > kCapacity ? kWalk : static_cast<std::uint8_t>(found_);
    }

  private:
    StepNeighbours* kept_;
    std::size_t i_;
    std::uint32_t* listed_;
    unsigned found_ = 0;
  };
};

// Scratch of the substep, kept between substeps so that a substep allocates nothing once sized.
struct FluidWorkspace {
  FluidGrid grid;
  StepNeighbours neighbours;
  std::vector<Float4> scratchPos, scratchVel, accel;
  std::vector<float> pressure;
  // WCSPH on the boundary particles (FluidCpuBackend sets it from DFSPH's walls and obstacle): empty, the walls only
  // reflect; else addBoundaryDensity adds each particle's boundary density after computeDensity and keeps G_i in
  // boundaryGrad, and computeForces adds -(p_i / rho_i^2) G_i.
  BoundaryAt boundary;
  std::vector<sph_math::Vec3> boundaryGrad;
};

// Initial conditions. Particles sit on a simple-cubic lattice of the params' spacing at (i + 1/2) * spacing from the
// box's origin, at rest. Both throw std::invalid_argument when the block does not fit in the box.
// damBreak: a block of nx * ny * nz particles in the corner at the origin.
FluidState makeDamBreak(const FluidParams& params, int nx, int ny, int nz);
// restBlock: `layers` layers of particles filling the bottom of the box (as many per row as the box holds).
FluidState makeRestBlock(const FluidParams& params, int layers);

// What the panel's switches change inside a substep (FluidToggle; the colour switch acts after the frame).
struct SubstepSwitches {
  bool viscosity = true; // off: alpha = 0 in computeForces
  bool gravity = true;   // off: g = 0 in integrate
  bool obstacle = true;  // off: applyObstacle is skipped
};

// The stages of one substep, in order (docs/FLUID.md).
float cflTimeStep(const FluidParams& params, const FluidState& state); // cflDt(C, h, c_s, maxSpeed(state))
void computeCellKeys(const FluidParams& params, const FluidState& state, FluidGrid& grid);
void sortByCell(FluidGrid& grid);
void findCellRanges(FluidGrid& grid);
void reorderByCell(FluidState& state, FluidWorkspace& work); // state[i] = old state[sorted[i].index]
// With keep: keeps each particle's neighbours for computeForces at the same positions.
void computeDensity(const FluidParams& params, FluidState& state, const FluidGrid& grid,
                    StepNeighbours* keep = nullptr);
// With work.boundary: adds each particle's boundary density and keeps its gradient sum in work.boundaryGrad.
void addBoundaryDensity(FluidState& state, FluidWorkspace& work);
// Pressure and artificial viscosity (Monaghan's alpha as given: the viscosity switch passes 0) into work.accel;
// gravity is not part of it (the integrate stage adds it). kept: computeDensity's neighbours of these positions (the
// same bits as walking the cells), or nullptr.
void computeForces(const FluidParams& params, float alpha, const FluidState& state, const FluidGrid& grid,
                   FluidWorkspace& work, const StepNeighbours* kept = nullptr);
// Symplectic Euler with a = work.accel + gravity (the gravity switch passes 0).
void integrate(FluidState& state, const FluidWorkspace& work, sph_math::Vec3 gravity, float dt);
// The walls reflect a particle closer than `radius` to a face (default: particleRadius), clamping it there or, with
// `mirror` (DFSPH), mirroring it back (sph_math::reflectAxis). The second returns the velocity the walls added, summed
// over the particles [m/s]: times the particle mass, the walls' impulse on the fluid.
void applyWalls(const FluidParams& params, FluidState& state);
std::array<double, 3> applyWalls(const FluidParams& params, float radius, bool mirror, FluidState& state);
void applyObstacle(const FluidParams& params, float radius, FluidState& state); // out to its radius + radius

// The three grid stages (keys, sort, ranges) then the reorder: afterwards particle i of state is sorted particle i.
void buildSortedGrid(const FluidParams& params, FluidState& state, FluidWorkspace& work);

// Calls fn(j) for every sorted particle j in the 27 cells around sorted particle i's cell (i itself included), in
// cell order (z, y, x ascending) and within a cell in sorted order. Density, forces and the tests walk this. An fn
// that takes (slab, j) is told the z-slab too, 0..2 from below: the kernels give each slab a lane.
template <typename Fn>
void forEachCandidate(const FluidGrid& grid, sph_math::Vec3 xi, Fn&& fn) {
  const sph_math::GridDims g = grid.dims;
  const int cx = sph_math::cellCoord(xi.x, g.cellSize, g.nx);
  const int cy = sph_math::cellCoord(xi.y, g.cellSize, g.ny);
  const int cz = sph_math::cellCoord(xi.z, g.cellSize, g.nz);
  for (int slab = 0; slab < 3; ++slab) {
    const int z = cz - 1 + slab;
    if (z < 0 || z >= g.nz) continue;
    for (int y = cy - 1; y <= cy + 1; ++y) {
      if (y < 0 || y >= g.ny) continue;
      for (int x = cx - 1; x <= cx + 1; ++x) {
        if (x < 0 || x >= g.nx) continue;
        const std::uint32_t c = sph_math::cellKey(x, y, z, g);
        const std::uint32_t start = grid.cellStart[c];
        if (start == kEmptyCell) continue;
        for (std::uint32_t j = start; j < grid.cellEnd[c]; ++j) {
          if constexpr (std::is_invocable_v<Fn&, int, std::uint32_t>) {
            fn(slab, j);
          } else {
            fn(j);
          }
        }
      }
    }
  }
}

// Called after each stage of a substep has run, with the stage's node name ("cell_keys", "sort", "cell_ranges",
// "reorder", "density", "forces", "integrate", "obstacle", "walls"; not called for a stage switched off).
using AfterStage = std::function<void(std::string_view stage)>;

// One substep of dt: keys, sort, ranges, reorder, density, forces, integrate, obstacle, walls; state.time += dt.
void substep(const FluidParams& params, FluidState& state, FluidWorkspace& work, float dt,
             const SubstepSwitches& on = {}, const AfterStage& after = {});

float maxSpeed(const FluidState& state);

struct FrameStep {
  int substeps = 0;  // substeps the frame ran
  float lastDt = 0;  // dt of its last substep (0 when it ran none)
  float covered = 0; // simulated time the frame covered, the float sum of the substeps' dt
};

// Called after each stage of substep `substep` (0-based) of a frame, "cfl" included.
using AfterSubstepStage = std::function<void(int substep, std::string_view stage)>;

// One frame (sph_math's frame rule, as the CUDA WHILE body runs it): while frameContinues(frameDt, covered, done,
// maxSubsteps) (checked before the first substep too: frameDt = 0 runs none), dtCfl = cflTimeStep(state), dt =
// substepDt(frameDt, covered, done, maxSubsteps, dtCfl), one substep of dt, covered += dt, done += 1. For a state
// whose max speed does not change within the frame: min(maxSubsteps, ceil(frameDt / dtCfl)) substeps.
FrameStep stepFrame(const FluidParams& params, FluidState& state, FluidWorkspace& work, float frameDt,
                    const SubstepSwitches& on = {}, const AfterSubstepStage& after = {});

} // namespace graphsim::fluid
