// Experimental forces kernels for forces_bench (issue 14, item 1), included by forces_bench.cu after
// compute/cuda/forces_kernel.cu. Not part of the product.
//
// symForcesKernel: Newton's third law. One rsqrt and one inv^3 serve both bodies of a pair:
//   d = x_j - x_i (3 FADD), r2 = eps^2 + d.d (3 FFMA), inv = rsqrt(r2) (MUFU), inv3 = inv * inv * inv (2 FMUL),
//   w_j = m_j inv3, w_i = m_i inv3 (2 FMUL), acc_i += d w_j (3 FFMA), acc_j -= d w_i (3 FFMA)
// = 16 FP32 + 1 MUFU per pair of interactions (18 + 1 with the eps^2 == 0 guard: both weights clamped).
//
// Schedule. Bodies form tiles of kTile = 32 * kBodies; tile pairs {I, J} are visited once each with the cyclic
// schedule over the upper triangle: tile I takes the tiles J = I + o (mod nt) for o = 0 .. H_I, where
//   nt odd:  H_I = (nt - 1) / 2 for every I,
//   nt even: H_I = nt / 2 for I < nt / 2 and nt / 2 - 1 for the others (offset nt / 2 is done by the lower tile).
// Offset 0 (the diagonal tile) is done one-sided: every ordered pair in the tile adds to acc_i only and j's sums
// are dropped, so each pair in the tile is still counted once for each of its bodies.
// Tile I's list of work is its (H_I + 1) tiles J, each split into kBodies chunks of 32 bodies j: L_I chunks.
// Every warp is independent (no block barrier): warp q of tile I holds all kTile bodies i of tile I (lane l holds
// bodies I * kTile + b * 32 + l, b < kBodies, position, mass and running sum in registers) and does chunks
// [q L_I / Q, (q + 1) L_I / Q) of I's list (Q warps per tile, symWarpsPerTile).
//
// One chunk. The warp stages the chunk's 32 bodies j in its own 64-entry shared buffer, twice (entries l and
// l + 32), as (m, x, y, z) like the stage's tile (register banks). Step k (k = 0 .. 31): lane l reads j = (l + k) mod
// 32 from buf[l + k] (no index arithmetic: an immediate offset), interacts it with its kBodies bodies i, then passes
// j's running sum (3 floats) to lane l - 1 with __shfl_sync (source lane l + 1). After 32 steps each sum has been
// round the warp once and is back at its lane: lane l holds the whole chunk's contribution to body j = l.
// Per step: 1 LDS.128 + 3 SHFL + kBodies * 17 (16 FP32 + MUFU): about 8.5 + 4 / (2 kBodies) issue slots per
// interaction. Counted in the SASS (nvcc 13.0, -O3, sm_90), 32-step loop of kBodies = 8, unroll 16: 8.85 per
// interaction (9.8 with the guard), about 0.1 more per chunk (staging, the atomic, the prefetch).
//
// Output. Every sum leaves with one vector atomic, atomicAdd(float4*, float4) (sm_90: one RED instruction, result
// unused), into the accel array, which therefore must be zeroed before the kernel: symForcesLaunch issues
// cudaMemsetAsync on the same stream first (a memset node ahead of the kernel node in the app's graph). Per lane: one
// atomic per chunk (body j) and kBodies at the end (bodies i). The order of the atomics is not fixed, so results vary
// from run to run in the last bits.
//
// Padding and the guard as in forces_kernel.cu: bodies past n load as massless bodies at the origin and contribute
// 0 to everyone (with kGuardZero, 0 * inf = NaN weights are clamped to FLT_MAX by FMNMX, times d = 0); sums of bodies
// past n are not written. kGuardZero also makes the self pair and coincident pairs contribute 0.
#pragma once

#include "compute/cuda/nbody_kernels.h"

#include <cuda_runtime.h>
#include <cfloat>

namespace graphsim::cuda::experiments {

// kBodies bodies i per lane; kWarps independent warps per block; kUnroll of the 32-step chunk loop; kMinBlocks for
// __launch_bounds__. Warps per tile I (symWarpsPerTile): enough that each warp has about kChunks chunks (many
// short warps keep the last wave's tail small: equal warps finish in waves), but at least kFillWarps warps in all
// (small n: fill 132 SMs), at most one per chunk.
template <int Bodies, int Warps, int Unroll, int MinBlocks, int Chunks = 32, int FillWarps = 8448>
struct SymShape {
  static constexpr int kBodies = Bodies;
  static constexpr int kWarps = Warps;
  static constexpr int kUnroll = Unroll;
  static constexpr int kMinBlocks = MinBlocks;
  static constexpr int kChunks = Chunks;
  static constexpr int kFillWarps = FillWarps;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kTile = 32 * kBodies;
  static_assert(32 % kUnroll == 0, "unroll divides the 32 steps of a chunk");
};

__host__ __device__ constexpr int symTiles(int n, int tile) { return n > 0 ? (n + tile - 1) / tile : 0; }

// Q, the warps per tile I (the kernel recomputes it from n, so ForcesArgs stays its argument). The longest list of
// a tile has (nt / 2 + 1) tiles of kBodies chunks.
template <class S>
__host__ __device__ constexpr int symWarpsPerTile(int nt) {
  if (nt <= 0) return 1;
  const int l = S::kBodies * (nt / 2 + 1);
  int q = (l + S::kChunks - 1) / S::kChunks;
  const int fill = (S::kFillWarps + nt - 1) / nt;
  if (q < fill) q = fill;
  return q > l ? l : q;
}

template <class S>
__host__ __device__ constexpr unsigned symBlocks(int n) {
  const int nt = symTiles(n, S::kTile);
  const long long warps = static_cast<long long>(nt) * symWarpsPerTile<S>(nt);
  const long long blocks = (warps + S::kWarps - 1) / S::kWarps;
  return blocks > 0 ? static_cast<unsigned>(blocks) : 1u;
}

__device__ __forceinline__ float symRsqrt(float x) {
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// One pair: body i (xi, yi, zi, mi; sum a*) and body j (q = (m, x, y, z); sum b*).
template <bool kGuardZero>
__device__ __forceinline__ void symPair(float xi, float yi, float zi, float mi, float4 q, float eps2, float& ax,
                                        float& ay, float& az, float& bx, float& by, float& bz) {
  const float dx = q.y - xi, dy = q.z - yi, dz = q.w - zi;
  const float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
  const float inv = symRsqrt(r2);
  const float inv3 = (inv * inv) * inv;
  float wj = q.x * inv3, wi = mi * inv3;
  if constexpr (kGuardZero) {
    wj = fminf(wj, FLT_MAX);
    wi = fminf(wi, FLT_MAX);
  }
  ax = fmaf(dx, wj, ax);
  ay = fmaf(dy, wj, ay);
  az = fmaf(dz, wj, az);
  bx = fmaf(-dx, wi, bx);
  by = fmaf(-dy, wi, by);
  bz = fmaf(-dz, wi, bz);
}

template <class S, bool kGuardZero>
__global__ void __launch_bounds__(S::kThreads, S::kMinBlocks) symForcesKernel(ForcesArgs a) {
  constexpr int kB = S::kBodies;
  __shared__ __align__(16) float4 stage[S::kWarps][64];

  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  const int n = a.n;
  const int nt = symTiles(n, S::kTile);
  const int Q = symWarpsPerTile<S>(nt);
  const int gw = static_cast<int>(blockIdx.x) * S::kWarps + warp;
  const int I = gw / Q, q = gw - I * Q;
  if (I >= nt) return; // the whole warp: the grid is rounded up to whole blocks
  const int half = nt / 2;
  const int H = (nt & 1) ? half : (I < half ? half : half - 1);
  const int L = kB * (H + 1);
  const int t0 = static_cast<int>(static_cast<long long>(q) * L / Q);
  const int t1 = static_cast<int>(static_cast<long long>(q + 1) * L / Q);
  if (t0 >= t1) return;

  const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const int iBase = I * S::kTile;
  float px[kB], py[kB], pz[kB], pm[kB], ax[kB], ay[kB], az[kB];
#pragma unroll
  for (int b = 0; b < kB; ++b) {
    const int i = iBase + b * 32 + lane;
    const float4 p = i < n ? a.posMass[i] : zero;
    px[b] = p.x;
    py[b] = p.y;
    pz[b] = p.z;
    pm[b] = p.w;
    ax[b] = ay[b] = az[b] = 0.0f;
  }

  // First body (of 32) of chunk t of I's list; o = t / kB is the tile offset (0: the diagonal).
  auto chunkBase = [&](int t) {
    int J = I + t / kB;
    if (J >= nt) J -= nt;
    return J * S::kTile + (t % kB) * 32;
  };

  float4* buf = stage[warp];
  const float eps2 = a.eps2, G = a.G;
  const int src = (lane + 1) & 31;
  int jNext = chunkBase(t0) + lane;
  float4 next = jNext < n ? a.posMass[jNext] : zero;
  for (int t = t0; t < t1; ++t) {
    const int j = jNext;
    const float4 cur = next;
    if (t + 1 < t1) {
      jNext = chunkBase(t + 1) + lane;
      next = jNext < n ? a.posMass[jNext] : zero;
    }
    if (j - lane >= n) continue; // the whole chunk is padding (warp-uniform)
    __syncwarp();                // every lane is done reading the previous chunk
    const float4 qj = make_float4(cur.w, cur.x, cur.y, cur.z);
    buf[lane] = qj;
    buf[lane + 32] = qj;
    __syncwarp();
    float bx = 0.0f, by = 0.0f, bz = 0.0f;
    const float4* row = buf + lane;
#pragma unroll S::kUnroll
    for (int k = 0; k < 32; ++k) {
      const float4 qk = row[k];
#pragma unroll
      for (int b = 0; b < kB; ++b)
        symPair<kGuardZero>(px[b], py[b], pz[b], pm[b], qk, eps2, ax[b], ay[b], az[b], bx, by, bz);
      bx = __shfl_sync(0xffffffffu, bx, src);
      by = __shfl_sync(0xffffffffu, by, src);
      bz = __shfl_sync(0xffffffffu, bz, src);
    }
    if (t >= kB && j < n) atomicAdd(&a.accel[j], make_float4(G * bx, G * by, G * bz, 0.0f));
  }

#pragma unroll
  for (int b = 0; b < kB; ++b) {
    const int i = iBase + b * 32 + lane;
    if (i < n) atomicAdd(&a.accel[i], make_float4(G * ax[b], G * ay[b], G * az[b], 0.0f));
  }
}

// The timed launch: zero the accelerations, then the kernel (eps^2 below FLT_MIN: the guarded instantiation).
template <class S>
void symForcesLaunch(const ForcesArgs& a, cudaStream_t stream = 0) {
  if (a.n > 0) cudaMemsetAsync(a.accel, 0, static_cast<size_t>(a.n) * sizeof(float4), stream);
  const void* f = a.eps2 >= FLT_MIN ? reinterpret_cast<const void*>(symForcesKernel<S, false>)
                                    : reinterpret_cast<const void*>(symForcesKernel<S, true>);
  ForcesArgs copy = a;
  void* args[] = {&copy};
  cudaLaunchKernel(f, dim3(symBlocks<S>(a.n)), dim3(S::kThreads), args, 0, stream);
}

} // namespace graphsim::cuda::experiments
