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
#include "compute/fluid/cuda/fluid_diagnostics_kernel.h"
#include "compute/fluid/sph_math.h"

namespace graphsim::fluid::gpu {
namespace {

using sph_math::Vec3;

constexpr int kBlock = 256;

__device__ inline Vec3 xyz(float4 v) { return {v.x, v.y, v.z}; }
__device__ inline float4 withW(Vec3 v, float w) { return make_float4(v.x, v.y, v.z, w); }

__device__ inline void flagBlowUp(BlowUpState* s, const FrameControl* ctrl, FluidStep step, unsigned what, int i) {
  static_assert(static_cast<unsigned>(FluidStep::Walls) < 16, "the stage has 4 bits of the blow-up code");
  const unsigned stage = static_cast<unsigned>(step);
  const unsigned long long code =
      (static_cast<unsigned long long>(ctrl->done) << 8 | stage << 4 | what) << 32 | static_cast<unsigned>(i);
  atomicMin(&s->first, code);
}

__device__ inline bool finite3(Vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

struct FrameBeginArgs {
  FrameControl* ctrl;
  unsigned long long frame;
  unsigned long long handle; // cudaGraphConditionalHandle; 0 = none (fixed substeps, host-decided)
  float frameDt;
  int maxSubsteps;
};

__global__ void frameBeginKernel(FrameBeginArgs a) {
  FrameControl& c = *a.ctrl;
  c.frame = a.frame;
  c.covered = 0.0f;
  c.done = 0;
  c.maxSpeedBits = 0;
  c.blocksDone = 0;
  c.proceed = sph_math::frameContinues(a.frameDt, 0.0f, 0, a.maxSubsteps) ? 1 : 0;
  if (a.handle != 0) cudaGraphSetConditional(a.handle, c.proceed);
}

struct CflArgs {
  const float4* vel;
  FrameControl* ctrl;
  int n;
  float cfl, h, cs, frameDt;
  int maxSubsteps;
  float fixedDt; // > 0: the fixed-substeps graph's dt, used instead of the frame rule
  int pad;
};

// max |v| over the particles, then (lane 0 of the last warp to finish) the substep's dt from the CFL condition.
// One warp per block and a grid-stride loop: no barrier at all, and at most kCflWarps atomics on the control block.
// (A block-wide reduction with __syncthreads is flagged by compute-sanitizer's synccheck inside a WHILE body,
// though clean on a stream; docs/GPU-TESTING.md.)
constexpr int kCflWarps = 2048;

__global__ void __launch_bounds__(32) cflKernel(CflArgs a) {
  float v2 = 0.0f;
  for (int i = static_cast<int>(blockIdx.x * 32u + threadIdx.x); i < a.n; i += static_cast<int>(gridDim.x * 32u)) {
    const float4 v = a.vel[i];
    v2 = fmaxf(v2, v.x * v.x + v.y * v.y + v.z * v.z);
  }
  for (int off = 16; off > 0; off >>= 1) v2 = fmaxf(v2, __shfl_xor_sync(0xffffffffu, v2, off));
  if (threadIdx.x != 0) return;
  FrameControl& c = *a.ctrl;
  atomicMax(&c.maxSpeedBits, __float_as_uint(v2));
  __threadfence();
  if (atomicAdd(&c.blocksDone, 1u) != gridDim.x - 1) return;
  const float maxSpeed = sqrtf(__uint_as_float(atomicAdd(&c.maxSpeedBits, 0u))); // as the CPU: sqrt of max |v|^2
  const float dtCfl = sph_math::cflDt(a.cfl, a.h, a.cs, maxSpeed);
  // The fixed-substeps graph never exceeds the CFL step either (a fixed dt above it would blow the fluid up).
  c.dt = a.fixedDt > 0.0f ? fminf(a.fixedDt, dtCfl)
                          : sph_math::substepDt(a.frameDt, c.covered, c.done, a.maxSubsteps, dtCfl);
  c.maxSpeedBits = 0;
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
  const unsigned* vals; // sorted: the old index of sorted particle i
  const float4 *pos, *vel;
  float4 *posS, *velS;
  int n, pad;
};

__global__ void reorderKernel(ReorderArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const unsigned from = a.vals[i];
  a.posS[i] = a.pos[from];
  a.velS[i] = a.vel[from];
}

// The sorted range of particles in the three cells (cx-1 .. cx+1, y, z) clipped to the grid: the keys are
// consecutive (x fastest), so their particles are one contiguous run in sorted order, visited in cell order.
__device__ inline void rowRange(const unsigned* cellStart, const unsigned* cellEnd, const Grid& g, int cx, int y, int z,
                                unsigned& begin, unsigned& end) {
  const int x0 = max(cx - 1, 0), x1 = min(cx + 1, g.nx - 1);
  const unsigned base = static_cast<unsigned>((z * g.ny + y) * g.nx);
  begin = 0xffffffffu;
  end = 0;
  for (int x = x0; x <= x1; ++x) {
    const unsigned s = cellStart[base + static_cast<unsigned>(x)];
    if (s == 0xffffffffu) continue;
    begin = min(begin, s);
    end = max(end, cellEnd[base + static_cast<unsigned>(x)]);
  }
}

// The neighbour stages run kLanes = 3 threads per particle: lane l walks the 9 cells of the slab z = cz - 1 + l (3
// row runs), and the three partial sums are added in slab order, (s0 + s1) + s2, identically in every lane. Three
// times the threads of one per particle: at 65,536 particles one thread per particle left 80 % of the H100's warp
// slots empty and the loop latency-bound. Ten groups fill lanes 0-29 of a warp; lanes 30 and 31 idle (6 %).
constexpr int kLanes = 3;
constexpr int kGroupsPerWarp = 32 / kLanes;

struct LaneOf {
  int particle; // -1: no particle (idle lane or past the end); such lanes still take part in the shuffles
  int lane;     // 0 .. kLanes-1
  int leader;   // the warp lane of the group's lane 0
};

__device__ inline LaneOf laneOf(int n) {
  const int warpLane = static_cast<int>(threadIdx.x & 31u);
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
  const int group = warpLane / kLanes;
  LaneOf l;
  l.lane = warpLane - group * kLanes;
  l.leader = group * kLanes;
  l.particle = group < kGroupsPerWarp ? warp * kGroupsPerWarp + group : -1;
  if (l.particle >= n) l.particle = -1;
  if (group >= kGroupsPerWarp) { // idle lanes read lane 0's values: harmless
    l.lane = 0;
    l.leader = 0;
  }
  return l;
}

// (s0 + s1) + s2 of the group's three lanes, in every lane. All 32 lanes must call it.
__device__ inline float groupSum(float v, int leader) {
  const float s0 = __shfl_sync(0xffffffffu, v, leader);
  const float s1 = __shfl_sync(0xffffffffu, v, leader + 1);
  const float s2 = __shfl_sync(0xffffffffu, v, leader + 2);
  return (s0 + s1) + s2;
}

// Calls fn(j) for every sorted particle j in this lane's slab of the 27 cells around x.
template <typename Fn>
__device__ inline void forEachCandidateInSlab(const unsigned* cellStart, const unsigned* cellEnd, const Grid& g, Vec3 x,
                                              int lane, Fn&& fn) {
  const int cx = sph_math::cellCoord(x.x, g.cellSize, g.nx);
  const int cy = sph_math::cellCoord(x.y, g.cellSize, g.ny);
  const int z = sph_math::cellCoord(x.z, g.cellSize, g.nz) - 1 + lane;
  if (z < 0 || z >= g.nz) return;
  for (int y = max(cy - 1, 0); y <= min(cy + 1, g.ny - 1); ++y) {
    unsigned begin, end;
    rowRange(cellStart, cellEnd, g, cx, y, z, begin, end);
    for (unsigned j = begin; j < end; ++j) fn(j);
  }
}

inline unsigned laneThreads(int n) { return static_cast<unsigned>((n + kGroupsPerWarp - 1) / kGroupsPerWarp) * 32u; }

struct DensityArgs {
  const float4* posS;
  const unsigned *cellStart, *cellEnd;
  float2* rhoP; // (rho, p / rho^2)
  BlowUpState* blowUp;
  const FrameControl* ctrl;
  Grid grid;
  int n;
  float h, mass, rho0, stiffness, maxDensity;
  int pad;
};

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
  if (l.particle < 0 || l.lane != 0) return;
  const int i = l.particle;
  const float rho = a.mass * sum;
  a.rhoP[i] = make_float2(rho, sph_math::taitPressure(rho, a.rho0, a.stiffness) / (rho * rho));
  if (!isfinite(rho)) {
    flagBlowUp(a.blowUp, a.ctrl, FluidStep::Density, kWhatNonFinite, i);
  } else if (rho > a.maxDensity) {
    flagBlowUp(a.blowUp, a.ctrl, FluidStep::Density, kWhatDensity, i);
  }
}

struct ForcesArgs {
  const float4 *posS, *velS;
  const float2* rhoP;
  const unsigned *cellStart, *cellEnd;
  float4* accel;
  Grid grid;
  int n;
  float h, mass, cs, alpha, gx, gy, gz;
};

__global__ void __launch_bounds__(128) forcesKernel(ForcesArgs a) {
  const LaneOf l = laneOf(a.n);
  Vec3 acc = {0.0f, 0.0f, 0.0f};
  if (l.particle >= 0) {
    const unsigned i = static_cast<unsigned>(l.particle);
    const Vec3 xi = xyz(a.posS[i]);
    const Vec3 vi = xyz(a.velS[i]);
    const float2 own = a.rhoP[i];
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
  acc = Vec3{groupSum(acc.x, l.leader), groupSum(acc.y, l.leader), groupSum(acc.z, l.leader)};
  if (l.particle < 0 || l.lane != 0) return;
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
  int pad;
};

__global__ void wallsKernel(WallsArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  Vec3 x = xyz(a.pos[i]);
  Vec3 v = xyz(a.vel[i]);
  sph_math::reflectAtWalls(x, v, Vec3{a.bx, a.by, a.bz}, a.radius, a.restitution);
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
  __threadfence_system();
  h->seq = seq + 2;
}

// A kernel's spec from its argument struct, written in place at the call: Args is deduced from the kernel alone
// (enable_if<true, Args>::type is not deduced from the braces).
template <typename Args>
KernelSpec specOf(void (*kernel)(Args), const typename std::enable_if<true, Args>::type& a, unsigned threads,
                  int block = kBlock) {
  return cuda::kernelSpecOf(kernel, a, threads, static_cast<unsigned>(block));
}

unsigned count(int n) { return static_cast<unsigned>(n); }

} // namespace

KernelSpec specFor(FluidStep step, const DeviceState& d, const Scratch& s, const KernelParams& k,
                   const sph_math::GridDims& dims, unsigned long long handle, std::uint64_t frame) {
  const Grid g{dims.nx, dims.ny, dims.nz, dims.cellSize};
  const unsigned n = count(d.n);
  switch (step) {
  case FluidStep::FrameBegin: return specOf(frameBeginKernel, {d.ctrl, frame, handle, k.frameDt, k.maxSubsteps}, 1, 1);
  case FluidStep::Cfl: {
    const unsigned warps = std::max(1u, std::min<unsigned>((n + 31u) / 32u, kCflWarps));
    return specOf(cflKernel, {d.vel, d.ctrl, d.n, k.cflNumber, k.h, k.cs, k.frameDt, k.maxSubsteps, k.fixedDt, 0},
                  warps * 32u, 32);
  }
  case FluidStep::Keys: return specOf(keysKernel, {d.pos, s.keys, s.vals, g, d.n, 0}, n);
  case FluidStep::Ranges: return specOf(rangesKernel, {s.sortedKeys(), s.cellStart, s.cellEnd, d.n, 0}, n);
  case FluidStep::Reorder: return specOf(reorderKernel, {s.sortedVals(), d.pos, d.vel, s.posS, s.velS, d.n, 0}, n);
  case FluidStep::Density:
    return specOf(densityKernel,
                  {s.posS, s.cellStart, s.cellEnd, d.rhoP, d.blowUp, d.ctrl, g, d.n, k.h, k.mass, k.restDensity,
                   k.stiffness, k.maxDensity, 0},
                  laneThreads(d.n), 128);
  case FluidStep::Forces:
    return specOf(forcesKernel,
                  {s.posS, s.velS, d.rhoP, s.cellStart, s.cellEnd, s.accel, g, d.n, k.h, k.mass, k.cs, k.alpha,
                   k.gravity[0], k.gravity[1], k.gravity[2]},
                  laneThreads(d.n), 128);
  case FluidStep::Integrate:
    return specOf(integrateKernel, {s.posS, s.velS, s.accel, d.pos, d.vel, d.ctrl, d.blowUp, d.n, 0}, n);
  case FluidStep::Obstacle:
    return specOf(obstacleKernel,
                  {d.pos, d.vel, d.n, k.obstacleCentre[0], k.obstacleCentre[1], k.obstacleCentre[2], k.obstacleRadius,
                   k.radius, k.wallRestitution},
                  n);
  case FluidStep::Walls:
    return specOf(wallsKernel,
                  {d.pos, d.vel, d.blowUp, d.ctrl, d.n, k.box[0], k.box[1], k.box[2], k.radius, k.wallRestitution, 0},
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
  case FluidStep::Sort:
  case FluidStep::ClearCells: break; // not kernel nodes
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
