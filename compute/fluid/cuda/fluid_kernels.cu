// The fluid scene's kernels (issue 13). Each stage is one kernel over the particles in the current sorted order,
// with the formulas of compute/fluid/sph_math.h, so that it computes what the CPU reference's stage computes
// (fluid_cpu.cpp), visiting neighbours in the same order (cells z, y, x ascending, within a cell in sorted order);
// the neighbour sums are split into three z-slab partial sums, added (s0 + s1) + s2.
#include "compute/fluid/cuda/fluid_kernels.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cub/device/device_radix_sort.cuh>

#include "compute/cuda/cuda_check.h"
#include "compute/fluid/cuda/fluid_device.cuh"
#include "compute/fluid/cuda/fluid_diagnostics_kernel.h"
#include "compute/fluid/sph_math.h"

namespace graphsim::fluid::gpu {
namespace {

using sph_math::Vec3;

struct FrameBeginArgs {
  FrameControl* ctrl;
  unsigned long long frame;
  unsigned long long handle; // cudaGraphConditionalHandle; 0 = none (fixed substeps, host-decided)
  float frameDt;
  int maxSubsteps;
  BoundaryArgs* obstacle; // the obstacle's boundary particles: placed at the centre, on or off
  float cx, cy, cz;
  int obstacleOn;
};

__global__ void frameBeginKernel(FrameBeginArgs a) {
  BoundaryArgs& b = *a.obstacle;
  b.frame.origin = {a.cx, a.cy, a.cz};
  b.n = a.obstacleOn != 0 ? b.built : 0;
  FrameControl& c = *a.ctrl;
  c.frame = a.frame;
  c.covered = 0.0f;
  c.done = 0;
  c.maxSpeedBits = 0;
  c.blocksDone = 0;
  for (int s = 0; s < 2; ++s) c.itMin[s] = 0x7fffffff, c.itMax[s] = 0, c.itTotal[s] = 0;
  c.peakBits = 0;
  c.densityError = 0.0f;
  c.resorts = 0;
  c.proceed = sph_math::frameContinues(a.frameDt, 0.0f, 0, a.maxSubsteps) ? 1 : 0;
  if (a.handle != 0) cudaGraphSetConditional(a.handle, c.proceed);
}

struct CflArgs {
  const float4 *vel, *pos;
  const float4* posBuilt; // the positions at the last list build; nullptr: no lists (re-sort every step)
  FrameControl* ctrl;
  unsigned long long solverHandle; // the SWITCH's; 0: none (WCSPH only)
  unsigned long long resortHandle; // the re-sort IF's; 0: none (the rows run in place, or the host reads ctrl->resort)
  int n;
  float cfl, h, cs, frameDt;
  int maxSubsteps;
  float fixedDt; // > 0: the fixed-substeps graph's dt, used instead of the frame rule
  int solver;    // FluidSolver: DFSPH's dt comes from the velocity alone
  float lambda, spacing, minDt, maxDt;
  float skin; // the lists' skin [m] (KernelParams::skin); 0: re-sort every step
  int pad;
};
static_assert(sizeof(CflArgs) == 104, "no implicit padding: equal parameters are equal bytes");

// The re-sort rule (fluid_kernels.h, NeighbourLists): keep the order and the lists while they describe it, no lane
// overflowed, they are younger than kMaxListAge steps and no particle has moved half the skin since the build.
__device__ inline void decideResort(const CflArgs& a, FrameControl& c, float maxMove2) {
  const bool skinned = a.skin > 0.0f && a.posBuilt != nullptr && a.solver == static_cast<int>(FluidSolver::Dfsph);
  const float half = 0.5f * fminf(a.skin, c.builtSkin);
  const bool keep =
      skinned && c.builtSkin > 0.0f && c.listOverflow == 0 && c.listAge < kMaxListAge && maxMove2 <= half * half;
  c.resort = keep ? 0 : 1;
  if (keep) {
    c.listAge += 1;
  } else {
    c.listAge = 0;
    c.listOverflow = 0;
    c.builtSkin = skinned ? a.skin : 0.0f; // neighbour_lists builds them in this step
    c.resorts += 1;
  }
  if (a.resortHandle != 0) cudaGraphSetConditional(a.resortHandle, keep ? 0u : 1u);
}

// max |v| over the particles, then (lane 0 of the last warp to finish) the substep's dt from the CFL condition.
// One warp per block and a grid-stride loop: no barrier at all, and at most kCflWarps atomics on the control block.
// (A block-wide reduction with __syncthreads is flagged by compute-sanitizer's synccheck inside a WHILE body,
// though clean on a stream; docs/GPU-TESTING.md.)
constexpr int kCflWarps = 2048;

__global__ void __launch_bounds__(32) cflKernel(CflArgs a) {
  float v2 = 0.0f, move2 = 0.0f;
  const bool moves = a.skin > 0.0f && a.posBuilt != nullptr;
  for (int i = static_cast<int>(blockIdx.x * 32u + threadIdx.x); i < a.n; i += static_cast<int>(gridDim.x * 32u)) {
    const float4 v = a.vel[i];
    v2 = fmaxf(v2, v.x * v.x + v.y * v.y + v.z * v.z);
    if (!moves) continue;
    const Vec3 d = xyz(a.pos[i]) - xyz(a.posBuilt[i]);
    move2 = fmaxf(move2, sph_math::dot(d, d));
  }
  for (int off = 16; off > 0; off >>= 1) {
    v2 = fmaxf(v2, __shfl_xor_sync(0xffffffffu, v2, off));
    move2 = fmaxf(move2, __shfl_xor_sync(0xffffffffu, move2, off));
  }
  if (threadIdx.x != 0) return;
  FrameControl& c = *a.ctrl;
  atomicMax(&c.maxSpeedBits, __float_as_uint(v2));
  if (moves) atomicMax(&c.maxMoveBits, __float_as_uint(move2));
  __threadfence();
  if (atomicAdd(&c.blocksDone, 1u) != gridDim.x - 1) return;
  const float maxSpeed = sqrtf(__uint_as_float(atomicAdd(&c.maxSpeedBits, 0u))); // as the CPU: sqrt of max |v|^2
  // A non-finite move (a blown-up particle) compares false: re-sort.
  decideResort(a, c, moves ? __uint_as_float(atomicAdd(&c.maxMoveBits, 0u)) : 0.0f);
  const float dtCfl = a.solver == static_cast<int>(FluidSolver::Dfsph)
                          ? sph_math::velocityDt(a.lambda, a.spacing, maxSpeed, a.minDt, a.maxDt)
                          : sph_math::cflDt(a.cfl, a.h, a.cs, maxSpeed);
  if (a.solverHandle != 0) cudaGraphSetConditional(a.solverHandle, static_cast<unsigned>(a.solver));
  // The fixed-substeps graph never exceeds the CFL step either (a fixed dt above it would blow the fluid up).
  c.dt = a.fixedDt > 0.0f ? fminf(a.fixedDt, dtCfl)
                          : sph_math::substepDt(a.frameDt, c.covered, c.done, a.maxSubsteps, dtCfl);
  c.maxSpeedBits = 0;
  c.maxMoveBits = 0;
  c.blocksDone = 0;
}

struct KeysArgs {
  const float4* pos;
  unsigned *keys, *vals;
  Grid grid;
  int n, pad;
};

__global__ void keysKernel(KeysArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const sph_math::GridDims g{a.grid.nx, a.grid.ny, a.grid.nz, a.grid.cellSize};
  a.keys[i] = sph_math::cellKeyOf(xyz(a.pos[i]), g);
  a.vals[i] = static_cast<unsigned>(i);
}

struct RangesArgs {
  const unsigned* keys; // sorted
  unsigned *cellStart, *cellEnd;
  int n, pad;
};

__global__ void rangesKernel(RangesArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const unsigned key = a.keys[i];
  if (i == 0 || a.keys[i - 1] != key) a.cellStart[key] = static_cast<unsigned>(i);
  if (i + 1 == a.n || a.keys[i + 1] != key) a.cellEnd[key] = static_cast<unsigned>(i + 1);
}

struct ReorderArgs {
  const unsigned* vals; // sorted: the old index of sorted particle i; nullptr: the order stays (keep_order, the
                        // re-sort IF's ELSE: the step's kernels read the copy as after a sort)
  const float4 *pos, *vel;
  float4 *posS, *velS;
  int n, pad;
};

__global__ void reorderKernel(ReorderArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const unsigned from = a.vals != nullptr ? a.vals[i] : static_cast<unsigned>(i);
  a.posS[i] = a.pos[from];
  a.velS[i] = a.vel[from];
}

struct ListBuildArgs {
  const float4* posS;
  const unsigned *cellStart, *cellEnd;
  NeighbourLists lists; // base nullptr: none (the kernel does nothing)
  float4* posBuilt;
  FrameControl* ctrl; // listOverflow
  Grid grid;
  int n, solver; // WCSPH reads no lists: nothing to build
  float h, skin;
};
static_assert(sizeof(ListBuildArgs) == 96, "no implicit padding: equal parameters are equal bytes");

// Every lane lists its slab's candidates within h + skin of its particle, in the walk's order (fluid_kernels.h).
__global__ void __launch_bounds__(128) listBuildKernel(ListBuildArgs a) {
  if (a.lists.base == nullptr || a.solver != static_cast<int>(FluidSolver::Dfsph)) return;
  const LaneOf l = laneOf(a.n);
  if (l.particle < 0) return; // no shuffles below
  const float4 p = a.posS[l.particle];
  const Vec3 xi = xyz(p);
  const float reach = a.h + a.skin, reach2 = reach * reach;
  ListWriter list(a.lists, a.n, l.particle, l.lane);
  forEachCandidateInSlab(a.cellStart, a.cellEnd, a.grid, xi, l.lane, [&](unsigned j) {
    const Vec3 d = xi - xyz(__ldg(&a.posS[j]));
    if (sph_math::dot(d, d) < reach2) list.add(j);
  });
  if (list.finish()) a.ctrl->listOverflow = 1;
  if (l.lane == 0 && a.posBuilt != nullptr) a.posBuilt[l.particle] = p;
}

struct DensityArgs {
  const float4* posS;
  const unsigned *cellStart, *cellEnd;
  float2* rhoP;                 // (rho, p / rho^2)
  float4* boundaryGrad;         // sum_b psi_b grad W_ib: forces' boundary term
  const BoundaryArgs* boundary; // the walls' and the obstacle's particles (n = 0: none)
  BlowUpState* blowUp;
  FrameControl* ctrl; // the peak compression
  Grid grid;
  int n;
  float h, mass, rho0, stiffness, maxDensity;
};
static_assert(sizeof(DensityArgs) == 104, "no implicit padding: equal parameters are equal bytes");

// rho_i = m sum_j W_ij + sum_b psi_b W_ib (fluid_cpu.cpp's computeDensity, then addBoundaryDensity).
__global__ void __launch_bounds__(128) densityKernel(DensityArgs a) {
  const LaneOf l = laneOf(a.n);
  float sum = 0.0f;
  Vec3 xi{0.0f, 0.0f, 0.0f};
  if (l.particle >= 0) {
    xi = xyz(a.posS[l.particle]);
    const float h2 = a.h * a.h;
    forEachCandidateInSlab(a.cellStart, a.cellEnd, a.grid, xi, l.lane, [&](unsigned j) {
      const Vec3 d = xi - xyz(__ldg(&a.posS[j]));
      const float r2 = sph_math::dot(d, d);
      if (r2 < h2) sum += sph_math::kernelW(r2, a.h);
    });
  }
  sum = groupSum(sum, l.leader);
  const sph_math::BoundaryTerms b = boundarySumsAt(a.boundary, l, xi, a.h, a.rho0);
  if (l.particle < 0 || l.lane != 0) return;
  const int i = l.particle;
  const float rho = a.mass * sum + b.density;
  a.rhoP[i] = make_float2(rho, sph_math::taitPressure(rho, a.rho0, a.stiffness) / (rho * rho));
  a.boundaryGrad[i] = withW(b.grad, 0.0f);
  recordCompression(a.ctrl, rho, a.rho0);
  if (!isfinite(rho)) {
    flagBlowUp(a.blowUp, a.ctrl, FluidStep::Density, kWhatNonFinite, i);
  } else if (rho > a.maxDensity) {
    flagBlowUp(a.blowUp, a.ctrl, FluidStep::Density, kWhatDensity, i);
  }
}

struct ForcesArgs {
  const float4 *posS, *velS;
  const float2* rhoP;
  const float4* boundaryGrad; // density's
  const unsigned *cellStart, *cellEnd;
  float4* accel;
  Grid grid;
  int n;
  float h, mass, cs, alpha, gx, gy, gz;
};
static_assert(sizeof(ForcesArgs) == 104, "no implicit padding: equal parameters are equal bytes");

// The pair forces (fluid_cpu.cpp's computeForces: pressure and artificial viscosity), the boundary's push
// -(p_i / rho_i^2) G_i, and gravity.
__global__ void __launch_bounds__(128) forcesKernel(ForcesArgs a) {
  const LaneOf l = laneOf(a.n);
  Vec3 acc = {0.0f, 0.0f, 0.0f};
  float pI = 0.0f;
  if (l.particle >= 0) {
    const unsigned i = static_cast<unsigned>(l.particle);
    const Vec3 xi = xyz(a.posS[i]);
    const Vec3 vi = xyz(a.velS[i]);
    const float2 own = a.rhoP[i];
    pI = own.y;
    const float h2 = a.h * a.h;
    forEachCandidateInSlab(a.cellStart, a.cellEnd, a.grid, xi, l.lane, [&](unsigned j) {
      if (j == i) return;
      const Vec3 d = xi - xyz(__ldg(&a.posS[j]));
      const float r2 = sph_math::dot(d, d);
      if (r2 >= h2) return;
      const float2 other = __ldg(&a.rhoP[j]);
      const float pi =
          sph_math::artificialViscosity(d, vi - xyz(__ldg(&a.velS[j])), own.x, other.x, a.h, a.alpha, a.cs);
      acc = acc + sph_math::pairAcceleration(d, sph_math::kernelGradFactor(r2, a.h), a.mass, own.y, other.y, pi);
    });
  }
  acc = groupSum3(acc, l.leader);
  if (l.particle < 0 || l.lane != 0) return;
  acc = acc + sph_math::boundaryAcceleration(xyz(a.boundaryGrad[l.particle]), pI);
  a.accel[l.particle] = withW(acc + Vec3{a.gx, a.gy, a.gz}, 0.0f);
}

struct IntegrateArgs {
  const float4 *posS, *velS, *accel;
  float4 *pos, *vel;
  const FrameControl* ctrl;
  BlowUpState* blowUp;
  int n, pad;
};

__global__ void integrateKernel(IntegrateArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  Vec3 x = xyz(a.posS[i]);
  Vec3 v = xyz(a.velS[i]);
  sph_math::integrate(x, v, xyz(a.accel[i]), a.ctrl->dt);
  a.pos[i] = withW(x, 0.0f);
  a.vel[i] = withW(v, 0.0f);
  if (!finite3(x) || !finite3(v)) flagBlowUp(a.blowUp, a.ctrl, FluidStep::Integrate, kWhatNonFinite, i);
}

struct ObstacleArgs {
  float4 *pos, *vel;
  int n;
  float cx, cy, cz, sphereRadius, radius, restitution;
};

__global__ void obstacleKernel(ObstacleArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  Vec3 x = xyz(a.pos[i]);
  Vec3 v = xyz(a.vel[i]);
  sph_math::pushOutOfSphere(x, v, Vec3{a.cx, a.cy, a.cz}, a.sphereRadius, a.radius, a.restitution);
  a.pos[i] = withW(x, 0.0f);
  a.vel[i] = withW(v, 0.0f);
}

struct WallsArgs {
  float4 *pos, *vel;
  BlowUpState* blowUp;
  const FrameControl* ctrl;
  int n;
  float bx, by, bz, radius, restitution;
  int mirror; // DFSPH: mirror a crossing particle back (sph_math::reflectAxis)
};

__global__ void wallsKernel(WallsArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  Vec3 x = xyz(a.pos[i]);
  Vec3 v = xyz(a.vel[i]);
  sph_math::reflectAtWalls(x, v, Vec3{a.bx, a.by, a.bz}, a.radius, a.restitution, a.mirror != 0);
  a.pos[i] = withW(x, 0.0f);
  a.vel[i] = withW(v, 0.0f);
  const bool inside = x.x >= 0.0f && x.x <= a.bx && x.y >= 0.0f && x.y <= a.by && x.z >= 0.0f && x.z <= a.bz;
  if (!inside) flagBlowUp(a.blowUp, a.ctrl, FluidStep::Walls, kWhatOutside, i);
}

struct ConditionArgs {
  FrameControl* ctrl;
  unsigned long long handle; // 0 = none
  float frameDt;
  int maxSubsteps;
};

__global__ void conditionKernel(ConditionArgs a) {
  FrameControl& c = *a.ctrl;
  c.covered += c.dt;
  c.time += static_cast<double>(c.dt);
  c.done += 1;
  c.proceed = sph_math::frameContinues(a.frameDt, c.covered, c.done, a.maxSubsteps) ? 1 : 0;
  if (a.handle != 0) cudaGraphSetConditional(a.handle, c.proceed);
}

__device__ inline float4* outputOf(const OutputArgs& o, const FrameControl* ctrl) {
  return o.out[ctrl->frame % static_cast<unsigned long long>(o.slots)];
}

struct WriteRenderArgs {
  const float4* pos;
  const FrameControl* ctrl;
  OutputArgs outputs;
  int n;
  float constantColour;
};

__global__ void writeRenderKernel(WriteRenderArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const float4 p = a.pos[i];
  outputOf(a.outputs, a.ctrl)[i] = make_float4(p.x, p.y, p.z, a.constantColour);
}

struct ColourArgs {
  const float4* vel;
  const float2* rhoP;
  const FrameControl* ctrl;
  OutputArgs outputs;
  int n, byDensity;
  float scale, rho0;
};

__global__ void colourKernel(ColourArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  float c;
  if (a.byDensity != 0) {
    c = 0.5f + 0.5f * 100.0f * (a.rhoP[i].x / a.rho0 - 1.0f) / a.scale;
  } else {
    const float4 v = a.vel[i];
    c = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z) / a.scale;
  }
  outputOf(a.outputs, a.ctrl)[i].w = fminf(fmaxf(c, 0.0f), 1.0f);
}

struct ReportArgs {
  const FrameControl* ctrl;
  BlowUpState* blowUp;
  HostReport* host; // device pointer of the mapped pinned report
};

__global__ void reportKernel(ReportArgs a) {
  const FrameControl& c = *a.ctrl;
  BlowUpState& b = *a.blowUp;
  if (b.first != kNoBlowUp && b.frameOfFirst == kNoBlowUp) b.frameOfFirst = c.frame;
  volatile HostReport* h = a.host;
  const unsigned long long seq = h->seq;
  h->seq = seq + 1;
  __threadfence_system();
  h->frame = c.frame;
  h->substeps = c.done;
  h->lastDt = c.done > 0 ? c.dt : 0.0f;
  h->covered = c.covered;
  h->time = c.time;
  h->blowUp = b.first;
  h->blowUpFrame = b.frameOfFirst;
  for (int s = 0; s < 2; ++s) h->itMin[s] = c.itMin[s], h->itMax[s] = c.itMax[s], h->itTotal[s] = c.itTotal[s];
  h->resorts = c.resorts;
  h->peakCompression = __uint_as_float(c.peakBits);
  h->runPeak = fmaxf(h->runPeak, h->peakCompression); // mapped: the host's clear is visible here
  h->densityError = c.densityError;
  __threadfence_system();
  h->seq = seq + 2;
}

} // namespace

KernelSpec specFor(FluidStep step, const DeviceState& d, const Scratch& s, const KernelParams& k,
                   const sph_math::GridDims& dims, const Handles& handles, std::uint64_t frame) {
  const Grid g{dims.nx, dims.ny, dims.nz, dims.cellSize};
  const unsigned n = count(d.n);
  const unsigned long long handle = handles.frame;
  const StepScope scope = stepRow(step).scope; // DFSPH's rows: its branch and its loops' bodies (dfsph_kernels.cu)
  if (scope == StepScope::Dfsph || scope == StepScope::DivergenceLoop || scope == StepScope::DensityLoop)
    return dfsphSpecFor(step, d, s, k, g, handles);
  switch (step) {
  case FluidStep::FrameBegin:
    return specOf(frameBeginKernel,
                  {d.ctrl, frame, handle, k.frameDt, k.maxSubsteps, d.boundary + kObstacleBoundary, k.obstacleCentre[0],
                   k.obstacleCentre[1], k.obstacleCentre[2], k.obstacleOn},
                  1, 1);
  case FluidStep::Cfl: {
    const unsigned warps = std::max(1u, std::min<unsigned>((n + 31u) / 32u, kCflWarps));
    return specOf(cflKernel, {d.vel,          d.pos,         s.posBuilt,  d.ctrl,   handles.solver,
                              handles.resort, d.n,           k.cflNumber, k.h,      k.cs,
                              k.frameDt,      k.maxSubsteps, k.fixedDt,   k.solver, k.lambda,
                              k.spacing,      k.minDt,       k.maxDt,     k.skin,   0},
                  warps * 32u, 32);
  }
  case FluidStep::KeepOrder: return specOf(reorderKernel, {nullptr, d.pos, d.vel, s.posS, s.velS, d.n, 0}, n);
  case FluidStep::ListBuild:
    return specOf(listBuildKernel,
                  {s.posS, s.cellStart, s.cellEnd, s.lists, s.posBuilt, d.ctrl, g, d.n, k.solver, k.h, k.skin},
                  laneThreads(d.n), 128);
  case FluidStep::Keys: return specOf(keysKernel, {d.pos, s.keys, s.vals, g, d.n, 0}, n);
  case FluidStep::Ranges: return specOf(rangesKernel, {s.sortedKeys(), s.cellStart, s.cellEnd, d.n, 0}, n);
  case FluidStep::Reorder: return specOf(reorderKernel, {s.sortedVals(), d.pos, d.vel, s.posS, s.velS, d.n, 0}, n);
  case FluidStep::Density:
    return specOf(densityKernel,
                  {s.posS, s.cellStart, s.cellEnd, d.rhoP, s.boundaryGrad, d.boundary, d.blowUp, d.ctrl, g, d.n, k.h,
                   k.mass, k.restDensity, k.stiffness, k.maxDensity},
                  laneThreads(d.n), 128);
  case FluidStep::Forces:
    return specOf(forcesKernel,
                  {s.posS, s.velS, d.rhoP, s.boundaryGrad, s.cellStart, s.cellEnd, s.accel, g, d.n, k.h, k.mass, k.cs,
                   k.alpha, k.gravity[0], k.gravity[1], k.gravity[2]},
                  laneThreads(d.n), 128);
  case FluidStep::Integrate:
    return specOf(integrateKernel, {s.posS, s.velS, s.accel, d.pos, d.vel, d.ctrl, d.blowUp, d.n, 0}, n);
  case FluidStep::Obstacle:
    return specOf(obstacleKernel,
                  {d.pos, d.vel, d.n, k.obstacleCentre[0], k.obstacleCentre[1], k.obstacleCentre[2], k.obstacleRadius,
                   k.wallRadius, k.wallRestitution},
                  n);
  case FluidStep::Walls:
    return specOf(wallsKernel,
                  {d.pos, d.vel, d.blowUp, d.ctrl, d.n, k.box[0], k.box[1], k.box[2], k.wallRadius, k.wallRestitution,
                   k.wallMirror},
                  n);
  case FluidStep::Condition: return specOf(conditionKernel, {d.ctrl, handle, k.frameDt, k.maxSubsteps}, 1, 1);
  case FluidStep::WriteRender: return specOf(writeRenderKernel, {d.pos, d.ctrl, d.outputs, d.n, 0.5f}, n);
  case FluidStep::Colour:
    return specOf(colourKernel,
                  {d.vel, d.rhoP, d.ctrl, d.outputs, d.n, k.colourByDensity, k.colourScale, k.restDensity}, n);
  case FluidStep::Report: return specOf(reportKernel, {d.ctrl, d.blowUp, d.report}, 1, 1);
  case FluidStep::Diagnostics:
    return fluidDiagnosticsSpec(
        {d.pos, d.vel, d.rhoP, d.ctrl, d.diagnostics, d.diagnosticsReport, d.n, k.restDensity, k.mass, 0});
  default: break; // not kernel nodes (sort, clear_cells, the IF, the SWITCH)
  }
  throw std::logic_error(std::string("specFor: ") + std::string(stepRow(step).name) + " is not a kernel row");
}

std::size_t sortTempBytes(int n, int keyBits) {
  cub::DoubleBuffer<unsigned> keys(nullptr, nullptr), vals(nullptr, nullptr);
  std::size_t bytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, vals, n, 0, keyBits));
  return bytes;
}

bool sortOnStream(void* temp, std::size_t tempBytes, unsigned* keys, unsigned* keysAlt, unsigned* vals,
                  unsigned* valsAlt, int n, int keyBits, cudaStream_t stream) {
  cub::DoubleBuffer<unsigned> k(keys, keysAlt), v(vals, valsAlt);
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, tempBytes, k, v, n, 0, keyBits, stream));
  return k.selector != 0;
}

} // namespace graphsim::fluid::gpu
