// The half-kick kernel of the leapfrog start (leapfrog_start.h).
#include "compute/nbody/cuda/leapfrog_start.h"

namespace graphsim::cuda {
namespace {

constexpr unsigned kBlock = 256;

// The host reference rounds (v - a dt/2) from double once; this rounds in float, a difference far below what the
// forces kernel's own rounding already leaves in a(0).
__global__ void __launch_bounds__(kBlock) halfKickKernel(HalfKickArgs a) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= a.n) return;
  const float4 v = a.vel[i], acc = a.accel[i];
  a.vel[i] = make_float4(v.x - acc.x * a.halfDt, v.y - acc.y * a.halfDt, v.z - acc.z * a.halfDt, v.w);
}

} // namespace

KernelNodeSpec halfKickSpec(const HalfKickArgs& a) {
  const unsigned n = static_cast<unsigned>(a.n > 0 ? a.n : 0);
  const unsigned blocks = (n + kBlock - 1) / kBlock;
  return KernelNodeSpec::make(reinterpret_cast<const void*>(halfKickKernel), dim3(blocks > 0 ? blocks : 1u),
                              dim3(kBlock), a);
}

} // namespace graphsim::cuda
