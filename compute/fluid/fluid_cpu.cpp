#include "compute/fluid/fluid_cpu.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "compute/fluid/particle_chunks.h"

namespace graphsim::fluid {
namespace {

using sph_math::Vec3;

Vec3 xyz(const Float4& f) { return {f.x, f.y, f.z}; }

Float4 toFloat4(Vec3 v, float w = 0.0f) { return {v.x, v.y, v.z, w}; }

// Particles per row that fit in `extent` at this spacing (the 1e-3 absorbs the float rounding of extent / spacing).
int fitting(float extent, float spacing) { return static_cast<int>(std::floor(extent / spacing + 1e-3f)); }

FluidState makeLattice(const FluidParams& params, int nx, int ny, int nz, const char* what) {
  validateFluidParams(params);
  const int fit[3] = {fitting(params.boxSize[0], params.spacing), fitting(params.boxSize[1], params.spacing),
                      fitting(params.boxSize[2], params.spacing)};
  if (nx < 1 || ny < 1 || nz < 1 || nx > fit[0] || ny > fit[1] || nz > fit[2]) {
    throw std::invalid_argument(std::string(what) + ": a block of " + std::to_string(nx) + " x " + std::to_string(ny) +
                                " x " + std::to_string(nz) + " particles does not fit in the box (at most " +
                                std::to_string(fit[0]) + " x " + std::to_string(fit[1]) + " x " +
                                std::to_string(fit[2]) + " at this spacing)");
  }
  FluidState state;
  const std::size_t n = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny) * static_cast<std::size_t>(nz);
  state.pos.reserve(n);
  for (int k = 0; k < nz; ++k) {
    for (int j = 0; j < ny; ++j) {
      for (int i = 0; i < nx; ++i) {
        state.pos.push_back({(static_cast<float>(i) + 0.5f) * params.spacing,
                             (static_cast<float>(j) + 0.5f) * params.spacing,
                             (static_cast<float>(k) + 0.5f) * params.spacing, 0.0f});
      }
    }
  }
  state.vel.assign(n, Float4{});
  state.density.assign(n, 0.0f);
  return state;
}

// fn(x, v, i) on every particle's position and velocity (their w components kept).
template <typename Fn>
void forEachParticle(FluidState& state, const Fn& fn) {
  for (std::size_t i = 0; i < state.size(); ++i) {
    Vec3 x = xyz(state.pos[i]), v = xyz(state.vel[i]);
    fn(x, v, i);
    state.pos[i] = toFloat4(x, state.pos[i].w);
    state.vel[i] = toFloat4(v, state.vel[i].w);
  }
}

} // namespace

FluidState makeDamBreak(const FluidParams& params, int nx, int ny, int nz) {
  return makeLattice(params, nx, ny, nz, "damBreak");
}

FluidState makeRestBlock(const FluidParams& params, int layers) {
  return makeLattice(params, fitting(params.boxSize[0], params.spacing), layers,
                     fitting(params.boxSize[2], params.spacing), "restBlock");
}

void computeCellKeys(const FluidParams& params, const FluidState& state, FluidGrid& grid) {
  grid.dims = gridDims(params);
  grid.sorted.resize(state.size());
  for (std::size_t i = 0; i < state.size(); ++i) {
    grid.sorted[i] = {sph_math::cellKeyOf(xyz(state.pos[i]), grid.dims), static_cast<std::uint32_t>(i)};
  }
}

void sortByCell(FluidGrid& grid) { std::sort(grid.sorted.begin(), grid.sorted.end()); }

void findCellRanges(FluidGrid& grid) {
  const std::size_t cells = static_cast<std::size_t>(grid.dims.nx) * static_cast<std::size_t>(grid.dims.ny) *
                            static_cast<std::size_t>(grid.dims.nz);
  grid.cellStart.assign(cells, kEmptyCell);
  grid.cellEnd.assign(cells, kEmptyCell);
  // As the GPU kernel will: a sorted slot that starts a new key opens that cell and closes the previous one.
  for (std::size_t i = 0; i < grid.sorted.size(); ++i) {
    const std::uint32_t key = grid.sorted[i].key;
    if (i == 0 || grid.sorted[i - 1].key != key) grid.cellStart[key] = static_cast<std::uint32_t>(i);
    if (i + 1 == grid.sorted.size() || grid.sorted[i + 1].key != key) {
      grid.cellEnd[key] = static_cast<std::uint32_t>(i + 1);
    }
  }
}

void reorderByCell(FluidState& state, FluidWorkspace& work) {
  const std::size_t n = state.size();
  work.scratchPos.resize(n);
  work.scratchVel.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t from = work.grid.sorted[i].index;
    work.scratchPos[i] = state.pos[from];
    work.scratchVel[i] = state.vel[from];
  }
  state.pos.swap(work.scratchPos);
  state.vel.swap(work.scratchVel);
  state.density.resize(n); // recomputed by the density stage
}

void computeDensity(const FluidParams& params, FluidState& state, const FluidGrid& grid, StepNeighbours* keep) {
  const float h = smoothingLength(params);
  const float h2 = h * h;
  const float mass = particleMass(params);
  if (keep) keep->resize(state.size());
  forParticlesInChunks(static_cast<std::int64_t>(state.size()), [&](std::size_t i) {
    const Vec3 xi = xyz(state.pos[i]);
    StepNeighbours::Lister lister(keep, i);
    float sum = 0.0f;
    forEachCandidate(grid, xi, [&](std::uint32_t j) {
      const Vec3 d = xi - xyz(state.pos[j]);
      const float r2 = sph_math::dot(d, d);
      if (r2 >= h2) return;
      sum += sph_math::kernelW(r2, h);
      lister.add(j);
    });
    lister.finish();
    state.density[i] = mass * sum;
  });
}

void addBoundaryDensity(FluidState& state, FluidWorkspace& work) {
  if (!work.boundary) {
    work.boundaryGrad.clear();
    return;
  }
  work.boundaryGrad.resize(state.size());
  forParticlesInChunks(static_cast<std::int64_t>(state.size()), [&](std::size_t i) {
    const BoundaryTerms b = work.boundary(xyz(state.pos[i]));
    state.density[i] += b.density;
    work.boundaryGrad[i] = b.grad;
  });
}

void computeForces(const FluidParams& params, float alpha, const FluidState& state, const FluidGrid& grid,
                   FluidWorkspace& work, const StepNeighbours* kept) {
  const std::size_t count = state.size();
  const float h = smoothingLength(params);
  const float h2 = h * h;
  const float mass = particleMass(params);
  const float cs = speedOfSound(params);
  work.pressure.resize(count);
  work.accel.resize(count);
  const auto n = static_cast<std::int64_t>(count);
  // p / rho^2 per particle first, so that the pair loop reads it for j instead of recomputing the EOS.
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const float rho = state.density[static_cast<std::size_t>(i)];
    work.pressure[static_cast<std::size_t>(i)] =
        sph_math::taitPressure(rho, params.restDensity, params.stiffness) / (rho * rho);
  }
  forParticlesInChunks(n, [&](std::size_t si) {
    const Vec3 xi = xyz(state.pos[si]);
    const Vec3 vi = xyz(state.vel[si]);
    const float rhoI = state.density[si];
    const float pI = work.pressure[si];
    Vec3 acc = {0.0f, 0.0f, 0.0f};
    const auto add = [&](std::uint32_t j) {
      if (j == si) return;
      const Vec3 d = xi - xyz(state.pos[j]);
      const float r2 = sph_math::dot(d, d);
      if (r2 >= h2) return;
      const float pi = sph_math::artificialViscosity(d, vi - xyz(state.vel[j]), rhoI, state.density[j], h, alpha, cs);
      acc = acc + sph_math::pairAcceleration(d, sph_math::kernelGradFactor(r2, h), mass, pI, work.pressure[j], pi);
    };
    if (kept && kept->count[si] != StepNeighbours::kWalk) {
      std::for_each(kept->listOf(si), kept->listOf(si) + kept->count[si], add);
    } else {
      forEachCandidate(grid, xi, add);
    }
    if (!work.boundaryGrad.empty()) acc = acc + sph_math::boundaryAcceleration(work.boundaryGrad[si], pI);
    work.accel[si] = toFloat4(acc);
  });
}

void integrate(FluidState& state, const FluidWorkspace& work, Vec3 gravity, float dt) {
  forEachParticle(
      state, [&](Vec3& x, Vec3& v, std::size_t i) { sph_math::integrate(x, v, xyz(work.accel[i]) + gravity, dt); });
}

// The CUDA graph runs walls, then obstacle (docs/FLUID.md). The obstacle lies within [R, box - R] per axis, so a
// push out of it ends at most a particle radius beyond a face, still within [0, box].
void applyWalls(const FluidParams& params, FluidState& state) {
  applyWalls(params, particleRadius(params), false, state);
}

std::array<double, 3> applyWalls(const FluidParams& params, float radius, bool mirror, FluidState& state) {
  const Vec3 box = toVec3(params.boxSize);
  std::array<double, 3> added = {0, 0, 0};
  forEachParticle(state, [&](Vec3& x, Vec3& v, std::size_t) {
    const Vec3 before = v;
    sph_math::reflectAtWalls(x, v, box, radius, params.wallRestitution, mirror);
    added[0] += double(v.x) - before.x, added[1] += double(v.y) - before.y, added[2] += double(v.z) - before.z;
  });
  return added;
}

void applyObstacle(const FluidParams& params, float radius, FluidState& state) {
  const Vec3 centre = toVec3(params.obstacleCentre);
  forEachParticle(state, [&](Vec3& x, Vec3& v, std::size_t) {
    sph_math::pushOutOfSphere(x, v, centre, params.obstacleRadius, radius, params.wallRestitution);
  });
}

void buildSortedGrid(const FluidParams& params, FluidState& state, FluidWorkspace& work) {
  computeCellKeys(params, state, work.grid);
  sortByCell(work.grid);
  findCellRanges(work.grid);
  reorderByCell(state, work);
}

void substep(const FluidParams& params, FluidState& state, FluidWorkspace& work, float dt, const SubstepSwitches& on,
             const AfterStage& after) {
  LongWork checkpoints; // between stages too: the sort of millions of keys alone takes a good part of a second
  auto done = [&](std::string_view stage) {
    if (after) after(stage);
    checkpoints.checkpoint(0.0);
  };
  computeCellKeys(params, state, work.grid);
  done("cell_keys");
  sortByCell(work.grid);
  done("sort");
  findCellRanges(work.grid);
  done("cell_ranges");
  reorderByCell(state, work);
  done("reorder");
  computeDensity(params, state, work.grid, &work.neighbours);
  addBoundaryDensity(state, work);
  done("density");
  computeForces(params, on.viscosity ? params.viscosity : 0.0f, state, work.grid, work, &work.neighbours);
  done("forces");
  integrate(state, work, on.gravity ? toVec3(params.gravity) : Vec3{0.0f, 0.0f, 0.0f}, dt);
  done("integrate");
  // Obstacle first, walls last: the sphere lies inside the box, so a push out of it can end beyond a face only by
  // the particle radius, and the walls then have the last word: no particle ends a substep outside the box.
  if (on.obstacle) {
    applyObstacle(params, particleRadius(params), state);
    done("obstacle");
  }
  applyWalls(params, state);
  done("walls");
  state.time += static_cast<double>(dt);
}

float maxSpeed(const FluidState& state) {
  float vmax2 = 0.0f; // max is order-independent, so this is deterministic however it is split
  for (const Float4& v : state.vel) vmax2 = std::max(vmax2, v.x * v.x + v.y * v.y + v.z * v.z);
  return std::sqrt(vmax2);
}

float cflTimeStep(const FluidParams& params, const FluidState& state) {
  return sph_math::cflDt(params.cflNumber, smoothingLength(params), speedOfSound(params), maxSpeed(state));
}

FrameStep stepFrame(const FluidParams& params, FluidState& state, FluidWorkspace& work, float frameDt,
                    const SubstepSwitches& on, const AfterSubstepStage& after) {
  FrameStep f;
  while (sph_math::frameContinues(frameDt, f.covered, f.substeps, params.maxSubsteps)) {
    const int s = f.substeps;
    const float dtCfl = cflTimeStep(params, state);
    if (after) after(s, "cfl");
    const float dt = sph_math::substepDt(frameDt, f.covered, s, params.maxSubsteps, dtCfl);
    substep(params, state, work, dt, on, [&](std::string_view stage) {
      if (after) after(s, stage);
    });
    f.covered += dt;
    f.lastDt = dt;
    ++f.substeps;
  }
  return f;
}

} // namespace graphsim::fluid
