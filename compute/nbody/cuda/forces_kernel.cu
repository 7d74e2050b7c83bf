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
#include "compute/nbody/cuda/nbody_kernels.h"

#include <cfloat>

#include "compute/cuda/programmatic_launch.cuh"

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

// kSliced (one GPU of several): the bodies i are [a.begin, a.end) rather than all n. A separate instance, so that the
// single-GPU kernel keeps exactly its code: reading the bounds from the arguments cost 3.4 % at 16,384 bodies (H100).
template <class S, bool kGuardZero, bool kSliced = false>
__global__ void __launch_bounds__(S::kThreads, S::kMinBlocks) forcesKernel(ForcesArgs a) {
  constexpr int kB = S::kBodies, kL = S::kLanes, kT = S::kThreads;
  // The j tiles during the sum, the groups' partial sums after it (a barrier apart).
  constexpr int kTileBytes = 2 * kT * static_cast<int>(sizeof(float4));
  constexpr int kPartialBytes = S::kGroups > 1 ? 3 * S::kGroups * S::kBlockBodies * static_cast<int>(sizeof(float)) : 0;
  __shared__ __align__(16) unsigned char smem[kTileBytes > kPartialBytes ? kTileBytes : kPartialBytes];
  auto* tile = reinterpret_cast<float4(*)[kT]>(smem);
  auto* partial = reinterpret_cast<float(*)[S::kGroups][S::kBlockBodies]>(smem);
  programmaticLaunchPrologue();

  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % kL, group = tid / kL;
  const int n = a.n;
  const int first = kSliced ? a.begin : 0, end = kSliced ? a.end : n; // this launch's bodies i
  const int base = first + static_cast<int>(blockIdx.x) * S::kBlockBodies;
  const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

  float px[kB], py[kB], pz[kB], ax[kB], ay[kB], az[kB];
#pragma unroll
  for (int b = 0; b < kB; ++b) {
    const int i = base + b * kL + lane;
    const float4 p = i < end ? a.posMass[i] : zero;
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
      if (i < end) a.accel[i] = make_float4(a.G * ax[b], a.G * ay[b], a.G * az[b], 0.0f);
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
      if (base + k < end) a.accel[base + k] = make_float4(a.G * sx, a.G * sy, a.G * sz, 0.0f);
    }
  }
}

template <class S>
KernelNodeSpec specFor(const ForcesArgs& a) {
  const unsigned n = static_cast<unsigned>(a.end > a.begin ? a.end - a.begin : 0);
  const unsigned blocks = (n + S::kBlockBodies - 1) / S::kBlockBodies;
  // eps^2 below FLT_MIN would be flushed to 0 by the rsqrt: treat it as no softening.
  const bool sliced = a.begin != 0 || a.end != a.n;
  const bool guard = !(a.eps2 >= FLT_MIN);
  const void* kernel = sliced ? (guard ? reinterpret_cast<const void*>(forcesKernel<S, true, true>)
                                       : reinterpret_cast<const void*>(forcesKernel<S, false, true>))
                              : (guard ? reinterpret_cast<const void*>(forcesKernel<S, true>)
                                       : reinterpret_cast<const void*>(forcesKernel<S, false>));
  return KernelNodeSpec::make(kernel, dim3(blocks > 0 ? blocks : 1u), dim3(S::kThreads), a);
}

// ---- The symmetric-pair kernel (Newton's third law): the stage's kernel wherever the softening bounds the sums ----
//
// One rsqrt and one inv^3 serve both bodies of a pair: d = x_j - x_i (3 FADD), r2 = eps^2 + d.d (3 FFMA),
// inv = rsqrt(r2) (MUFU), inv3 = inv * inv * inv (2 FMUL), w_j = m_j inv3 and w_i = m_i inv3 (2 FMUL), acc_i += d w_j
// and acc_j -= d w_i (6 FFMA): 16 FP32 + 1 MUFU per two interactions, 8.9 issued instructions per interaction in the
// SASS against the tiled kernel's 13.45 (docs/FORCES.md).
//
// Schedule. Tiles of kTile = 32 * kBodies bodies; every unordered tile pair {I, J} is visited once, by tile I, with a
// cyclic schedule over the upper triangle: tile I takes the tiles J = I + o (mod nt) for o = 0 .. H_I, where
// H_I = (nt - 1) / 2 for odd nt, and for even nt H_I = nt / 2 for I < nt / 2, nt / 2 - 1 for the others. Offset 0 (the
// diagonal tile) is one-sided: every ordered pair of the tile adds to acc_i only. Tile I's list is its (H_I + 1) tiles
// J, each split into kBodies chunks of 32 bodies j: L_I chunks, shared out evenly over Q warps (symWarpsPerTile).
// Warps are independent (no block barrier): lane l holds bodies I * kTile + b * 32 + l (b < kBodies) in registers.
//
// One chunk. The warp stages its 32 bodies j in its own 64-entry shared buffer, twice, as (m, x, y, z) (register
// banks: see interact above). Step k: lane l reads j = (l + k) mod 32 from buf[l + k] and passes j's running sum to
// lane l - 1 with __shfl_sync; after 32 steps every sum is back at its own lane.
//
// Deterministic sums. Each chunk's sum for body j, and each warp's sums for its bodies i, are computed in a fixed
// order; they are then added as 64-bit fixed-point integers (a.toFixed units per unit; atomicAdd on integers is
// associative, so the result does not depend on the order the warps finish in). The scale comes from the bound
// |sum_j m_j d / (r^2 + eps^2)^(3/2)| <= (2 / 3^(3/2)) sum m / eps^2 ~= 0.385 sum m / eps^2 (forcesArgs), so no sum
// can overflow, and one unit is below 1e-18 of the bound. When the last contribution to a tile has arrived (a
// per-tile counter: every warp adds, after a fence, the chunks it did for that tile and 1 for its own bodies i), the
// warp that completed it converts the tile's sums to float4 accel (times G), zeroing sums and counter for the next
// launch. Results are therefore bit-identical from launch to launch, like the tiled kernel's.
//
// A non-finite sum (NaN positions from a state that already blew up) cannot be a fixed-point value: it marks its
// tile (kNonFiniteSum), whose accelerations are then written as NaN, so blow-ups still propagate as they do on the CPU.
//
// Bodies past n are padding: they load as massless bodies at the origin and contribute 0; chunks wholly past n are
// skipped (but counted); sums of bodies past n are not written.
template <int Bodies, int Warps, int Unroll, int MinBlocks>
struct SymShape {
  static constexpr int kBodies = Bodies;
  static constexpr int kWarps = Warps;
  static constexpr int kUnroll = Unroll;
  static constexpr int kMinBlocks = MinBlocks;
  static constexpr int kChunks = 32;      // chunks per warp to aim for (short warps keep the last wave's tail small)
  static constexpr int kFillWarps = 8448; // at least this many warps in all: small n still fills 132 SMs
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kTile = 32 * kBodies;
  static_assert(32 % kUnroll == 0, "unroll divides the 32 steps of a chunk");
};

// The stage's shape: 8 bodies i per lane, 4 warps per block, unroll 8, 4 blocks per SM (FORCES.md's table).
using SymStageShape = SymShape<8, 4, 8, 4>;

__host__ __device__ constexpr int symTiles(int n, int tile) { return n > 0 ? (n + tile - 1) / tile : 0; }

template <class S>
__host__ __device__ constexpr int symWarpsPerTile(int nt) {
  if (nt <= 0) return 1;
  const int l = S::kBodies * (nt / 2 + 1); // the longest list
  int q = (l + S::kChunks - 1) / S::kChunks;
  const int fill = (S::kFillWarps + nt - 1) / nt;
  if (q < fill) q = fill;
  return q > l ? l : q;
}

// The tiles I whose pair lists a launch for the bodies [begin, end) visits.
template <class S>
__host__ __device__ constexpr int symFirstTile(const ForcesArgs& a) {
  return a.begin / S::kTile;
}
template <class S>
__host__ __device__ constexpr int symEndTile(const ForcesArgs& a) {
  return a.end > a.begin ? symTiles(a.end, S::kTile) : symFirstTile<S>(a); // an empty slice has no tiles
}

template <class S>
__host__ __device__ constexpr unsigned symBlocks(const ForcesArgs& a) {
  const int nt = symTiles(a.n, S::kTile);
  const int own = symEndTile<S>(a) - symFirstTile<S>(a);
  const long long warps = static_cast<long long>(own > 0 ? own : 0) * symWarpsPerTile<S>(nt);
  const long long blocks = (warps + S::kWarps - 1) / S::kWarps;
  return blocks > 0 ? static_cast<unsigned>(blocks) : 1u;
}

__device__ __forceinline__ int symLastOffset(int I, int nt) {
  const int half = nt / 2;
  return (nt & 1) ? half : (I < half ? half : half - 1);
}

// Contributions tile T receives in one launch: kBodies chunks from every list that holds T, and 1 from each warp of
// T that has work (min(Q, L_T) of them).
template <class S>
__device__ __forceinline__ unsigned symExpected(int T, int nt, int Q) {
  const int lists = (nt & 1) ? (nt + 1) / 2 : (T >= nt / 2 ? nt / 2 + 1 : nt / 2);
  const int L = S::kBodies * (symLastOffset(T, nt) + 1);
  return static_cast<unsigned>(S::kBodies * lists + (Q < L ? Q : L));
}

// A tile's counter also carries this bit: a sum of one of its bodies was not finite (or beyond the bound), so its
// fixed-point value means nothing; the tile's accelerations are written as NaN, as the tiled kernel's would be.
constexpr unsigned kNonFiniteSum = 0x80000000u;

template <class S>
__device__ __forceinline__ void addFixed(const ForcesArgs& a, int body, float x, float y, float z) {
  const float vx = x * a.toFixed, vy = y * a.toFixed, vz = z * a.toFixed;
  constexpr float kLimit = 9.2e18f; // int64 holds +-9.22e18
  if (!(fabsf(vx) < kLimit && fabsf(vy) < kLimit && fabsf(vz) < kLimit)) {
    atomicOr(&a.tileDone[body / S::kTile], kNonFiniteSum);
    return;
  }
  unsigned long long* f = a.fixed + 3 * static_cast<long long>(body);
  atomicAdd(f + 0, static_cast<unsigned long long>(__float2ll_rn(vx)));
  atomicAdd(f + 1, static_cast<unsigned long long>(__float2ll_rn(vy)));
  atomicAdd(f + 2, static_cast<unsigned long long>(__float2ll_rn(vz)));
}

// The warp reports `count` contributions to tile T (its lanes' atomics are made visible first); the warp that
// completes T converts T's sums into accel and zeroes them and the counter.
template <class S>
__device__ void symReport(const ForcesArgs& a, int T, unsigned count, unsigned expected, int lane) {
  __threadfence();
  __syncwarp();
  unsigned old = 0;
  if (lane == 0) old = atomicAdd(&a.tileDone[T], count);
  old = __shfl_sync(0xffffffffu, old, 0);
  if ((old & ~kNonFiniteSum) + count != expected) return;
  __threadfence();
  const bool nonFinite = (old & kNonFiniteSum) != 0 || (atomicOr(&a.tileDone[T], 0u) & kNonFiniteSum) != 0;
  const float fromFixed = nonFinite ? __int_as_float(0x7fc00000) : a.G / a.toFixed; // NaN: see kNonFiniteSum
#pragma unroll
  for (int b = 0; b < S::kBodies; ++b) {
    const int i = T * S::kTile + b * 32 + lane;
    if (i >= a.n) continue;
    unsigned long long* f = a.fixed + 3 * static_cast<long long>(i);
    const long long x = static_cast<long long>(atomicExch(f + 0, 0ull));
    const long long y = static_cast<long long>(atomicExch(f + 1, 0ull));
    const long long z = static_cast<long long>(atomicExch(f + 2, 0ull));
    a.accel[i] =
        make_float4(__ll2float_rn(x) * fromFixed, __ll2float_rn(y) * fromFixed, __ll2float_rn(z) * fromFixed, 0.0f);
  }
  if (lane == 0) a.tileDone[T] = 0;
}

__device__ __forceinline__ void symPair(float xi, float yi, float zi, float mi, float4 q, float eps2, float& ax,
                                        float& ay, float& az, float& bx, float& by, float& bz) {
  const float dx = q.y - xi, dy = q.z - yi, dz = q.w - zi;
  const float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
  const float inv = rsqrtApproxFtz(r2);
  const float inv3 = (inv * inv) * inv;
  const float wj = q.x * inv3, wi = mi * inv3;
  ax = fmaf(dx, wj, ax);
  ay = fmaf(dy, wj, ay);
  az = fmaf(dz, wj, az);
  bx = fmaf(-dx, wi, bx);
  by = fmaf(-dy, wi, by);
  bz = fmaf(-dz, wi, bz);
}

// One lane's kBodies bodies i of tile I (positions, masses, running sums) in registers.
template <class S>
struct SymLane {
  float px[S::kBodies], py[S::kBodies], pz[S::kBodies], pm[S::kBodies];
  float ax[S::kBodies], ay[S::kBodies], az[S::kBodies];

  __device__ __forceinline__ void load(const ForcesArgs& a, int I, int lane) {
#pragma unroll
    for (int b = 0; b < S::kBodies; ++b) {
      const int i = I * S::kTile + b * 32 + lane;
      const float4 p = i < a.n ? a.posMass[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      px[b] = p.x;
      py[b] = p.y;
      pz[b] = p.z;
      pm[b] = p.w;
      ax[b] = ay[b] = az[b] = 0.0f;
    }
  }

  // One chunk: the warp's 32 bodies j (this lane's is cur) staged in buf, 32 steps against the lane's bodies i.
  // Returns in b* the sum, over the warp's bodies i, for the lane's own body j.
  __device__ __forceinline__ void chunk(float4* buf, int lane, float4 cur, float eps2, float& bx, float& by,
                                        float& bz) {
    __syncwarp(); // every lane is done reading the previous chunk
    const float4 qj = make_float4(cur.w, cur.x, cur.y, cur.z);
    buf[lane] = qj;
    buf[lane + 32] = qj;
    __syncwarp();
    const int src = (lane + 1) & 31;
    bx = by = bz = 0.0f;
    const float4* row = buf + lane;
#pragma unroll S::kUnroll
    for (int k = 0; k < 32; ++k) {
      const float4 qk = row[k];
#pragma unroll
      for (int b = 0; b < S::kBodies; ++b)
        symPair(px[b], py[b], pz[b], pm[b], qk, eps2, ax[b], ay[b], az[b], bx, by, bz);
      bx = __shfl_sync(0xffffffffu, bx, src);
      by = __shfl_sync(0xffffffffu, by, src);
      bz = __shfl_sync(0xffffffffu, bz, src);
    }
  }
};

// kPartial (one GPU of several): the sums are only added up here; the tiles' counters keep just the non-finite bit,
// and forcesConvertKernel writes a_i once the GPUs' sums were added together.
template <class S, bool kPartial>
__global__ void __launch_bounds__(S::kThreads, S::kMinBlocks) symForcesKernel(ForcesArgs a) {
  constexpr int kB = S::kBodies;
  __shared__ __align__(16) float4 stage[S::kWarps][64];
  programmaticLaunchPrologue();

  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  const int n = a.n;
  const int nt = symTiles(n, S::kTile);
  const int Q = symWarpsPerTile<S>(nt);
  const int gw = static_cast<int>(blockIdx.x) * S::kWarps + warp;
  const int I = symFirstTile<S>(a) + gw / Q, q = gw % Q;
  if (I >= symEndTile<S>(a)) return; // the whole warp: the grid is rounded up to whole blocks
  const int L = kB * (symLastOffset(I, nt) + 1);
  const int t0 = static_cast<int>(static_cast<long long>(q) * L / Q);
  const int t1 = static_cast<int>(static_cast<long long>(q + 1) * L / Q);
  if (t0 >= t1) return; // no work, and not counted (symExpected)

  SymLane<S> own;
  own.load(a, I, lane);
  const auto tileOf = [&](int t) {
    const int J = I + t / kB;
    return J >= nt ? J - nt : J;
  };
  const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  int jNext = tileOf(t0) * S::kTile + (t0 % kB) * 32 + lane;
  float4 next = jNext < n ? a.posMass[jNext] : zero;
  int pendingTile = tileOf(t0);
  unsigned pending = 0;
  for (int t = t0; t < t1; ++t) {
    const int J = tileOf(t);
    if (J != pendingTile) { // the chunks of tile pendingTile are done: report them
      if constexpr (!kPartial) symReport<S>(a, pendingTile, pending, symExpected<S>(pendingTile, nt, Q), lane);
      pendingTile = J;
      pending = 0;
    }
    ++pending;
    const int j = jNext;
    const float4 cur = next;
    if (t + 1 < t1) {
      jNext = tileOf(t + 1) * S::kTile + ((t + 1) % kB) * 32 + lane;
      next = jNext < n ? a.posMass[jNext] : zero;
    }
    if (j - lane >= n) continue; // the whole chunk is padding (warp-uniform)
    float bx, by, bz;
    own.chunk(stage[warp], lane, cur, a.eps2, bx, by, bz);
    if (t >= kB && j < n) addFixed<S>(a, j, bx, by, bz); // the diagonal tile (t < kB) is one-sided
  }
  if constexpr (!kPartial) symReport<S>(a, pendingTile, pending, symExpected<S>(pendingTile, nt, Q), lane);

#pragma unroll
  for (int b = 0; b < kB; ++b) {
    const int i = I * S::kTile + b * 32 + lane;
    if (i < n) addFixed<S>(a, i, own.ax[b], own.ay[b], own.az[b]);
  }
  if constexpr (!kPartial) symReport<S>(a, I, 1u, symExpected<S>(I, nt, Q), lane);
}

template <class S>
KernelNodeSpec symSpecFor(const ForcesArgs& a) {
  const void* kernel = a.partial != 0 ? reinterpret_cast<const void*>(symForcesKernel<S, true>)
                                      : reinterpret_cast<const void*>(symForcesKernel<S, false>);
  return KernelNodeSpec::make(kernel, dim3(symBlocks<S>(a)), dim3(S::kThreads), a);
}

// The partial sums' epilogue (ForcesConvertArgs): the conversion of symReport, for the slice, after the reduction.
__global__ void forcesConvertKernel(ForcesConvertArgs a) {
  if (!(a.toFixed > 0)) return; // the tiled kernel wrote a_i; no sums to convert or clear
  const int stride = static_cast<int>(gridDim.x * blockDim.x);
  const int count = a.bodies > a.tiles ? a.bodies : a.tiles;
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < count; i += stride) {
    if (i < a.tiles) a.tileDone[i] = 0u;
    if (i >= a.bodies) continue;
    unsigned long long* f = a.fixed + 3 * static_cast<long long>(i);
    if (i >= a.begin && i < a.end) {
      const bool nonFinite = (a.tileFlags[i / SymStageShape::kTile] & kNonFiniteSum) != 0;
      const float fromFixed = nonFinite ? __int_as_float(0x7fc00000) : a.G / a.toFixed; // as symReport
      const long long x = static_cast<long long>(f[0]), y = static_cast<long long>(f[1]),
                      z = static_cast<long long>(f[2]);
      a.accel[i] =
          make_float4(__ll2float_rn(x) * fromFixed, __ll2float_rn(y) * fromFixed, __ll2float_rn(z) * fromFixed, 0.0f);
    }
    f[0] = f[1] = f[2] = 0ull;
  }
}

} // namespace

KernelNodeSpec forcesConvertSpec(const ForcesConvertArgs& a) {
  const unsigned threads = 256;
  const unsigned want = (static_cast<unsigned>(a.bodies > a.tiles ? a.bodies : a.tiles) + threads - 1) / threads;
  const unsigned blocks = a.toFixed > 0 ? (want < 1u ? 1u : (want > 4096u ? 4096u : want)) : 1u;
  return KernelNodeSpec::make(reinterpret_cast<const void*>(forcesConvertKernel), dim3(blocks), dim3(threads), a);
}

KernelNodeSpec forcesSpec(const ForcesArgs& a) {
  return a.toFixed > 0 ? symSpecFor<SymStageShape>(a) : specFor<StageShape>(a);
}

std::size_t forcesTileCounters(std::size_t capacity) {
  return (capacity + SymStageShape::kTile - 1) / SymStageShape::kTile + 1;
}

ForcesArgs forcesArgs(const BodiesView& b, float G, float eps2) {
  ForcesArgs a{b.posMass, b.accel, nullptr, nullptr, b.n, G, eps2, 0.0f, 0, b.n, 0, 0};
  if (b.forces.fixed == nullptr || b.forces.tileDone == nullptr || !(eps2 >= kSymmetricMinEps2) ||
      b.n < kSymmetricMinBodies)
    return a;
  // |sum| <= (2 / 3^(3/2)) massSum / eps^2; 2^62 units for that bound (a factor 2 to spare for rounding) keeps every
  // partial and total sum inside int64. A massless state has only zero sums: any scale will do.
  const double bound = 0.3849 * static_cast<double>(b.massSum) / static_cast<double>(eps2);
  const double toFixed = bound > 0 ? 4.611686018427388e18 / bound : 1.0;
  if (!(toFixed < 1e30)) return a; // masses so small that the scale leaves float: the tiled kernel
  a.fixed = b.forces.fixed;
  a.tileDone = b.forces.tileDone;
  a.toFixed = static_cast<float>(toFixed);
  return a;
}

} // namespace graphsim::cuda
