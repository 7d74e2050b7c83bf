// The incompressible solver's kernels (issue 28; compute/fluid/dfsph.h is the CPU reference), and their cases of
// specFor. The rows: compute/fluid/fluid_steps.h (the DFSPH branch of the solver SWITCH and its two solve WHILE
// bodies).
#include <stdexcept>
#include <string>

#include "compute/fluid/cuda/fluid_device.cuh"

namespace graphsim::fluid::gpu {
namespace {

// ---- DFSPH (compute/fluid/dfsph.h: the CPU reference, whose terms these add: in its order when they walk the cells,
// dealt out among the lanes when they read the lists) ----
// Each neighbour stage adds the fluid's three lanes' partial sums, (s0 + s1) + s2, then (density_factor) the boundary's
// the same way, and the two as the CPU's neighbourSum + boundarySum. The solves' iterations take the boundary's part
// from the gradient sum density_factor keeps (sph_math::boundaryRate, boundaryAcceleration).

struct FactorAcc {
  float w, grad2;
  Vec3 grad;
};
__device__ inline FactorAcc operator+(const FactorAcc& a, const FactorAcc& b) {
  return {a.w + b.w, a.grad2 + b.grad2, a.grad + b.grad};
}
__device__ inline FactorAcc groupSumFactor(const FactorAcc& a, int leader) {
  return {groupSum(a.w, leader), groupSum(a.grad2, leader), groupSum3(a.grad, leader)};
}

// Starts a solve: its iteration count and error sum at 0, its WHILE node's handle at 1 (the body runs at least once:
// its first pass computes the errors and the check decides).
__device__ inline void startSolve(FrameControl* ctrl, unsigned long long handle) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  ctrl->solveDone = 0;
  ctrl->ticks = 0;
  if (handle != 0) cudaGraphSetConditional(handle, 1);
}

struct DensityFactorArgs {
  const float4* posS;
  const unsigned *cellStart, *cellEnd;
  float2* rhoP; // (rho, 0)
  float* alpha;
  float4* boundaryGrad; // sum_b psi_b grad W_ib: the solves' boundary terms
  const BoundaryArgs* boundary;
  FrameControl* ctrl;
  BlowUpState* blowUp;
  NeighbourLists lists; // neighbour_lists' (base nullptr: walk the cells)
  unsigned long long divergenceHandle;
  Grid grid;
  int n;
  float h, mass, rho0, maxDensity;
  int pad;
};
static_assert(sizeof(DensityFactorArgs) == 144, "no implicit padding: equal parameters are equal bytes");

__global__ void __launch_bounds__(128) densityFactorKernel(DensityFactorArgs a) {
  startSolve(a.ctrl, a.divergenceHandle);
  const LaneOf l = laneOf(a.n);
  const float h2 = a.h * a.h;
  FactorAcc f{0.0f, 0.0f, {0.0f, 0.0f, 0.0f}};
  Vec3 xi{0.0f, 0.0f, 0.0f};
  if (l.particle >= 0) {
    xi = xyz(a.posS[l.particle]);
    forEachNeighbourInSlab(a.lists, a.n, a.cellStart, a.cellEnd, a.grid, xi, l.particle, l.lane, [&](unsigned j) {
      const Vec3 d = xi - xyz(__ldg(&a.posS[j]));
      const float r2 = sph_math::dot(d, d);
      if (r2 >= h2) {
        f = f + FactorAcc{0.0f, 0.0f, {0.0f, 0.0f, 0.0f}};
        return;
      }
      const Vec3 g = d * (a.mass * sph_math::kernelGradFactor(r2, a.h));
      f = f + FactorAcc{sph_math::kernelW(r2, a.h), sph_math::dot(g, g), g};
    });
  }
  f = groupSumFactor(f, l.leader);
  const sph_math::BoundaryTerms b = boundarySumsAt(a.boundary, l, xi, a.h, a.rho0);
  if (l.particle < 0 || l.lane != 0) return;
  const int i = l.particle;
  const float rho = a.mass * f.w + b.density;
  a.rhoP[i] = make_float2(rho, 0.0f);
  a.alpha[i] = sph_math::dfsphFactor(rho, f.grad + b.grad, f.grad2);
  a.boundaryGrad[i] = withW(b.grad, 0.0f);
  recordCompression(a.ctrl, rho, a.rho0);
  if (!isfinite(rho)) {
    flagBlowUp(a.blowUp, a.ctrl, FluidStep::DensityFactor, kWhatNonFinite, i);
  } else if (rho > a.maxDensity) {
    flagBlowUp(a.blowUp, a.ctrl, FluidStep::DensityFactor, kWhatDensity, i);
  }
}

struct SolveArgs { // the errors and kappa kernels of one solve
  const float4* posS;
  float4* vel; // the solve's velocities: velS (divergence) or the non-pressure ones (density)
  const unsigned *cellStart, *cellEnd;
  const float2* rhoP;
  const float* alpha;
  float4* posKappa;           // (x_i, kappa_i / rho_i): the kappa kernel gathers a neighbour's both in one load
  const float4* boundaryGrad; // density_factor's
  FrameControl* ctrl;
  NeighbourLists lists; // neighbour_lists' (base nullptr: walk the cells)
  Grid grid;
  int n, which; // sph_math::Solve
  float h, mass, rho0;
  int pad;
};
static_assert(sizeof(SolveArgs) == 136, "no implicit padding: equal parameters are equal bytes");

// One iteration's errors and kappas, and the exact error sum (one 64-bit atomic per warp).
__global__ void __launch_bounds__(128) solveErrorsKernel(SolveArgs a) {
  const LaneOf l = laneOf(a.n);
  const float h2 = a.h * a.h;
  float rate = 0.0f;
  Vec3 vi{0.0f, 0.0f, 0.0f};
  if (l.particle >= 0) {
    const Vec3 xi = xyz(a.posS[l.particle]);
    vi = xyz(a.vel[l.particle]);
    forEachNeighbourInSlab(a.lists, a.n, a.cellStart, a.cellEnd, a.grid, xi, l.particle, l.lane, [&](unsigned j) {
      const Vec3 d = xi - xyz(__ldg(&a.posS[j]));
      const float r2 = sph_math::dot(d, d);
      rate += r2 < h2 ? sph_math::densityRatePair(d, vi - xyz(a.vel[j]), sph_math::kernelGradFactor(r2, a.h), a.mass)
                      : 0.0f;
    });
  }
  rate = groupSum(rate, l.leader);
  unsigned long long ticks = 0;
  if (l.particle >= 0 && l.lane == 0) {
    const int i = l.particle;
    rate += sph_math::boundaryRate(vi, xyz(a.boundaryGrad[i]));
    const sph_math::SolveTerm t =
        sph_math::solveTerm(static_cast<sph_math::Solve>(a.which), rate, a.rhoP[i].x, a.rho0, a.alpha[i], a.ctrl->dt);
    a.posKappa[i] = withW(xyz(a.posS[i]), t.kappaOverRho);
    ticks = sph_math::errorTicks(t.error);
  }
  for (int off = 16; off > 0; off >>= 1) ticks += __shfl_xor_sync(0xffffffffu, ticks, off);
  if ((threadIdx.x & 31u) == 0 && ticks != 0) atomicAdd(&a.ctrl->ticks, ticks);
}

struct SolveCheckArgs {
  FrameControl* ctrl;
  unsigned long long handle; // the solve's WHILE; 0: none (unrolled, or the host decides from ctrl->solveApply)
  int n, which;
  sph_math::SolveRule rule;
};

// The loop rule on the exact sum (sph_math::solveContinues, as the CPU's solve()): go on (kappa applies, one more
// iteration) or stop (kappa does nothing; the frame's iteration counts and the density error are recorded).
__global__ void solveCheckKernel(SolveCheckArgs a) {
  FrameControl& c = *a.ctrl;
  const unsigned long long ticks = c.ticks;
  c.ticks = 0;
  const int done = c.solveDone;
  const bool more = sph_math::solveContinues(ticks, a.n, a.rule, done);
  c.solveApply = more ? 1 : 0;
  if (more) {
    c.solveDone = done + 1;
  } else {
    c.itMin[a.which] = min(c.itMin[a.which], done);
    c.itMax[a.which] = max(c.itMax[a.which], done);
    c.itTotal[a.which] += done;
    if (a.which == static_cast<int>(sph_math::Solve::Density))
      c.densityError = static_cast<float>(sph_math::averageError(ticks, a.n));
  }
  if (a.handle != 0) cudaGraphSetConditional(a.handle, more ? 1u : 0u);
}

// v_i += dt sum_j pairAcceleration(kappa_i / rho_i, kappa_j / rho_j) (+ the boundary's, mirrored); nothing when the
// check stopped the solve. At most 40 registers (12 blocks of 128 an SM: 75 % occupancy, from 62.5 % at 48) and kappa_j
// through the read-only path: 7-10 % faster on an H200 (the errors kernel was slower so bounded: docs/PERFORMANCE.md);
// x_j and kappa_j / rho_j in one float4 (posKappa), one gather a neighbour instead of two.
__global__ void __launch_bounds__(128, 12) solveKappaKernel(SolveArgs a) {
  if (a.ctrl->solveApply == 0) return; // the same for every thread
  const LaneOf l = laneOf(a.n);
  const float h2 = a.h * a.h;
  Vec3 f{0.0f, 0.0f, 0.0f};
  float ki = 0.0f;
  if (l.particle >= 0) {
    const float4 self = a.posKappa[l.particle];
    const Vec3 xi = xyz(self);
    ki = self.w;
    forEachNeighbourInSlab(a.lists, a.n, a.cellStart, a.cellEnd, a.grid, xi, l.particle, l.lane, [&](unsigned j) {
      const float4 xj = __ldg(&a.posKappa[j]); // w: kappa_j / rho_j
      const Vec3 d = xi - xyz(xj);
      const float r2 = sph_math::dot(d, d);
      f = f + (r2 < h2 ? sph_math::pairAcceleration(d, sph_math::kernelGradFactor(r2, a.h), a.mass, ki, xj.w, 0.0f)
                       : Vec3{0.0f, 0.0f, 0.0f});
    });
  }
  const Vec3 fluid = groupSum3(f, l.leader);
  if (l.particle < 0 || l.lane != 0) return;
  const Vec3 acc = fluid + sph_math::boundaryAcceleration(xyz(a.boundaryGrad[l.particle]), ki);
  const float dt = a.ctrl->dt;
  float4& v = a.vel[l.particle];
  v = make_float4(v.x + acc.x * dt, v.y + acc.y * dt, v.z + acc.z * dt, v.w);
}

struct NonPressureArgs {
  const float4 *posS, *velS;
  float4* velD; // velS + dt (viscosity + gravity)
  const float2* rhoP;
  const unsigned *cellStart, *cellEnd;
  FrameControl* ctrl;
  NeighbourLists lists; // neighbour_lists' (base nullptr: walk the cells)
  unsigned long long densityHandle;
  Grid grid;
  int n;
  float h, mass, cs, alpha, gx, gy, gz;
  float box[3], wallRadius, wallSlack; // sph_math::capWallApproach's
  int pad;
};
static_assert(sizeof(NonPressureArgs) == 160, "no implicit padding: equal parameters are equal bytes");

__global__ void __launch_bounds__(128) nonPressureKernel(NonPressureArgs a) {
  startSolve(a.ctrl, a.densityHandle);
  const LaneOf l = laneOf(a.n);
  Vec3 acc{0.0f, 0.0f, 0.0f};
  if (l.particle >= 0) {
    const Vec3 xi = xyz(a.posS[l.particle]), vi = xyz(a.velS[l.particle]);
    const float rhoI = a.rhoP[l.particle].x, h2 = a.h * a.h;
    forEachNeighbourInSlab(a.lists, a.n, a.cellStart, a.cellEnd, a.grid, xi, l.particle, l.lane, [&](unsigned j) {
      const Vec3 d = xi - xyz(__ldg(&a.posS[j]));
      const float r2 = sph_math::dot(d, d);
      if (r2 >= h2 || a.alpha == 0.0f) {
        acc = acc + Vec3{0.0f, 0.0f, 0.0f};
        return;
      }
      const float pi =
          sph_math::artificialViscosity(d, vi - xyz(__ldg(&a.velS[j])), rhoI, __ldg(&a.rhoP[j]).x, a.h, a.alpha, a.cs);
      acc = acc + sph_math::pairAcceleration(d, sph_math::kernelGradFactor(r2, a.h), a.mass, 0.0f, 0.0f, pi);
    });
  }
  acc = groupSum3(acc, l.leader);
  if (l.particle < 0 || l.lane != 0) return;
  const Vec3 g{acc.x + a.gx, acc.y + a.gy, acc.z + a.gz};
  const float dt = a.ctrl->dt;
  const float4 v = a.velS[l.particle];
  Vec3 next{v.x + g.x * dt, v.y + g.y * dt, v.z + g.z * dt};
  // The walls' stop as a velocity the density solve sees (the CPU's loop after applyNonPressure).
  sph_math::capWallApproach(xyz(a.posS[l.particle]), next, Vec3{a.box[0], a.box[1], a.box[2]}, a.wallRadius,
                            a.wallSlack, dt);
  a.velD[l.particle] = withW(next, v.w);
}

struct AdvectArgs {
  const float4 *posS, *velD;
  float4 *pos, *vel;
  const FrameControl* ctrl;
  BlowUpState* blowUp;
  int n, pad;
};

__global__ void advectKernel(AdvectArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const float dt = a.ctrl->dt;
  const float4 x = a.posS[i], v = a.velD[i];
  a.pos[i] = make_float4(x.x + v.x * dt, x.y + v.y * dt, x.z + v.z * dt, x.w);
  a.vel[i] = v;
  if (!finite3(xyz(a.pos[i])) || !finite3(xyz(v))) flagBlowUp(a.blowUp, a.ctrl, FluidStep::Advect, kWhatNonFinite, i);
}

} // namespace

KernelSpec dfsphSpecFor(FluidStep step, const DeviceState& d, const Scratch& s, const KernelParams& k, const Grid& g,
                        const Handles& handles) {
  const auto solveArgs = [&](sph_math::Solve which) {
    const int w = static_cast<int>(which);
    float4* v = which == sph_math::Solve::Divergence ? s.velS : s.accel;
    return SolveArgs{s.posS, v,       s.cellStart, s.cellEnd, d.rhoP, s.alpha, s.posKappa, s.boundaryGrad,
                     d.ctrl, s.lists, g,           d.n,       w,      k.h,     k.mass,     k.restDensity,
                     0};
  };
  const auto checkArgs = [&](sph_math::Solve which, unsigned long long h) {
    const int w = static_cast<int>(which);
    return SolveCheckArgs{d.ctrl, h, d.n, w, k.rule[w]};
  };
  switch (step) {
  case FluidStep::DensityFactor:
    return specOf(densityFactorKernel,
                  {s.posS, s.cellStart, s.cellEnd, d.rhoP, s.alpha, s.boundaryGrad, d.boundary, d.ctrl, d.blowUp,
                   s.lists, handles.divergence, g, d.n, k.h, k.mass, k.restDensity, k.maxDensity, 0},
                  laneThreads(d.n), 128);
  case FluidStep::DivergenceErrors:
    return specOf(solveErrorsKernel, solveArgs(sph_math::Solve::Divergence), laneThreads(d.n), 128);
  case FluidStep::DensityErrors:
    return specOf(solveErrorsKernel, solveArgs(sph_math::Solve::Density), laneThreads(d.n), 128);
  case FluidStep::DivergenceCheck:
    return specOf(solveCheckKernel, checkArgs(sph_math::Solve::Divergence, handles.divergence), 1, 1);
  case FluidStep::DensityCheck:
    return specOf(solveCheckKernel, checkArgs(sph_math::Solve::Density, handles.density), 1, 1);
  case FluidStep::DivergenceKappa:
    return specOf(solveKappaKernel, solveArgs(sph_math::Solve::Divergence), laneThreads(d.n), 128);
  case FluidStep::DensityKappa:
    return specOf(solveKappaKernel, solveArgs(sph_math::Solve::Density), laneThreads(d.n), 128);
  case FluidStep::NonPressure:
    return specOf(nonPressureKernel,
                  {s.posS,
                   s.velS,
                   s.accel,
                   d.rhoP,
                   s.cellStart,
                   s.cellEnd,
                   d.ctrl,
                   s.lists,
                   handles.density,
                   g,
                   d.n,
                   k.h,
                   k.mass,
                   k.cs,
                   k.alpha,
                   k.gravity[0],
                   k.gravity[1],
                   k.gravity[2],
                   {k.box[0], k.box[1], k.box[2]},
                   k.wallRadius,
                   sph_math::kWallApproachSlack * k.spacing,
                   0},
                  laneThreads(d.n), 128);
  case FluidStep::Advect:
    return specOf(advectKernel, {s.posS, s.accel, d.pos, d.vel, d.ctrl, d.blowUp, d.n, 0}, count(d.n));
  default: break;
  }
  throw std::logic_error(std::string("dfsphSpecFor: ") + std::string(stepRow(step).name) +
                         " is not a DFSPH kernel row");
}

} // namespace graphsim::fluid::gpu
