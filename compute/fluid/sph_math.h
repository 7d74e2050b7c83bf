// The per-particle formulas of the fluid scene (weakly compressible SPH), written once for the CPU reference
// (fluid_cpu.cpp) and the CUDA kernels to come, as compute/nbody/nbody_math.h is for nbody: same expressions, same
// operation order, float32 on both sides. docs/FLUID.md gives the equations and why each choice was made.
//
// Conventions: SI units (m, s, kg); the box spans [0, boxSize] on each axis; +y is up; h is the kernel's support
// radius (W = 0 at r >= h), h = 2 x lattice spacing, and the grid's cell size is h, so that every neighbour within h
// of a particle lies in the 27 cells around its own.
//
// Plain C++ with no dependencies beyond <cmath>/<cstdint> and compute/vec3.h; under nvcc every function is
// __host__ __device__.
#pragma once

#include <cmath>
#include <cstdint>

#include "compute/vec3.h"

namespace graphsim::sph_math {

using math::dot;
using math::Vec3;

inline constexpr float kPi = 3.14159265358979f;

// Wendland C2 kernel in 3D with support radius h, q = r / h:
//   W(r) = 21 / (2 pi h^3) (1 - q)^4 (1 + 4q)   for q < 1, else 0.
GRAPHSIM_HD inline float wendlandNorm(float h) { return 21.0f / (2.0f * kPi * h * h * h); }

GRAPHSIM_HD inline float kernelW(float r2, float h) {
  const float q = sqrtf(r2) / h;
  if (q >= 1.0f) return 0.0f;
  const float t = 1.0f - q;
  const float t2 = t * t;
  return wendlandNorm(h) * t2 * t2 * (1.0f + 4.0f * q);
}

// Gradient of W with respect to x_i for d = x_i - x_j: dW/dr = -20 sigma q (1 - q)^3 / h and d / r = d / (q h), so
//   grad_i W = d * (-20 sigma (1 - q)^3 / h^2),
// which has no 1/r: r = 0 (a particle with itself) gives a zero gradient, not 0 * inf.
GRAPHSIM_HD inline float kernelGradFactor(float r2, float h) {
  const float q = sqrtf(r2) / h;
  if (q >= 1.0f) return 0.0f;
  const float t = 1.0f - q;
  return -20.0f * wendlandNorm(h) * t * t * t / (h * h);
}

// Tait equation of state with gamma = 7: p = B ((rho / rho0)^7 - 1), B = rho0 * stiffness, clamped at 0. The clamp
// drops the tension a particle with missing neighbours (free surface, walls) would otherwise feel, which pulls
// particles into clumps (tensile instability). Speed of sound c_s = sqrt(dp/drho at rho0) = sqrt(7 * stiffness).
GRAPHSIM_HD inline float taitPressure(float rho, float rho0, float stiffness) {
  const float r = rho / rho0;
  const float r2 = r * r;
  const float r4 = r2 * r2;
  const float p = rho0 * stiffness * (r4 * r2 * r - 1.0f);
  return p > 0.0f ? p : 0.0f;
}

GRAPHSIM_HD inline float soundSpeed(float stiffness) { return sqrtf(7.0f * stiffness); }

// Monaghan's artificial viscosity for the pair (i, j), d = x_i - x_j, dv = v_i - v_j: only approaching pairs
// (dv . d < 0) are damped,
//   mu = h (dv . d) / (|d|^2 + 0.01 h^2),   Pi = -alpha c_s mu / ((rho_i + rho_j) / 2),
// and Pi enters the momentum equation beside p_i / rho_i^2 + p_j / rho_j^2. The 0.01 h^2 keeps mu finite at r = 0.
GRAPHSIM_HD inline float artificialViscosity(Vec3 d, Vec3 dv, float rhoI, float rhoJ, float h, float alpha, float cs) {
  const float vd = dot(dv, d);
  if (vd >= 0.0f) return 0.0f;
  const float mu = h * vd / (dot(d, d) + 0.01f * h * h);
  return -alpha * cs * mu / (0.5f * (rhoI + rhoJ));
}

// The acceleration that particle j adds to particle i (pressure + viscosity), given grad_i W = d * gradFactor:
//   a_i += -m (p_i / rho_i^2 + p_j / rho_j^2 + Pi_ij) grad_i W.
// Symmetric in i and j up to the sign, so momentum is conserved pair by pair.
GRAPHSIM_HD inline Vec3 pairAcceleration(Vec3 d, float gradFactor, float mass, float pOverRho2I, float pOverRho2J,
                                         float pi) {
  return d * (-mass * (pOverRho2I + pOverRho2J + pi) * gradFactor);
}

// integrate: symplectic Euler, v(t + dt) = v(t) + a dt, x(t + dt) = x(t) + v(t + dt) dt. Gravity is part of a.
using math::integrate;

// walls: one axis of the box. A particle closer than its radius to a face is put back at that distance (WCSPH) or
// mirrored back across it (`mirror`, DFSPH: x = 2 lo - x, kept within [lo, hi]), and an outward velocity is mirrored
// and scaled by the restitution e in [0, 1] (e = 1 elastic, e = 0 stops it). Why DFSPH mirrors: a clamp puts every
// particle that crosses two or three faces in one step on the same edge or corner point, and two particles at one
// point have no kernel gradient between them, so no pressure parts them; DFSPH's solve then pumps velocity into the
// pair until the step blows up (docs/FLUID.md). WCSPH's pressure parts them, and its clamp keeps a particle at rest
// on the floor exactly at lo, so that the CPU and CUDA agree particle by particle.
GRAPHSIM_HD inline void reflectAxis(float& x, float& v, float lo, float hi, float restitution, bool mirror) {
  if (x < lo) {
    x = mirror ? fminf(2.0f * lo - x, hi) : lo;
    if (v < 0.0f) v = -v * restitution;
  } else if (x > hi) {
    x = mirror ? fmaxf(2.0f * hi - x, lo) : hi;
    if (v > 0.0f) v = -v * restitution;
  }
}

// A NaN position compares false with both faces, so reflectAxis leaves it NaN: the blow-up check must see it.
GRAPHSIM_HD inline void reflectAtWalls(Vec3& x, Vec3& v, Vec3 boxSize, float radius, float restitution,
                                       bool mirror = false) {
  reflectAxis(x.x, v.x, radius, boxSize.x - radius, restitution, mirror);
  reflectAxis(x.y, v.y, radius, boxSize.y - radius, restitution, mirror);
  reflectAxis(x.z, v.z, radius, boxSize.z - radius, restitution, mirror);
}

// DFSPH, before the density solve: a particle whose velocity would carry it more than `slack` beyond the walls'
// reflection plane (radius from a face) in this step is slowed along that axis to arrive at the plane instead. The
// solve then predicts the stop, so its neighbours behind it are held back; otherwise the walls stage mirrors it back
// after the solve, up to 2 v dt towards them, and a particle next to it can gain 8-12 % density in that one stage
// (docs/FLUID.md). The slack (kWallApproachSlack spacings) keeps the cap off a fluid at rest, whose bottom layer
// sits just above the plane and must stay carried by the boundary's pressure, not by this cap.
inline constexpr float kWallApproachSlack = 0.05f; // [lattice spacings]
GRAPHSIM_HD inline void capWallApproachAxis(float x, float& v, float lo, float hi, float slack, float dt) {
  if (x + v * dt < lo - slack) {
    v = (lo - x) / dt;
  } else if (x + v * dt > hi + slack) {
    v = (hi - x) / dt;
  }
}
GRAPHSIM_HD inline void capWallApproach(Vec3 x, Vec3& v, Vec3 boxSize, float radius, float slack, float dt) {
  capWallApproachAxis(x.x, v.x, radius, boxSize.x - radius, slack, dt);
  capWallApproachAxis(x.y, v.y, radius, boxSize.y - radius, slack, dt);
  capWallApproachAxis(x.z, v.z, radius, boxSize.z - radius, slack, dt);
}

// obstacle: a sphere (centre c, radius R). A particle whose centre is closer than R + radius to c is pushed out
// along the normal to that distance; its inward normal velocity is mirrored and scaled by the restitution. A
// particle exactly at c (no normal) is pushed up (+y).
GRAPHSIM_HD inline void pushOutOfSphere(Vec3& x, Vec3& v, Vec3 centre, float sphereRadius, float radius,
                                        float restitution) {
  const float reach = sphereRadius + radius;
  const Vec3 d = x - centre;
  const float r2 = dot(d, d);
  if (sphereRadius <= 0.0f || r2 >= reach * reach) return;
  const float r = sqrtf(r2);
  const Vec3 n = r > 0.0f ? d * (1.0f / r) : Vec3{0.0f, 1.0f, 0.0f};
  x = centre + n * reach;
  const float vn = dot(v, n);
  if (vn < 0.0f) v = v - n * ((1.0f + restitution) * vn);
}

// Where a boundary of DFSPH's boundary particles (compute/fluid/dfsph.h) stands and where it can matter. Its own
// frame is x - origin + offset (the walls: origin 0; the obstacle: its centre, so that moving it is no rebuild). None
// of its particles is within h of a fluid position x at reach or farther from origin (reach2 > 0: the obstacle's) or
// strictly inside [innerLo, innerHi] (the walls': the box less h on every side, since their particles lie behind the
// faces; lo > hi: no such box).
struct BoundaryFrame {
  Vec3 origin{0.0f, 0.0f, 0.0f};
  float offset = 0, reach2 = 0;
  Vec3 innerLo{1.0f, 1.0f, 1.0f}, innerHi{0.0f, 0.0f, 0.0f};
};

// x in the boundary's frame; false where none of its particles can be within h (its cells are then not searched:
// the walk would add only zeros).
GRAPHSIM_HD inline bool toBoundaryFrame(Vec3 x, const BoundaryFrame& f, Vec3& local) {
  const Vec3 lo = f.innerLo, hi = f.innerHi;
  if (x.x > lo.x && x.x < hi.x && x.y > lo.y && x.y < hi.y && x.z > lo.z && x.z < hi.z) return false;
  const Vec3 rel = x - f.origin;
  if (f.reach2 > 0.0f && dot(rel, rel) >= f.reach2) return false;
  local = rel + Vec3{f.offset, f.offset, f.offset};
  return true;
}

// The uniform grid: cells of size h, nx * ny * nz of them, cell (0,0,0) at the box's origin.
struct GridDims {
  int nx, ny, nz;
  float cellSize;
};

// A coordinate's cell, clamped into the grid (a NaN goes to cell 0: fmaxf returns the non-NaN operand).
GRAPHSIM_HD inline int cellCoord(float x, float cellSize, int n) {
  const float c = fminf(fmaxf(floorf(x / cellSize), 0.0f), static_cast<float>(n - 1));
  return static_cast<int>(c);
}

// Linear cell key (x fastest): sorting by it makes each cell a contiguous range and each (y, z) row of cells
// contiguous, so the 27-cell walk reads 9 runs of 3 cells. The sort needs only cellKeyBits(dims) key bits.
GRAPHSIM_HD inline std::uint32_t cellKey(int cx, int cy, int cz, GridDims g) {
  return static_cast<std::uint32_t>((cz * g.ny + cy) * g.nx + cx);
}

GRAPHSIM_HD inline std::uint32_t cellKeyOf(Vec3 x, GridDims g) {
  return cellKey(cellCoord(x.x, g.cellSize, g.nx), cellCoord(x.y, g.cellSize, g.ny), cellCoord(x.z, g.cellSize, g.nz),
                 g);
}

// Bits the sort must look at: the smallest b with 2^b >= number of cells (at least 1).
GRAPHSIM_HD inline int cellKeyBits(GridDims g) {
  const std::uint64_t cells =
      static_cast<std::uint64_t>(g.nx) * static_cast<std::uint64_t>(g.ny) * static_cast<std::uint64_t>(g.nz);
  int bits = 1;
  while ((std::uint64_t{1} << bits) < cells) ++bits;
  return bits;
}

// CFL time step: dt = C h / (c_s + max|v|). The acoustic term dominates (c_s is ~10x the flow speed in WCSPH); a
// force criterion sqrt(h / max|a|) is not used: with gravity alone it is ~4x the acoustic step (docs/FLUID.md).
GRAPHSIM_HD inline float cflDt(float cfl, float h, float cs, float maxSpeed) { return cfl * h / (cs + maxSpeed); }

// The substep rule: substeps = min(maxSubsteps, ceil(frameDt / dtCfl)), at least 1. Clamped in float before the
// conversion so that a huge ratio (dtCfl -> 0) cannot overflow the int.
GRAPHSIM_HD inline int substepCount(float frameDt, float dtCfl, int maxSubsteps) {
  const float n = fminf(ceilf(frameDt / dtCfl), static_cast<float>(maxSubsteps));
  return n >= 1.0f ? static_cast<int>(n) : 1;
}

// The frame rule (issue 13): a frame covers frameDt of simulated time in substeps whose dt the GPU decides from
// the state at each substep's start. Before substep `done` (0-based), with `covered` seconds of the frame done:
//   n  = substepCount(frameDt - covered, dtCfl, maxSubsteps - done)   substeps still needed at today's dtCfl
//   dt = min((frameDt - covered) / n, dtCfl)                            the rest split evenly, never above dtCfl
// and the frame goes on while frameContinues(). For a state whose dtCfl does not change within the frame this
// gives exactly substepCount(frameDt, dtCfl, maxSubsteps) substeps of frameDt / n each (clamped: maxSubsteps of
// dtCfl, covering less than frameDt). The CPU reference and the CUDA condition kernel call these two functions.
inline constexpr float kFrameTimeTolerance = 1e-4f; // relative: what float sums of n equal dt may leave uncovered
GRAPHSIM_HD inline float substepDt(float frameDt, float covered, int done, int maxSubsteps, float dtCfl) {
  const float remaining = frameDt - covered;
  const int n = substepCount(remaining, dtCfl, maxSubsteps - done);
  return fminf(remaining / static_cast<float>(n), dtCfl);
}
GRAPHSIM_HD inline bool frameContinues(float frameDt, float covered, int done, int maxSubsteps) {
  return done < maxSubsteps && frameDt - covered > kFrameTimeTolerance * frameDt;
}

// ---- DFSPH: the incompressible solver (Bender & Koschier 2017; docs/FLUID.md) ----
// A step's dt follows the velocity alone: dt = lambda d / max|v| (d the lattice spacing), clamped to [dtMin, dtMax];
// a fluid at rest takes dtMax.
GRAPHSIM_HD inline float velocityDt(float lambda, float spacing, float maxSpeed, float dtMin, float dtMax) {
  const float dt = maxSpeed > 0.0f ? lambda * spacing / maxSpeed : dtMax;
  return fminf(fmaxf(dt, dtMin), dtMax);
}

// The DFSPH factor alpha_i = rho_i / (|sum_j m grad_i W|^2 + sum_j |m grad_i W|^2), from the two sums over the
// neighbours (sumGrad, sumGrad2); 0 for a particle with (almost) no neighbour, which no solve then moves.
GRAPHSIM_HD inline float dfsphFactor(float rho, Vec3 sumGrad, float sumGrad2) {
  const float den = dot(sumGrad, sumGrad) + sumGrad2;
  return den > 1e-6f ? rho / den : 0.0f;
}

// The pair's part of the density's rate of change, m (v_i - v_j) . grad_i W with grad_i W = d * gradFactor:
// positive while i and j approach (compression).
GRAPHSIM_HD inline float densityRatePair(Vec3 d, Vec3 dv, float gradFactor, float mass) {
  return mass * dot(dv, d) * gradFactor;
}

// DFSPH's neighbour lists (compute/fluid/cuda/fluid_kernels.h, NeighbourLists): a lane lists at most kListPerLane
// neighbours, each at most kListSpan sorted places after the lane's first; a particle with a lane past either walks
// its cells. The CPU reference sums as the lists would (dfsph_cpu.cpp, listSum).
inline constexpr int kListPerLane = 32;
inline constexpr unsigned kListSpan = 0xffffu;

// The boundary particles' terms at a fluid position x (Akinci et al. 2012; compute/fluid/dfsph.h, Boundary): density
// sum_b psi_b W(x - x_b) and gradient sum G = sum_b psi_b grad W(x - x_b), psi_b = rho0 V_b. Both floors add a set's
// z-slabs as (s0 + s1) + s2, then walls + obstacle (dfsph_cpu.cpp, boundaryTermsAt; fluid_device.cuh,
// boundarySumsAt).
struct BoundaryTerms {
  float density = 0.0f;
  Vec3 grad{0.0f, 0.0f, 0.0f};
};
GRAPHSIM_HD inline BoundaryTerms operator+(const BoundaryTerms& a, const BoundaryTerms& b) {
  return {a.density + b.density, a.grad + b.grad};
}

// The boundary's part of the solves, from its gradient sum G_i = sum_b psi_b grad_i W_ib (density_factor's): the
// boundary particles do not move within a step, so sum_b densityRatePair(d, v_i, gradFactor, psi_b) = v_i . G_i and
// sum_b pairAcceleration(d, gradFactor, psi_b, kappa_i / rho_i, 0, 0) = -(kappa_i / rho_i) G_i. A solve's iteration
// then walks no boundary at all (docs/PERFORMANCE.md, "The boundary's sums kept").
GRAPHSIM_HD inline float boundaryRate(Vec3 vi, Vec3 boundaryGrad) { return dot(vi, boundaryGrad); }
GRAPHSIM_HD inline Vec3 boundaryAcceleration(Vec3 boundaryGrad, float kappaOverRhoI) {
  return boundaryGrad * (-kappaOverRhoI);
}

// What one solver iteration computes per particle from the density's rate (the sum above): the particle's error
// (relative to rho0, compression only) and kappa_i / rho_i, the stiffness the velocity update applies:
//   density solve:    rho* = max(rho + dt rate, rho0),  error = (rho* - rho0) / rho0,   kappa = (rho* - rho0) alpha /
//   dt^2 divergence solve: rate+ = max(rate, 0),            error = rate+ dt / rho0,         kappa = rate+ alpha / dt
// The velocity update is then v_i += dt sum_j pairAcceleration(d, gradFactor, m, kappa_i / rho_i, kappa_j / rho_j, 0).
enum class Solve : int { Divergence = 0, Density = 1 };
struct SolveTerm {
  float error, kappaOverRho;
};
GRAPHSIM_HD inline SolveTerm solveTerm(Solve solve, float rate, float rho, float rho0, float alpha, float dt) {
  const float excess = solve == Solve::Density ? fmaxf(rho + dt * rate, rho0) - rho0 : fmaxf(rate, 0.0f) * dt;
  return {excess / rho0, excess * alpha / (dt * dt) / rho};
}

// The average error decides a solve's loop on the CPU and on the GPU alike, so it is summed exactly: each particle's
// error as a 32.32 fixed-point integer (clamped at 256, i.e. 25,600 %), whose sum does not depend on the order of
// the additions (a float sum on the GPU's atomics would). 2^22 particles x 2^40 stay below 2^64.
inline constexpr float kErrorTickScale = 4294967296.0f; // 2^32
GRAPHSIM_HD inline unsigned long long errorTicks(float error) {
  return static_cast<unsigned long long>(fminf(fmaxf(error, 0.0f), 256.0f) * kErrorTickScale);
}
GRAPHSIM_HD inline double averageError(unsigned long long ticks, int n) {
  return n > 0 ? static_cast<double>(ticks) / (static_cast<double>(n) * 4294967296.0) : 0.0;
}
// One solve's loop rule: the bound on its average error and its iteration limits.
struct SolveRule {
  float tolerance = 0;
  int minIterations = 0, maxIterations = 0;
};
// Whether a solve runs another iteration after `done` of them: below its minimum always, at its maximum never,
// between them while the average error is above the tolerance.
GRAPHSIM_HD inline bool solveContinues(unsigned long long ticks, int n, const SolveRule& r, int done) {
  if (done >= r.maxIterations) return false;
  return done < r.minIterations || averageError(ticks, n) > static_cast<double>(r.tolerance);
}

} // namespace graphsim::sph_math
