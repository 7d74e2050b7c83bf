// The diagnostics kernel (diagnostics_kernel.h): energy, momentum and angular momentum of the state the frame starts
// from, with the per-body terms of compute/nbody/nbody_diagnostics.h. The potential's pair terms are float, as the
// forces kernel's (1 / sqrt(r^2 + eps^2) with the approximate rsqrt, about 2 ulp, summed in float over one tile of 256
// bodies j, the tiles' sums added in double); everything else is double. Each thread keeps two bodies i, so one
// shared-memory load feeds two pairs. Deterministic: every sum runs in an order fixed by n.
#include "compute/nbody/cuda/nbody_diagnostics_kernel.h"

namespace graphsim::cuda {
namespace {

using diagnostics_math::DVec3;

__device__ inline DiagnosticSums loadPartial(const DiagnosticSums* p) {
  // Written by other blocks of this launch: read past L1 (__ldcg), after the fence of the last-block election.
  DiagnosticSums s;
  s.kinetic = __ldcg(&p->kinetic);
  s.potential = __ldcg(&p->potential);
  for (int k = 0; k < 3; ++k) {
    s.momentum[k] = __ldcg(&p->momentum[k]);
    s.angularMomentum[k] = __ldcg(&p->angularMomentum[k]);
  }
  s.momentumScale = __ldcg(&p->momentumScale);
  s.angularMomentumScale = __ldcg(&p->angularMomentumScale);
  return s;
}

// Tree reduction of one DiagnosticSums per thread in shared memory (a fixed order); the result in sums[0].
__device__ inline void reduceBlock(DiagnosticSums* sums) {
  for (int stride = kDiagnosticsBlock / 2; stride > 0; stride >>= 1) {
    if (static_cast<int>(threadIdx.x) < stride) diagnostics_math::add(sums[threadIdx.x], sums[threadIdx.x + stride]);
    __syncthreads();
  }
}

// The forces kernel's approximate rsqrt (rsqrtf without -ftz wraps the MUFU in denormal scaling); r2 here is at
// least eps^2 >= 1e-20 on the unchecked path, far from the denormals.
__device__ __forceinline__ float rsqrtApproxFtz(float x) {
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// One j tile against this thread's kDiagnosticsRows bodies: part[r] += m_j / sqrt(|x_j - x_i|^2 + eps^2), j ascending.
// kChecked: the tile holds one of the bodies i (the self pair is left out) or the softening is ~0 (a pair at
// distance 0, or a massless padding body on a body at the origin, adds 0: diagnostics_math::inverseDistance). Other
// tiles skip both tests: 8 instructions a pair (3 FADD, 3 FFMA, MUFU.RSQ, FFMA).
template <bool kChecked>
__device__ __forceinline__ void sumTile(const float4* tile, const float4 (&p)[kDiagnosticsRows],
                                        const int (&i)[kDiagnosticsRows], int j0, float eps2,
                                        float (&part)[kDiagnosticsRows]) {
#pragma unroll 16
  for (int k = 0; k < kDiagnosticsBlock; ++k) {
    const float4 q = tile[k]; // the same address across the warp: a broadcast
#pragma unroll
    for (int r = 0; r < kDiagnosticsRows; ++r) {
      const float dx = q.x - p[r].x, dy = q.y - p[r].y, dz = q.z - p[r].z;
      const float r2 = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
      const float inv = rsqrtApproxFtz(r2);
      if constexpr (kChecked) {
        part[r] += r2 > 0.0f && j0 + k != i[r] ? q.w * inv : 0.0f;
      } else {
        part[r] = fmaf(q.w, inv, part[r]);
      }
    }
  }
}

// The last block of a launch: the blocks' partials in block order, reduced, then the sample to the host (seqlock:
// odd while writing, even when complete) and the state ready for the next launch.
__device__ void publishSample(const DiagnosticsArgs& a, DiagnosticSums* sums) {
  const int t = static_cast<int>(threadIdx.x);
  __threadfence();
  DiagnosticSums total{};
  for (int b = t; b < static_cast<int>(gridDim.x); b += kDiagnosticsBlock) {
    diagnostics_math::add(total, loadPartial(&a.state->partials[b]));
  }
  sums[t] = total;
  __syncthreads();
  reduceBlock(sums);
  if (t == 0) {
    const DiagnosticSums& s = sums[0];
    volatile DiagnosticsHostReport* h = a.host;
    const unsigned long long seq = a.state->seq;
    h->seq = seq + 1; // odd: writing
    __threadfence_system();
    h->frame = a.frame;
    h->sums.kinetic = s.kinetic;
    h->sums.potential = s.potential;
    for (int k = 0; k < 3; ++k) {
      h->sums.momentum[k] = s.momentum[k];
      h->sums.angularMomentum[k] = s.angularMomentum[k];
    }
    h->sums.momentumScale = s.momentumScale;
    h->sums.angularMomentumScale = s.angularMomentumScale;
    __threadfence_system();
    h->seq = seq + 2; // even: complete
    a.state->seq = seq + 2;
    a.state->blocksDone = 0; // ready for the next launch (stream-ordered after this one)
  }
}

__global__ void __launch_bounds__(kDiagnosticsBlock) diagnosticsKernel(DiagnosticsArgs a) {
  __shared__ float4 tile[kDiagnosticsBlock];
  __shared__ DiagnosticSums sums[kDiagnosticsBlock];
  __shared__ bool lastBlock;
  const DiagnosticsLayout layout = diagnosticsLayout(a.n);
  const int t = static_cast<int>(threadIdx.x);
  // Below this the flush to zero could make r2 == 0: every tile takes the checked path.
  const bool tinySoftening = !(a.eps2 >= 1e-20f);

  DiagnosticSums mine{};
  for (int item = static_cast<int>(blockIdx.x); item < layout.items; item += static_cast<int>(gridDim.x)) {
    const int rowTile = item / layout.splits, split = item % layout.splits;
    const int r0 = rowTile * kDiagnosticsRowTile;
    float4 p[kDiagnosticsRows];
    int i[kDiagnosticsRows];
    float part[kDiagnosticsRows];
    double phi[kDiagnosticsRows];
#pragma unroll
    for (int r = 0; r < kDiagnosticsRows; ++r) {
      i[r] = r0 + r * kDiagnosticsBlock + t;
      p[r] = i[r] < a.n ? a.posMass[i[r]] : make_float4(0, 0, 0, 0);
      phi[r] = 0;
    }
    const int firstTile = split * layout.tilesPerSplit;
    const int endTile = min(layout.jTiles, firstTile + layout.tilesPerSplit);
    for (int jt = firstTile; jt < endTile; ++jt) {
      const int j0 = jt * kDiagnosticsBlock;
      // Past n: massless bodies at the origin, which add an exact 0 (or, on the checked path, are left out).
      tile[t] = j0 + t < a.n ? a.posMass[j0 + t] : make_float4(0, 0, 0, 0);
      __syncthreads();
#pragma unroll
      for (int r = 0; r < kDiagnosticsRows; ++r) part[r] = 0.0f;
      // Uniform across the block: whether this tile holds one of the block's bodies i.
      if (tinySoftening || (j0 >= r0 && j0 < r0 + kDiagnosticsRowTile)) {
        sumTile<true>(tile, p, i, j0, a.eps2, part);
      } else {
        sumTile<false>(tile, p, i, j0, a.eps2, part);
      }
#pragma unroll
      for (int r = 0; r < kDiagnosticsRows; ++r) phi[r] += part[r]; // the tile's float sum, added in double
      __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < kDiagnosticsRows; ++r) {
      if (i[r] >= a.n) continue;
      diagnostics_math::addPotential(mine, p[r].w, phi[r], a.G);
      if (split == 0) { // each body's kinematic terms once
        const float4 v = a.vel[i[r]], acc = a.accel[i[r]];
        const DVec3 vSync =
            diagnostics_math::synchronisedVelocity({v.x, v.y, v.z}, {acc.x, acc.y, acc.z}, double(a.halfDt));
        diagnostics_math::addKinematics(mine, p[r].w, {p[r].x, p[r].y, p[r].z}, vSync);
      }
    }
  }

  sums[t] = mine;
  __syncthreads();
  reduceBlock(sums);
  if (t == 0) {
    a.state->partials[blockIdx.x] = sums[0];
    __threadfence(); // the partial is visible device-wide before this block counts itself done
    const unsigned int done = atomicAdd(&a.state->blocksDone, 1u);
    lastBlock = done == gridDim.x - 1;
  }
  __syncthreads();
  if (!lastBlock) return;

  publishSample(a, sums); // the last block
}

} // namespace

KernelNodeSpec diagnosticsSpec(const DiagnosticsArgs& a) {
  const DiagnosticsLayout layout = diagnosticsLayout(a.n);
  return KernelNodeSpec::make(reinterpret_cast<const void*>(diagnosticsKernel),
                              dim3(static_cast<unsigned>(layout.blocks)), dim3(kDiagnosticsBlock), a);
}

} // namespace graphsim::cuda
