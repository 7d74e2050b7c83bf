// The fluid scene's CPU reference (issue 13, point 7): the state, the initial conditions and one WCSPH substep as
// the stages the GPU frame graph will run (docs/FLUID.md), each stage a function so that tests can check it alone.
// Deterministic: the sort is total on (cell key, index), every sum runs over neighbours in cell order and, within a
// cell, in sorted order, whatever the OpenMP thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "compute/fluid/fluid_params.h"
#include "compute/nbody.h" // Float4

namespace graphsim::fluid {

// Structure of float4 arrays, as the CUDA side will hold it. The order of particles is the last substep's sorted
// order (the reorder stage permutes the state), so an index names a particle only until the next substep.
struct FluidState {
  std::vector<Float4> pos;    // xyz position [m], w unused
  std::vector<Float4> vel;    // xyz velocity [m/s], w unused
  std::vector<float> density; // [kg/m^3], from the last density stage (0 before the first substep)
  double time = 0.0;          // simulated time [s], the sum of the substeps' dt
  std::size_t size() const { return pos.size(); }
};

// (cell key, particle index) pairs, the sort's input and output; ordered by key, then index.
struct KeyIndex {
  std::uint32_t key;
  std::uint32_t index;
  friend bool operator<(KeyIndex a, KeyIndex b) { return a.key != b.key ? a.key < b.key : a.index < b.index; }
};

inline constexpr std::uint32_t kEmptyCell = 0xffffffffu;

// The sorted grid of one substep: cell c holds sorted particles [cellStart[c], cellEnd[c]), kEmptyCell if none.
struct FluidGrid {
  sph_math::GridDims dims{};
  std::vector<KeyIndex> sorted;
  std::vector<std::uint32_t> cellStart;
  std::vector<std::uint32_t> cellEnd;
};

// Scratch of the substep, kept between substeps so that a substep allocates nothing once sized.
struct FluidWorkspace {
  FluidGrid grid;
  std::vector<Float4> scratchPos, scratchVel;
  std::vector<Float4> accel;
  std::vector<float> pressure;
};

// Initial conditions. Particles sit on a simple-cubic lattice of the params' spacing at (i + 1/2) * spacing from the
// box's origin, at rest. Both throw std::invalid_argument when the block does not fit in the box.
// damBreak: a block of nx * ny * nz particles in the corner at the origin.
FluidState makeDamBreak(const FluidParams& params, int nx, int ny, int nz);
// restBlock: `layers` layers of particles filling the bottom of the box (as many per row as the box holds).
FluidState makeRestBlock(const FluidParams& params, int layers);

// The stages of one substep, in order (docs/FLUID.md).
void computeCellKeys(const FluidParams& params, const FluidState& state, FluidGrid& grid);
void sortByCell(FluidGrid& grid);
void findCellRanges(FluidGrid& grid);
void reorderByCell(FluidState& state, FluidWorkspace& work); // state[i] = old state[sorted[i].index]
void computeDensity(const FluidParams& params, FluidState& state, const FluidGrid& grid);
void computeForces(const FluidParams& params, const FluidState& state, const FluidGrid& grid, FluidWorkspace& work);
void integrate(FluidState& state, const FluidWorkspace& work, float dt);
void applyWallsAndObstacle(const FluidParams& params, FluidState& state);

// The three grid stages (keys, sort, ranges) then the reorder: afterwards particle i of state is sorted particle i.
void buildSortedGrid(const FluidParams& params, FluidState& state, FluidWorkspace& work);

// Calls fn(j) for every sorted particle j in the 27 cells around sorted particle i's cell (i itself included), in
// cell order (z, y, x ascending) and within a cell in sorted order. Density, forces and the tests walk this.
template <typename Fn>
void forEachCandidate(const FluidGrid& grid, sph_math::Vec3 xi, Fn&& fn) {
  const sph_math::GridDims g = grid.dims;
  const int cx = sph_math::cellCoord(xi.x, g.cellSize, g.nx);
  const int cy = sph_math::cellCoord(xi.y, g.cellSize, g.ny);
  const int cz = sph_math::cellCoord(xi.z, g.cellSize, g.nz);
  for (int z = cz - 1; z <= cz + 1; ++z) {
    if (z < 0 || z >= g.nz) continue;
    for (int y = cy - 1; y <= cy + 1; ++y) {
      if (y < 0 || y >= g.ny) continue;
      for (int x = cx - 1; x <= cx + 1; ++x) {
        if (x < 0 || x >= g.nx) continue;
        const std::uint32_t c = sph_math::cellKey(x, y, z, g);
        const std::uint32_t start = grid.cellStart[c];
        if (start == kEmptyCell) continue;
        for (std::uint32_t j = start; j < grid.cellEnd[c]; ++j) fn(j);
      }
    }
  }
}

// One substep of dt: buildSortedGrid, density, forces, integrate, walls/obstacle; state.time += dt.
void substep(const FluidParams& params, FluidState& state, FluidWorkspace& work, float dt);

float maxSpeed(const FluidState& state);

struct FrameStep {
  int substeps;
  float dt; // of each substep
};

// One frame: dtCfl from the state at the frame's start, n = substepCount(frameDt, dtCfl, maxSubsteps), then n
// substeps of dt = frameDt / n (<= dtCfl); when clamped (n == maxSubsteps and frameDt / n > dtCfl), dt = dtCfl and
// the frame covers n * dtCfl < frameDt of simulated time.
FrameStep stepFrame(const FluidParams& params, FluidState& state, FluidWorkspace& work, float frameDt);

} // namespace graphsim::fluid
