// The forces stage: all-pairs softened gravity, a_i = G * sum_j m_j d_ij / (|d_ij|^2 + eps^2)^(3/2), written to be
// bound by instruction issue and nothing else (docs/FORCES.md has the design, the SASS count and the timings).
//
// Shape of the work. A block owns kLanes * kBodies bodies i; each thread keeps kBodies of them (position and
// running sum) in registers, so one shared-memory load of a body j feeds kBodies interactions. The block's threads
// form kGroups groups of kLanes threads; all groups hold the same bodies i and split the j range between them:
// every step the block stages kThreads bodies j in shared memory (one 16-byte load per thread, prefetched one step
// ahead into a register, double-buffered so one barrier per step suffices), and group g sums the g-th slice of
// kLanes of them. The groups' partial sums are added in shared memory at the end in a fixed order, so results are
// deterministic. Splitting j inside the block keeps the grid at n / (kLanes * kBodies) blocks, which fills 132 SMs
// with 32 warps each from n = 65,536 on although every thread carries several bodies.
//
// One interaction is 12 FP32 instructions and one MUFU.RSQ: 3 FADD (d), 3 FFMA (r2, eps^2 as the first addend),
// rsqrt.approx.ftz (inline PTX: rsqrtf without -ftz adds denormal scaling around the MUFU), 3 FMUL
// (w = (m_j * inv) * (inv * inv), mass folded into the weight), 3 FFMA (acc += d * w).
//
// Results differ from the CPU reference (nbody_math::gravityWeight, j ascending, 1/sqrtf) only by rounding: the
// approximate rsqrt (about 2 ulp), fused multiply-adds, and the order of the sum (kGroups partial sums over
// interleaved kLanes-body slices instead of one ascending sum). Bodies past n are padded as massless bodies at the
// origin and contribute exactly 0; a_i of a body past n is computed and dropped.
#include "compute/cuda/nbody_kernels.h"

#include <cfloat>

namespace graphsim::cuda {
namespace {

// A launch shape. kMinBlocks caps registers at 65536 / (kThreads * kMinBlocks) per thread (__launch_bounds__).
template <int Bodies, int Lanes, int Groups, int Unroll, int MinBlocks>
struct Shape {
  static constexpr int kBodies = Bodies; // bodies i per thread, in registers
  static constexpr int kLanes = Lanes;   // threads per group; a block owns kLanes * kBodies bodies i
  static constexpr int kGroups = Groups; // groups per block, each summing its own slice of j
  static constexpr int kUnroll = Unroll; // unroll of the per-slice j loop (kLanes: fully unrolled)
  static constexpr int kMinBlocks = MinBlocks;
  static constexpr int kThreads = kLanes * kGroups;
  static constexpr int kBlockBodies = kLanes * kBodies;
  static_assert(kLanes % 32 == 0 && kLanes % kUnroll == 0, "whole warps per group; unroll divides the slice");
};

// The shape the stage launches: 4 bodies per thread, 8 one-warp groups, 256 threads, 128 bodies i per block, at
// most 64 registers so that 4 blocks (32 warps) share an SM.
using StageShape = Shape<4, 32, 8, 32, 4>;

__device__ __forceinline__ float rsqrtApproxFtz(float x) {
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// kGuardZero (eps^2 == 0, or too small to survive the flush to zero): the self pair has r2 == 0, inv = +inf and
// w = inf (NaN for a massless padding body), and the reference defines its contribution as 0. Clamping w to
// FLT_MAX (FMNMX returns the non-NaN operand) makes it d * FLT_MAX = 0 * FLT_MAX = 0 at the cost of one
// instruction, where the reference's select would cost two; any finite w passes unchanged.
//
// q is body j as staged in shared memory, (m, x, y, z) rather than the array's (x, y, z, m). Both are loaded as
// 16-byte vectors into 4 consecutive registers, so with the array's order x_i and x_j would sit in registers of
// the same parity (same register bank: R4k, R4k'); rotating j's components puts each FADD's two operands in
// different banks.
template <bool kGuardZero>
__device__ __forceinline__ void interact(float px, float py, float pz, float4 q, float eps2, float& ax, float& ay,
                                         float& az) {
  const float dx = q.y - px, dy = q.z - py, dz = q.w - pz;
  const float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
  const float inv = rsqrtApproxFtz(r2);
  float w = (q.x * inv) * (inv * inv);
  if constexpr (kGuardZero) w = fminf(w, FLT_MAX);
  ax = fmaf(dx, w, ax);
  ay = fmaf(dy, w, ay);
  az = fmaf(dz, w, az);
}

template <class S, bool kGuardZero>
__global__ void __launch_bounds__(S::kThreads, S::kMinBlocks) forcesKernel(ForcesArgs a) {
  constexpr int kB = S::kBodies, kL = S::kLanes, kT = S::kThreads;
  // The j tiles during the sum, the groups' partial sums after it (a barrier apart).
  constexpr int kTileBytes = 2 * kT * static_cast<int>(sizeof(float4));
  constexpr int kPartialBytes = S::kGroups > 1 ? 3 * S::kGroups * S::kBlockBodies * static_cast<int>(sizeof(float)) : 0;
  __shared__ __align__(16) unsigned char smem[kTileBytes > kPartialBytes ? kTileBytes : kPartialBytes];
  auto* tile = reinterpret_cast<float4(*)[kT]>(smem);
  auto* partial = reinterpret_cast<float(*)[S::kGroups][S::kBlockBodies]>(smem);

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % kL, group = tid / kL;
  const int n = a.n;
  const int base = static_cast<int>(blockIdx.x) * S::kBlockBodies;
  const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

  float px[kB], py[kB], pz[kB], ax[kB], ay[kB], az[kB];
#pragma unroll
  for (int b = 0; b < kB; ++b) {
    const int i = base + b * kL + lane;
    const float4 p = i < n ? a.posMass[i] : zero;
    px[b] = p.x;
    py[b] = p.y;
    pz[b] = p.z;
    ax[b] = ay[b] = az[b] = 0.0f;
  }

  // Step s stages bodies [s * kT, (s + 1) * kT) in tile[s & 1]; the past-n tail is padded with massless bodies.
  // One barrier per step: tile[s & 1] is rewritten at step s + 2, after every thread passed step s + 1's barrier.
  float4 next = tid < n ? a.posMass[tid] : zero;
  const int steps = (n + kT - 1) / kT;
  for (int s = 0; s < steps; ++s) {
    float4* buf = tile[s & 1];
    buf[tid] = make_float4(next.w, next.x, next.y, next.z); // (m, x, y, z): see interact
    __syncthreads();
    const int j = (s + 1) * kT + tid;
    next = j < n ? a.posMass[j] : zero;
    const float4* slice = buf + group * kL;
#pragma unroll S::kUnroll
    for (int k = 0; k < kL; ++k) {
      const float4 q = slice[k]; // same address across the warp: a broadcast
#pragma unroll
      for (int b = 0; b < kB; ++b) interact<kGuardZero>(px[b], py[b], pz[b], q, a.eps2, ax[b], ay[b], az[b]);
    }
  }

  if constexpr (S::kGroups == 1) {
#pragma unroll
    for (int b = 0; b < kB; ++b) {
      const int i = base + b * kL + lane;
      if (i < n) a.accel[i] = make_float4(a.G * ax[b], a.G * ay[b], a.G * az[b], 0.0f);
    }
  } else {
    __syncthreads(); // the last tile is read by the other groups until here
#pragma unroll
    for (int b = 0; b < kB; ++b) {
      partial[0][group][b * kL + lane] = ax[b];
      partial[1][group][b * kL + lane] = ay[b];
      partial[2][group][b * kL + lane] = az[b];
    }
    __syncthreads();
    for (int k = tid; k < S::kBlockBodies; k += kT) {
      float sx = 0.0f, sy = 0.0f, sz = 0.0f;
#pragma unroll
      for (int g = 0; g < S::kGroups; ++g) {
        sx += partial[0][g][k];
        sy += partial[1][g][k];
        sz += partial[2][g][k];
      }
      if (base + k < n) a.accel[base + k] = make_float4(a.G * sx, a.G * sy, a.G * sz, 0.0f);
    }
  }
}

template <class S>
KernelNodeSpec specFor(const ForcesArgs& a) {
  const unsigned n = static_cast<unsigned>(a.n > 0 ? a.n : 0);
  const unsigned blocks = (n + S::kBlockBodies - 1) / S::kBlockBodies;
  // eps^2 below FLT_MIN would be flushed to 0 by the rsqrt: treat it as no softening.
  const void* kernel = a.eps2 >= FLT_MIN ? reinterpret_cast<const void*>(forcesKernel<S, false>)
                                         : reinterpret_cast<const void*>(forcesKernel<S, true>);
  return KernelNodeSpec::make(kernel, dim3(blocks > 0 ? blocks : 1u), dim3(S::kThreads), a);
}

} // namespace

KernelNodeSpec forcesSpec(const ForcesArgs& a) { return specFor<StageShape>(a); }

} // namespace graphsim::cuda
