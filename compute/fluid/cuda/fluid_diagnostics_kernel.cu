// The fluid diagnostics kernel (fluid_diagnostics_kernel.h). Built with IEEE division and square root (not the fast
// ones of fluid_kernels.cu): every value is a double computed as the CPU reference computes it, so the same state
// gives the same bits on both (tests/gpu/fluid_diagnostics_gpu_test.cpp).
#include "compute/fluid/cuda/fluid_diagnostics_kernel.h"

#include <algorithm>
#include <cstring>

namespace graphsim::fluid::gpu {
namespace {

namespace fdm = fluid_diagnostics_math;

__device__ inline unsigned long long shuffleMax(unsigned long long v, int offset) {
  return fdm::maxBits(v, __shfl_xor_sync(0xffffffffu, v, offset));
}

__global__ void __launch_bounds__(32) fluidDiagnosticsKernel(FluidDiagnosticsArgs a) {
  fdm::Extremes e{};
  for (int i = static_cast<int>(blockIdx.x * 32u + threadIdx.x); i < a.n; i += static_cast<int>(gridDim.x * 32u)) {
    const float4 p = a.pos[i], v = a.vel[i];
    fdm::add(e, fdm::particleTerms(p.x, p.y, p.z, v.x, v.y, v.z, a.rhoP[i].x, a.rho0));
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    e.particles += __shfl_xor_sync(0xffffffffu, e.particles, offset);
    e.speed2Bits = shuffleMax(e.speed2Bits, offset);
    e.deviationBits = shuffleMax(e.deviationBits, offset);
    e.compressionBits = shuffleMax(e.compressionBits, offset);
  }
  if (threadIdx.x != 0) return;
  FluidDiagnosticsDeviceState& s = *a.state;
  if (e.particles > 0) {
    atomicAdd(&s.extremes.particles, e.particles);
    atomicMax(&s.extremes.speed2Bits, e.speed2Bits);
    atomicMax(&s.extremes.deviationBits, e.deviationBits);
    atomicMax(&s.extremes.compressionBits, e.compressionBits);
  }
  __threadfence(); // this warp's atomics are visible device-wide before it counts itself done
  if (atomicAdd(&s.blocksDone, 1u) != gridDim.x - 1) return;

  // The last warp: every other warp's atomics are done. Read and clear the accumulators, then the sample to the host.
  __threadfence();
  fdm::Extremes total{};
  total.particles = atomicExch(&s.extremes.particles, 0ull);
  total.speed2Bits = atomicExch(&s.extremes.speed2Bits, 0ull);
  total.deviationBits = atomicExch(&s.extremes.deviationBits, 0ull);
  total.compressionBits = atomicExch(&s.extremes.compressionBits, 0ull);
  s.blocksDone = 0; // ready for the next launch (stream-ordered after this one)
  const FluidDiagnosticSums sums = fdm::finish(total, a.mass);
  volatile FluidDiagnosticsHostReport* h = a.host;
  const unsigned long long seq = s.seq;
  h->seq = seq + 1; // odd: writing
  __threadfence_system();
  h->frame = a.ctrl->frame;
  h->sums.mass = sums.mass;
  h->sums.maxDensityDeviation = sums.maxDensityDeviation;
  h->sums.maxCompression = sums.maxCompression;
  h->sums.maxSpeed = sums.maxSpeed;
  h->sums.particles = sums.particles;
  __threadfence_system();
  h->seq = seq + 2; // even: complete
  s.seq = seq + 2;
}

} // namespace

KernelSpec fluidDiagnosticsSpec(const FluidDiagnosticsArgs& a) {
  const unsigned warps = std::max(1u, std::min<unsigned>((static_cast<unsigned>(a.n) + 31u) / 32u, kDiagnosticsWarps));
  return cuda::kernelSpecOf(fluidDiagnosticsKernel, a, warps * 32u, 32u);
}

} // namespace graphsim::fluid::gpu
