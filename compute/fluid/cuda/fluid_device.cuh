// The fluid kernels' shared device helpers (fluid_kernels.cu: WCSPH and the frame; dfsph_kernels.cu: the incompressible
// solver): the blow-up flag, the three-lanes-per-particle neighbour walk and its sums, and the spec of a kernel from
// its argument struct. Included by those two .cu files only.
#pragma once

#include <type_traits>

#include "compute/fluid/cuda/fluid_kernels.h"
#include "compute/fluid/sph_math.h"

namespace graphsim::fluid::gpu {

using sph_math::Vec3;

constexpr int kBlock = 256;

__device__ inline Vec3 xyz(float4 v) { return {v.x, v.y, v.z}; }
__device__ inline float4 withW(Vec3 v, float w) { return make_float4(v.x, v.y, v.z, w); }

// The frame's particle-wise peak compression, max(rho / rho0 - 1, 0), as float bits (positive floats order as their
// bits); the report carries it.
__device__ inline void recordCompression(FrameControl* ctrl, float rho, float rho0) {
  const float compression = fmaxf(rho / rho0 - 1.0f, 0.0f);
  if (compression > 0.0f && __float_as_uint(compression) > ctrl->peakBits)
    atomicMax(&ctrl->peakBits, __float_as_uint(compression));
}

__device__ inline void flagBlowUp(BlowUpState* s, const FrameControl* ctrl, FluidStep step, unsigned what, int i) {
  static_assert(static_cast<unsigned>(FluidStep::Report) < 32, "the stage has 5 bits of the blow-up code");
  const unsigned stage = static_cast<unsigned>(step);
  const unsigned long long code =
      (static_cast<unsigned long long>(ctrl->done) << 9 | stage << 4 | what) << 32 | static_cast<unsigned>(i);
  atomicMin(&s->first, code);
}

__device__ inline bool finite3(Vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

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

// DFSPH's neighbour lists (fluid_kernels.h, NeighbourLists): neighbour_lists writes a lane's list while it walks the
// cells (add for each candidate, then finish); the neighbour passes read it through forEachNeighbourInSlab.
class ListWriter {
public:
  __device__ ListWriter(const NeighbourLists& lists, int n, int particle, int lane)
      : lists_(lists), stride_(3u * static_cast<unsigned>(n)),
        slot_(3u * static_cast<unsigned>(particle) + static_cast<unsigned>(lane)) {}
  // j: the next neighbour in the walk's order (sorted indices rise along it: rows y - 1, y, y + 1 of one slab).
  __device__ void add(unsigned j) {
    if (count_ == 0) base_ = j;
    const unsigned offset = j - base_;
    if (count_ < static_cast<unsigned>(kListPerLane) && offset <= sph_math::kListSpan)
      lists_.offset[count_ * stride_ + slot_] = static_cast<unsigned short>(offset);
    else overflow_ = true;
    ++count_;
  }
  // Returns whether the lane overflowed (it walks its cells).
  __device__ bool finish() const {
    lists_.base[slot_] = base_;
    lists_.count[slot_] = overflow_ ? kListOverflow : static_cast<unsigned char>(count_);
    return overflow_;
  }

private:
  NeighbourLists lists_;
  unsigned stride_, slot_, base_ = 0, count_ = 0;
  bool overflow_ = false;
};

// Calls fn(j) for a third of the particle's neighbours: the three lanes' lists read as one list (lane 0's, then lane
// 1's, then lane 2's), of which this lane takes entries lane, lane + 3, lane + 6, ... The slabs' counts differ (in a
// lattice the middle slab holds two thirds of the neighbours, an outer one none), so a lane walking its own list kept
// two of three lanes waiting; dealt out, every lane runs a third (docs/PERFORMANCE.md, "Lists dealt out"). A particle
// with an overflowed lane, or no lists at all, walks its cells instead: every candidate of this lane's slab (fn tests
// r^2 < h^2 either way, so the terms are the same, summed in another order).
template <typename Fn>
__device__ inline void forEachNeighbourInSlab(const NeighbourLists& lists, int n, const unsigned* cellStart,
                                              const unsigned* cellEnd, const Grid& g, Vec3 x, int particle, int lane,
                                              Fn&& fn) {
  if (lists.base != nullptr) {
    const unsigned stride = 3u * static_cast<unsigned>(n);
    const unsigned first = 3u * static_cast<unsigned>(particle);
    const unsigned c0 = lists.count[first], c1 = lists.count[first + 1], c2 = lists.count[first + 2];
    if (c0 != kListOverflow && c1 != kListOverflow && c2 != kListOverflow) {
      const unsigned c01 = c0 + c1, total = c01 + c2;
      const unsigned b0 = lists.base[first], b1 = lists.base[first + 1], b2 = lists.base[first + 2];
      for (unsigned e = static_cast<unsigned>(lane); e < total; e += 3u) {
        const unsigned from = e < c0 ? 0u : (e < c01 ? 1u : 2u);
        const unsigned k = e - (from == 0u ? 0u : (from == 1u ? c0 : c01));
        const unsigned base = from == 0u ? b0 : (from == 1u ? b1 : b2);
        fn(base + __ldg(&lists.offset[k * stride + first + from]));
      }
      return;
    }
  }
  forEachCandidateInSlab(cellStart, cellEnd, g, x, lane, fn);
}

// The boundary particles (compute/fluid/dfsph.h, Boundary; Akinci et al. 2012): both solvers' density stages add their
// terms, the DFSPH solves and WCSPH's forces the pressure they push back with (sph_math::boundaryRate,
// boundaryAcceleration, from the gradient sum the density stage keeps).

// The lane's slab of one boundary's particles within h of x (x in the fluid's frame): fn(V_b, d, r2).
template <typename T, typename Fn>
__device__ inline T boundarySlab(const BoundaryArgs& b, Vec3 fluidX, int lane, float h2, Fn&& fn) {
  T acc{};
  Vec3 x{0.0f, 0.0f, 0.0f};
  if (b.n == 0 || !sph_math::toBoundaryFrame(fluidX, b.frame, x)) return acc;
  forEachCandidateInSlab(b.cellStart, b.cellEnd, b.grid, x, lane, [&](unsigned k) {
    const Vec3 d = x - xyz(__ldg(&b.pos[k]));
    const float r2 = sph_math::dot(d, d);
    acc = acc + (r2 < h2 ? fn(__ldg(&b.volume[k]), d, r2) : T{});
  });
  return acc;
}

__device__ inline Vec3 groupSum3(Vec3 v, int leader) {
  return {groupSum(v.x, leader), groupSum(v.y, leader), groupSum(v.z, leader)};
}

// The walls' and the obstacle's sums at the group's particle (at xi; none where l.particle < 0), in every lane of the
// group, added as the CPU's boundaryTermsAt: each set's (s0 + s1) + s2, then walls + obstacle. All 32 lanes call it.
__device__ inline sph_math::BoundaryTerms boundarySumsAt(const BoundaryArgs* boundary, const LaneOf& l, Vec3 xi,
                                                         float h, float rho0) {
  sph_math::BoundaryTerms sum[2];
  if (l.particle >= 0) {
    const auto term = [&](float volume, Vec3 d, float r2) {
      const float psi = rho0 * volume;
      return sph_math::BoundaryTerms{psi * sph_math::kernelW(r2, h), d * (psi * sph_math::kernelGradFactor(r2, h))};
    };
    for (int b = 0; b < 2; ++b) sum[b] = boundarySlab<sph_math::BoundaryTerms>(boundary[b], xi, l.lane, h * h, term);
  }
  sph_math::BoundaryTerms total[2];
  for (int b = 0; b < 2; ++b) total[b] = {groupSum(sum[b].density, l.leader), groupSum3(sum[b].grad, l.leader)};
  return total[kWallBoundary] + total[kObstacleBoundary];
}

inline unsigned laneThreads(int n) { return static_cast<unsigned>((n + kGroupsPerWarp - 1) / kGroupsPerWarp) * 32u; }

// A kernel's spec from its argument struct, written in place at the call: Args is deduced from the kernel alone
// (enable_if<true, Args>::type is not deduced from the braces).
template <typename Args>
KernelSpec specOf(void (*kernel)(Args), const typename std::enable_if<true, Args>::type& a, unsigned threads,
                  int block = kBlock) {
  return cuda::kernelSpecOf(kernel, a, threads, static_cast<unsigned>(block));
}

inline unsigned count(int n) { return static_cast<unsigned>(n); }

// The spec of one of DFSPH's kernel rows (dfsph_kernels.cu); specFor's cases for them.
KernelSpec dfsphSpecFor(FluidStep step, const DeviceState& d, const Scratch& s, const KernelParams& k, const Grid& g,
                        const Handles& handles);

} // namespace graphsim::fluid::gpu
