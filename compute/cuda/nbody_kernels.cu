// The O(N) nbody stages: one thread per body, each applying the per-body formula of compute/nbody_math.h, the
// header the CPU reference uses too. This file is compiled with -fmad=false (compute/cuda/CMakeLists.txt): the CPU
// reference never fuses a*b+c, and with IEEE division and sqrt (nvcc's defaults, no --use_fast_math) these kernels
// then produce the CPU's results bit for bit. The stages are memory-bound, so the unfused arithmetic costs nothing
// measurable. Only forces (forces_kernel.cu) trades the last bits for speed.
#include "compute/cuda/nbody_kernels.h"

#include "compute/nbody_math.h"

namespace graphsim::cuda {
namespace {

using nbody_math::Vec3;

constexpr unsigned kBlock = 256;

__device__ inline Vec3 xyz(float4 f) { return {f.x, f.y, f.z}; }
__device__ inline float4 withXyz(float4 f, Vec3 v) { return make_float4(v.x, v.y, v.z, f.w); }

__device__ inline int bodyIndex() { return static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); }

__global__ void __launch_bounds__(kBlock) attractorKernel(AttractorArgs a) {
  const int i = bodyIndex();
  if (i >= a.n) return;
  const float4 v = a.vel[i];
  const Vec3 kicked =
      nbody_math::attractorKick(xyz(a.posMass[i]), xyz(v), {a.px, a.py, a.pz}, a.strength, a.dt, a.softening);
  a.vel[i] = withXyz(v, kicked);
}

__global__ void __launch_bounds__(kBlock) integrateKernel(IntegrateArgs a) {
  const int i = bodyIndex();
  if (i >= a.n) return;
  const float4 p = a.posMass[i], v = a.vel[i];
  Vec3 x = xyz(p), u = xyz(v);
  nbody_math::integrate(x, u, xyz(a.accel[i]), a.dt);
  a.posMass[i] = withXyz(p, x);
  a.vel[i] = withXyz(v, u);
}

__global__ void __launch_bounds__(kBlock) dampingKernel(DampingArgs a) {
  const int i = bodyIndex();
  if (i >= a.n) return;
  const float4 v = a.vel[i];
  a.vel[i] = withXyz(v, nbody_math::damp(xyz(v), a.factor));
}

__global__ void __launch_bounds__(kBlock) boundaryKernel(BoundaryArgs a) {
  const int i = bodyIndex();
  if (i >= a.n) return;
  const float4 p = a.posMass[i], v = a.vel[i];
  Vec3 x = xyz(p), u = xyz(v);
  nbody_math::reflectAtBoundary(x, u, a.radius);
  a.posMass[i] = withXyz(p, x);
  a.vel[i] = withXyz(v, u);
}

__global__ void __launch_bounds__(kBlock) colourKernel(ColourArgs a) {
  const int i = bodyIndex();
  if (i >= a.n) return;
  a.colour[i] = nbody_math::speedColour(xyz(a.vel[i]), a.scale);
}

__global__ void __launch_bounds__(kBlock) writeRenderKernel(WriteRenderArgs a) {
  const int i = bodyIndex();
  if (i >= a.n) return;
  const float4 p = a.posMass[i];
  a.out[i] = make_float4(p.x, p.y, p.z, a.colour[i]);
}

dim3 bodyGrid(int n) {
  const unsigned blocks = (static_cast<unsigned>(n > 0 ? n : 0) + kBlock - 1) / kBlock;
  return dim3(blocks > 0 ? blocks : 1u);
}

template <typename Args>
KernelNodeSpec bodySpec(void (*kernel)(Args), const Args& a) {
  return KernelNodeSpec::make(reinterpret_cast<const void*>(kernel), bodyGrid(a.n), dim3(kBlock), a);
}

} // namespace

KernelNodeSpec attractorSpec(const AttractorArgs& a) { return bodySpec(attractorKernel, a); }
KernelNodeSpec integrateSpec(const IntegrateArgs& a) { return bodySpec(integrateKernel, a); }
KernelNodeSpec dampingSpec(const DampingArgs& a) { return bodySpec(dampingKernel, a); }
KernelNodeSpec boundarySpec(const BoundaryArgs& a) { return bodySpec(boundaryKernel, a); }
KernelNodeSpec colourSpec(const ColourArgs& a) { return bodySpec(colourKernel, a); }
KernelNodeSpec writeRenderSpec(const WriteRenderArgs& a) { return bodySpec(writeRenderKernel, a); }

} // namespace graphsim::cuda
