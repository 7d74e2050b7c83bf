#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "compute/fluid/dfsph.h"
#include "compute/fluid/particle_chunks.h"

namespace graphsim::fluid {
namespace {

using sph_math::Vec3;

Vec3 xyz(const Float4& f) { return {f.x, f.y, f.z}; }

// sum_j fn(j) over the 27 cells around x as the kernels add it when they walk the cells (the boundary's sums): one
// partial sum per z-slab of 9 cells (each in cell order, within a cell in sorted order), then (s0 + s1) + s2. T:
// float, Vec3 or a struct of them with operator+.
template <typename T, typename Fn>
T neighbourSum(const FluidGrid& grid, Vec3 x, const Fn& fn) {
  T slab[3] = {};
  forEachCandidate(grid, x, [&](int z, std::uint32_t j) { slab[z] = slab[z] + fn(j); });
  return (slab[0] + slab[1]) + slab[2];
}

// sum_j fn(j, d, r2) over the neighbours of x (the sorted particles j with r2 = |d|^2 < h2, d = x - x_j) as the
// kernels add them when they read the neighbour lists (fluid_device.cuh, forEachNeighbourInSlab), with lists built
// in the same step (a skin of 0, the default): the neighbours of the 27 cells in the walk's order, dealt out round
// robin into three partial sums, then (s0 + s1) + s2. A particle that overflows a lane's list (more than kListPerLane
// neighbours in one slab, or one more than kListSpan sorted places after the slab's first) walks its cells in the
// kernels: then one partial sum per slab, as neighbourSum (its other candidates add zeros). fn is called for the
// neighbours only, in the walk's order; *walked tells whether the sum came in the slabs' order.
template <typename T, typename Fn>
T listSum(const FluidGrid& grid, const std::vector<Float4>& pos, Vec3 x, float h2, const Fn& fn,
          bool* walked = nullptr) {
  T slab[3] = {}, dealt[3] = {};
  unsigned listed = 0, count = 0; // count: the neighbours so far in slab z
  std::uint32_t first = 0;
  int z = -1;
  bool overflow = false;
  forEachCandidate(grid, x, [&](int slabOfJ, std::uint32_t j) {
    if (slabOfJ != z) z = slabOfJ, count = 0;
    const Vec3 d = x - xyz(pos[j]);
    const float r2 = sph_math::dot(d, d);
    if (r2 >= h2) return;
    if (count == 0) first = j;
    overflow = overflow || ++count > static_cast<unsigned>(sph_math::kListPerLane) || j - first > sph_math::kListSpan;
    const T term = fn(j, d, r2);
    slab[z] = slab[z] + term;
    dealt[listed % 3] = dealt[listed % 3] + term;
    ++listed;
  });
  if (walked) *walked = overflow;
  return overflow ? (slab[0] + slab[1]) + slab[2] : (dealt[0] + dealt[1]) + dealt[2];
}

// listSum over particle i's neighbours as computeDensityFactor kept them (StepNeighbours): the same terms in the same
// order, without the candidates' distance tests.
template <typename T, typename Fn>
T stepSum(const DfsphWorkspace& work, const std::vector<Float4>& pos, std::size_t i, float h2, const Fn& fn) {
  const Vec3 x = xyz(pos[i]);
  const StepNeighbours& kept = work.fluid.neighbours;
  const std::uint8_t count = kept.count[i];
  if (count == StepNeighbours::kWalk) return listSum<T>(work.fluid.grid, pos, x, h2, fn);
  const std::uint32_t* listed = kept.listOf(i);
  T dealt[3] = {};
  for (unsigned k = 0; k < count; ++k) {
    const std::uint32_t j = listed[k];
    const Vec3 d = x - xyz(pos[j]);
    dealt[k % 3] = dealt[k % 3] + fn(j, d, sph_math::dot(d, d));
  }
  return (dealt[0] + dealt[1]) + dealt[2];
}

struct FactorSums {
  float w = 0, grad2 = 0;
  Vec3 grad{0.0f, 0.0f, 0.0f};
  friend FactorSums operator+(const FactorSums& a, const FactorSums& b) {
    return {a.w + b.w, a.grad2 + b.grad2, a.grad + b.grad};
  }
};

} // namespace

void IterationSpan::add(int iterations) {
  min = std::min(min, iterations);
  max = std::max(max, iterations);
  total += iterations;
}

void validateDfsphSettings(const DfsphSettings& s) {
  checkParamRanges("fluid", s, kDfsphSettings);
  for (const auto& [key, min] :
       {std::pair{"minIterations", s.minIterations}, std::pair{"divergenceMinIterations", s.divergenceMinIterations}}) {
    if (min > s.maxIterations) {
      throw std::invalid_argument(std::string("fluid: ") + key + " = " + std::to_string(min) +
                                  " is above maxIterations = " + std::to_string(s.maxIterations));
    }
  }
  if (s.minDt > s.maxDt) {
    throw std::invalid_argument("fluid: minDt = " + std::to_string(s.minDt) +
                                " s is above maxDt = " + std::to_string(s.maxDt) + " s");
  }
}

namespace {

// Sorts a boundary's particles (w: each one's volume) by cell in the grid of `grown`, into b: positions, and volumes in
// the fluid's share (a fluid particle's volume is m / rho0 = d^3 / (d^3 sum_lattice W), so that the lattice has rho0).
void sortBoundary(const FluidParams& grown, FluidState& s, Boundary& b) {
  s.vel.assign(s.size(), Float4{});
  FluidWorkspace w;
  buildSortedGrid(grown, s, w);
  b.pos = std::move(s.pos), b.grid = std::move(w.grid);
  const float d = grown.spacing, share = particleMass(grown) / (grown.restDensity * d * d * d);
  b.volume.resize(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) b.volume[i] = b.pos[i].w * share, b.pos[i].w = 0.0f;
}

} // namespace

Boundary makeWallBoundary(const FluidParams& params, int layers) {
  const float d = params.spacing;
  Boundary b;
  b.frame.offset = static_cast<float>(layers) * d;
  const float h = smoothingLength(params); // the box less h: no wall particle within h of a position inside it
  b.frame.innerLo = {h, h, h};
  b.frame.innerHi = {params.boxSize[0] - h, params.boxSize[1] - h, params.boxSize[2] - h};
  FluidParams grown = params;          // the box with the layers: the boundary's own cells, none clamped
  std::vector<float> axis[3], cell[3]; // per axis, shifted by offset: the layers below, the lattice inside, the layers
                                       // above; and each coordinate's spacing there
  for (int a = 0; a < 3; ++a) {
    grown.boxSize[a] = params.boxSize[a] + 2.0f * b.frame.offset;
    const int inside = std::max(1, static_cast<int>(std::lround(params.boxSize[a] / d)));
    const float step = params.boxSize[a] / static_cast<float>(inside);
    for (int k = 0; k < layers; ++k) axis[a].push_back((static_cast<float>(k) + 0.5f) * d), cell[a].push_back(d);
    for (int i = 0; i < inside; ++i)
      axis[a].push_back(b.frame.offset + (static_cast<float>(i) + 0.5f) * step), cell[a].push_back(step);
    for (int k = 0; k < layers; ++k)
      axis[a].push_back(b.frame.offset + params.boxSize[a] + (static_cast<float>(k) + 0.5f) * d), cell[a].push_back(d);
  }
  auto within = [&](int a, float x) { return x > b.frame.offset && x < b.frame.offset + params.boxSize[a]; };
  FluidState s;
  for (std::size_t k = 0; k < axis[2].size(); ++k)
    for (std::size_t j = 0; j < axis[1].size(); ++j)
      for (std::size_t i = 0; i < axis[0].size(); ++i)
        if (!(within(0, axis[0][i]) && within(1, axis[1][j]) && within(2, axis[2][k]))) {
          // w: the lattice cell's volume, carried through the sort
          s.pos.push_back({axis[0][i], axis[1][j], axis[2][k], cell[0][i] * cell[1][j] * cell[2][k]});
        }
  sortBoundary(grown, s, b);
  return b;
}

Boundary makeObstacleBoundary(const FluidParams& params, int layers) {
  const float d = params.spacing, h = smoothingLength(params), radius = params.obstacleRadius;
  Boundary b;
  b.frame.offset = radius + h;
  b.frame.reach2 = (radius - 0.5f * d + h) * (radius - 0.5f * d + h); // the outer shell's radius + h
  FluidParams grown = params; // a cube of side 2 offset around the centre: every fluid position within reach inside
  std::fill(grown.boxSize, grown.boxSize + 3, 2.0f * b.frame.offset);
  constexpr double kPi = 3.14159265358979323846, kGolden = 2.39996322972865332; // pi (3 - sqrt 5)
  const double dd = d;
  FluidState s;
  for (int k = 0; k < layers; ++k) {
    const double r = radius - (k + 0.5) * dd;
    if (r < 0.5 * dd) break; // the sphere's core: no further shell fits
    const long count = std::max(1L, std::lround(4.0 * kPi * r * r / (dd * dd)));
    const double lo = r - 0.5 * dd, hi = r + 0.5 * dd;
    const auto cell = static_cast<float>(4.0 / 3.0 * kPi * (hi * hi * hi - lo * lo * lo) / static_cast<double>(count));
    for (long i = 0; i < count; ++i) {
      const double y = 1.0 - 2.0 * (static_cast<double>(i) + 0.5) / static_cast<double>(count);
      const double ring = std::sqrt(1.0 - y * y), phi = kGolden * static_cast<double>(i);
      s.pos.push_back({static_cast<float>(r * ring * std::cos(phi)) + b.frame.offset,
                       static_cast<float>(r * y) + b.frame.offset,
                       static_cast<float>(r * ring * std::sin(phi)) + b.frame.offset, cell});
    }
  }
  sortBoundary(grown, s, b);
  return b;
}

void prepareBoundaries(const FluidParams& params, const DfsphSettings& settings, bool obstacleOn,
                       DfsphWorkspace& work) {
  const FluidParams& was = work.boundaryParams;
  const int layers = settings.boundaryLayers;
  const bool lattice = work.boundaryLayers == layers && was.spacing == params.spacing;
  if (!lattice || !std::equal(was.boxSize, was.boxSize + 3, params.boxSize))
    work.boundary = layers > 0 ? makeWallBoundary(params, layers) : Boundary{};
  if (!lattice || was.obstacleRadius != params.obstacleRadius) {
    work.obstacle = layers > 0 && params.obstacleRadius > 0.0f ? makeObstacleBoundary(params, layers) : Boundary{};
    ++work.obstacleBuilds;
  }
  work.boundaryParams = params;
  work.boundaryLayers = layers;
  work.obstacle.frame.origin = toVec3(params.obstacleCentre);
  work.obstacle.active = obstacleOn && params.obstacleRadius > 0.0f;
}

namespace {

// sum_b fn(V_b, d, r2) over the boundary particles within h of x (d = x - x_b, in the boundary's frame); zero without
// a boundary, for an inactive one, and for x beyond its reach.
template <typename T, typename Fn>
T boundarySum(const Boundary& b, Vec3 fluidX, float h2, const Fn& fn) {
  Vec3 x{0.0f, 0.0f, 0.0f};
  if (b.size() == 0 || !b.active || !sph_math::toBoundaryFrame(fluidX, b.frame, x)) return T{};
  return neighbourSum<T>(b.grid, x, [&](std::uint32_t k) {
    const Vec3 d = x - xyz(b.pos[k]);
    const float r2 = sph_math::dot(d, d);
    return r2 < h2 ? fn(b.volume[k], d, r2) : T{};
  });
}

// The walls' sum plus the obstacle's, as the kernels add them.
template <typename T, typename Fn>
T boundarySums(const DfsphWorkspace& work, Vec3 fluidX, float h2, const Fn& fn) {
  return boundarySum<T>(work.boundary, fluidX, h2, fn) + boundarySum<T>(work.obstacle, fluidX, h2, fn);
}

} // namespace

BoundaryTerms boundaryTermsAt(const FluidParams& params, const DfsphWorkspace& work, Vec3 x) {
  const float h = smoothingLength(params), h2 = h * h;
  return boundarySums<BoundaryTerms>(work, x, h2, [&](float volume, Vec3 d, float r2) {
    const float psi = params.restDensity * volume;
    return BoundaryTerms{psi * sph_math::kernelW(r2, h), d * (psi * sph_math::kernelGradFactor(r2, h))};
  });
}

void computeDensityFactor(const FluidParams& params, FluidState& state, DfsphWorkspace& work) {
  const float h = smoothingLength(params), h2 = h * h, mass = particleMass(params);
  const FluidGrid& grid = work.fluid.grid;
  state.density.resize(state.size());
  work.alpha.resize(state.size());
  work.boundaryGrad.resize(state.size());
  StepNeighbours& kept = work.fluid.neighbours;
  kept.resize(state.size());
  forParticlesInChunks(static_cast<std::int64_t>(state.size()), [&](std::size_t i) {
    const Vec3 xi = xyz(state.pos[i]);
    StepNeighbours::Lister lister(&kept, i);
    bool walked = false;
    const FactorSums s = listSum<FactorSums>(
        grid, state.pos, xi, h2,
        [&](std::uint32_t j, Vec3 d, float r2) {
          lister.add(j);
          const Vec3 g = d * (mass * sph_math::kernelGradFactor(r2, h)); // 0 for j = i
          return FactorSums{sph_math::kernelW(r2, h), sph_math::dot(g, g), g};
        },
        &walked);
    lister.finish(walked);
    // The boundary adds to the density and to the gradient sum, not to the sum of squares (it does not move).
    const BoundaryTerms b = boundaryTermsAt(params, work, xi);
    state.density[i] = mass * s.w + b.density;
    work.alpha[i] = sph_math::dfsphFactor(state.density[i], s.grad + b.grad, s.grad2);
    work.boundaryGrad[i] = b.grad;
  });
}

unsigned long long solveErrors(sph_math::Solve which, const FluidParams& params, float dt, const FluidState& state,
                               DfsphWorkspace& work) {
  const float h = smoothingLength(params), h2 = h * h, mass = particleMass(params);
  work.kappaOverRho.resize(state.size());
  // The exact (integer) error sum, the same in any order.
  return sumOverParticlesInChunks(static_cast<std::int64_t>(state.size()), [&](std::size_t i) {
    const Vec3 vi = xyz(state.vel[i]);
    const float rate = stepSum<float>(work, state.pos, i, h2,
                                      [&](std::uint32_t j, Vec3 d, float r2) {
                                        return sph_math::densityRatePair(d, vi - xyz(state.vel[j]),
                                                                         sph_math::kernelGradFactor(r2, h), mass);
                                      }) +
                       sph_math::boundaryRate(vi, work.boundaryGrad[i]);
    const sph_math::SolveTerm t =
        sph_math::solveTerm(which, rate, state.density[i], params.restDensity, work.alpha[i], dt);
    work.kappaOverRho[i] = t.kappaOverRho;
    return sph_math::errorTicks(t.error);
  });
}

void applyKappa(const FluidParams& params, float dt, FluidState& state, DfsphWorkspace& work) {
  const float h = smoothingLength(params), h2 = h * h, mass = particleMass(params);
  forParticlesInChunks(
      static_cast<std::int64_t>(state.size()), [&](std::size_t i) { // reads kappas and positions, writes v_i only
        const float ki = work.kappaOverRho[i];
        const Vec3 a = stepSum<Vec3>(work, state.pos, i, h2,
                                     [&](std::uint32_t j, Vec3 d, float r2) {
                                       return sph_math::pairAcceleration(d, sph_math::kernelGradFactor(r2, h), mass, ki,
                                                                         work.kappaOverRho[j], 0.0f);
                                     }) +
                       sph_math::boundaryAcceleration(work.boundaryGrad[i], ki);
        Float4& v = state.vel[i];
        v = {v.x + a.x * dt, v.y + a.y * dt, v.z + a.z * dt, v.w};
      });
  work.appliedKappa.resize(state.size(), 0.0f);
  for (std::size_t i = 0; i < state.size(); ++i) work.appliedKappa[i] += work.kappaOverRho[i];
}

std::vector<float> dfsphPressure(const FluidState& state, const DfsphWorkspace& work) {
  std::vector<float> p(state.size(), 0.0f);
  for (std::size_t i = 0; i < std::min(p.size(), work.appliedKappa.size()); ++i)
    p[i] = state.density[i] * state.density[i] * work.appliedKappa[i];
  return p;
}

SolveStats solve(sph_math::Solve which, const FluidParams& params, const DfsphSettings& settings, float dt,
                 FluidState& state, DfsphWorkspace& work) {
  const int n = static_cast<int>(state.size());
  const sph_math::SolveRule rule = settings.ruleOf(which);
  SolveStats s;
  unsigned long long ticks = solveErrors(which, params, dt, state, work);
  while (sph_math::solveContinues(ticks, n, rule, s.iterations)) {
    applyKappa(params, dt, state, work);
    ++s.iterations;
    ticks = solveErrors(which, params, dt, state, work);
  }
  s.error = sph_math::averageError(ticks, n);
  return s;
}

void applyNonPressure(const FluidParams& params, float alpha, Vec3 gravity, float dt, FluidState& state,
                      DfsphWorkspace& work) {
  const float h = smoothingLength(params), h2 = h * h, mass = particleMass(params), cs = speedOfSound(params);
  std::vector<Float4>& accel = work.fluid.accel;
  accel.resize(state.size());
  forParticlesInChunks(
      static_cast<std::int64_t>(state.size()), [&](std::size_t i) { // all accelerations from the old velocities first
        const Vec3 vi = xyz(state.vel[i]);
        const float rhoI = state.density[i];
        const Vec3 a = stepSum<Vec3>(work, state.pos, i, h2, [&](std::uint32_t j, Vec3 d, float r2) {
          if (alpha == 0.0f) return Vec3{0.0f, 0.0f, 0.0f};
          const float pi =
              sph_math::artificialViscosity(d, vi - xyz(state.vel[j]), rhoI, state.density[j], h, alpha, cs);
          return sph_math::pairAcceleration(d, sph_math::kernelGradFactor(r2, h), mass, 0.0f, 0.0f, pi);
        });
        accel[i] = {a.x + gravity.x, a.y + gravity.y, a.z + gravity.z, 0.0f};
      });
  forParticlesInChunks(static_cast<std::int64_t>(state.size()), [&](std::size_t i) {
    Float4& v = state.vel[i];
    v = {v.x + accel[i].x * dt, v.y + accel[i].y * dt, v.z + accel[i].z * dt, v.w};
  });
}

DfsphStep dfsphStep(const FluidParams& params, const DfsphSettings& settings, FluidState& state, DfsphWorkspace& work,
                    float dt, const SubstepSwitches& on, const AfterStage& after) {
  const auto done = [&](std::string_view stage) {
    if (after) after(stage);
  };
  DfsphStep step;
  prepareBoundaries(params, settings, on.obstacle, work);
  buildSortedGrid(params, state, work.fluid);
  computeDensityFactor(params, state, work);
  work.appliedKappa.assign(state.size(), 0.0f);
  done("density_factor");
  for (const float rho : state.density)
    step.peakCompression = std::max(step.peakCompression, rho / params.restDensity - 1.0f);
  step.divergence = solve(sph_math::Solve::Divergence, params, settings, dt, state, work);
  applyNonPressure(params, on.viscosity ? params.viscosity : 0.0f,
                   on.gravity ? toVec3(params.gravity) : Vec3{0.0f, 0.0f, 0.0f}, dt, state, work);
  const WallRule walls = wallRule(FluidSolver::Dfsph, params, settings);
  const Vec3 box = toVec3(params.boxSize);
  const float slack = sph_math::kWallApproachSlack * params.spacing;
  for (std::size_t i = 0; i < state.size(); ++i) { // what the walls would do, as velocities the solve can see
    Vec3 v = xyz(state.vel[i]);
    sph_math::capWallApproach(xyz(state.pos[i]), v, box, walls.radius, slack, dt);
    state.vel[i] = {v.x, v.y, v.z, state.vel[i].w};
  }
  step.density = solve(sph_math::Solve::Density, params, settings, dt, state, work);
  for (std::size_t i = 0; i < state.size(); ++i) { // positions from the divergence- and density-corrected velocities
    Float4& x = state.pos[i];
    const Float4& v = state.vel[i];
    x = {x.x + v.x * dt, x.y + v.y * dt, x.z + v.z * dt, x.w};
  }
  done("advect");
  if (on.obstacle) applyObstacle(params, walls.radius, state);
  const std::array<double, 3> added = applyWalls(params, walls.radius, walls.mirror, state);
  for (int a = 0; a < 3; ++a) step.wallImpulse[a] = added[a] * static_cast<double>(particleMass(params));
  done("walls");
  state.time += static_cast<double>(dt);
  return step;
}

DfsphFrame dfsphStepFrame(const FluidParams& params, const DfsphSettings& settings, FluidState& state,
                          DfsphWorkspace& work, float frameDt, const SubstepSwitches& on,
                          const AfterSubstepStage& after) {
  DfsphFrame f;
  FrameStep& fs = f.frame;
  while (sph_math::frameContinues(frameDt, fs.covered, fs.substeps, params.maxSubsteps)) {
    const float limit =
        sph_math::velocityDt(settings.timeStepFactor, params.spacing, maxSpeed(state), settings.minDt, settings.maxDt);
    const float dt = sph_math::substepDt(frameDt, fs.covered, fs.substeps, params.maxSubsteps, limit);
    const int substep = fs.substeps;
    const DfsphStep s = dfsphStep(params, settings, state, work, dt, on, [&](std::string_view stage) {
      if (after) after(substep, stage);
    });
    f.divergence.add(s.divergence.iterations);
    f.density.add(s.density.iterations);
    f.peakCompression = std::max(f.peakCompression, s.peakCompression);
    f.densityError = s.density.error;
    for (int a = 0; a < 3; ++a) f.wallImpulse[a] += s.wallImpulse[a];
    fs.covered += dt;
    fs.lastDt = dt;
    ++fs.substeps;
  }
  return f;
}

} // namespace graphsim::fluid
