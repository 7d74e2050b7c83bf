// The O(N) nbody stages: one thread per body, each applying the per-body formula of compute/nbody/nbody_math.h, the
// header the CPU reference uses too. This file is compiled with -fmad=false (compute/cuda/CMakeLists.txt): the CPU
// reference never fuses a*b+c, and with IEEE division and sqrt (nvcc's defaults, no --use_fast_math) these kernels
// then produce the CPU's results bit for bit. The stages are memory-bound, so the unfused arithmetic costs nothing
// measurable. Only forces (forces_kernel.cu) trades the last bits for speed.
#include "compute/nbody/cuda/nbody_kernels.h"

#include "compute/cuda/programmatic_launch.cuh"
#include "compute/nbody/nbody_math.h"
#include "shaders/particle_layout.h"

namespace graphsim::cuda {
namespace {

using nbody_math::Vec3;

constexpr unsigned kBlock = 256;

__device__ inline Vec3 xyz(float4 f) { return {f.x, f.y, f.z}; }
__device__ inline float4 withXyz(float4 f, Vec3 v) { return make_float4(v.x, v.y, v.z, f.w); }

// Every kernel's first line: the stage's index, after the programmatic-launch prologue (programmatic_launch.cuh).
__device__ inline int bodyIndex() {
  programmaticLaunchPrologue();
  return static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
}

// Blow-up detection (nbody_kernels.h): a kernel tests what it wrote and flags only a non-finite value, so the healthy
// path costs the isfinite tests and nothing else.
__device__ inline bool isFinite3(Vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
__device__ inline void flagNonFinite(unsigned int* first, unsigned int node, unsigned int quantity) {
  if (first != nullptr) atomicMin(first, blowUpCode(node, quantity));
}
__device__ inline void flagNonFinite(const BlowUpFlag& flag, unsigned int quantity) {
  flagNonFinite(flag.first, flag.node, quantity);
}

// Writes the velocity a stage that only kicks computed (w of v kept) and flags it if it is not finite.
__device__ inline void storeVelocity(float4* vel, int i, float4 v, Vec3 u, const BlowUpFlag& flag) {
  vel[i] = withXyz(v, u);
  if (!isFinite3(u)) flagNonFinite(flag, kBlowUpVelocity);
}

// A body's position and velocity as a stage that moves it reads them (p, v; their w, the mass and the velocity's spare
// lane, is written back unchanged) and the values it writes back (x, u).
struct Motion {
  float4 p, v;
  Vec3 x, u;
};
__device__ inline Motion loadMotion(const float4* posMass, const float4* vel, int i) {
  const float4 p = posMass[i], v = vel[i];
  return {p, v, xyz(p), xyz(v)};
}
// Writes x and u back and flags the first non-finite one. The velocity is named if both are: it is written first (the
// kick) and carried into the position (the drift). `accel`: the acceleration integrate kicked with; a non-finite
// acceleration always makes the velocity non-finite, so it is looked at only then, and forces named.
__device__ inline void storeMotion(const Motion& m, float4* posMass, float4* vel, int i, const BlowUpFlag& flag,
                                   const Vec3* accel = nullptr) {
  posMass[i] = withXyz(m.p, m.x);
  vel[i] = withXyz(m.v, m.u);
  if (!isFinite3(m.u)) {
    if (accel != nullptr && !isFinite3(*accel)) {
      flagNonFinite(flag.first, flag.accelNode, kBlowUpAcceleration);
    } else {
      flagNonFinite(flag, kBlowUpVelocity);
    }
  } else if (!isFinite3(m.x)) {
    flagNonFinite(flag, kBlowUpPosition);
  }
}

__global__ void __launch_bounds__(kBlock) attractorKernel(AttractorArgs a) {
  const int i = bodyIndex();
  if (i >= a.n) return;
  const float4 v = a.vel[i];
  const Vec3 kicked =
      nbody_math::attractorKick(xyz(a.posMass[i]), xyz(v), {a.px, a.py, a.pz}, a.strength, a.dt, a.softening);
  storeVelocity(a.vel, i, v, kicked, a.blowUp);
}

__global__ void __launch_bounds__(kBlock) integrateKernel(IntegrateArgs a) {
  const int i = bodyIndex();
  if (i >= a.n) return;
  Motion m = loadMotion(a.posMass, a.vel, i);
  const Vec3 acc = xyz(a.accel[i]);
  nbody_math::integrate(m.x, m.u, acc, a.dt);
  storeMotion(m, a.posMass, a.vel, i, a.blowUp, &acc);
}

__global__ void __launch_bounds__(kBlock) dampingKernel(DampingArgs a) {
  const int i = bodyIndex();
  if (i >= a.n) return;
  const float4 v = a.vel[i];
  storeVelocity(a.vel, i, v, nbody_math::damp(xyz(v), a.factor), a.blowUp);
}

__global__ void __launch_bounds__(kBlock) boundaryKernel(BoundaryArgs a) {
  const int i = bodyIndex();
  if (i >= a.n) return;
  Motion m = loadMotion(a.posMass, a.vel, i);
  nbody_math::reflectAtBoundary(m.x, m.u, a.radius);
  storeMotion(m, a.posMass, a.vel, i, a.blowUp);
}

__global__ void __launch_bounds__(kBlock) colourKernel(ColourArgs a) {
  const int i = bodyIndex();
  if (i >= a.n) return;
  a.colour[i] = nbody_math::speedColour(xyz(a.vel[i]), a.scale);
}

// The body the renderer's vertex input reads (shaders/particle_layout.h): 16 bytes, xyz position, w attribute. The
// C++ side asserts shaderio::Body against the same stride (render/particle_pipeline.cpp).
static_assert(sizeof(float4) == GRAPHSIM_BODY_STRIDE, "write_render writes one float4 per body");
static_assert(offsetof(float4, x) == 0 && offsetof(float4, y) == 4 && offsetof(float4, z) == 8 &&
                  offsetof(float4, w) == 12,
              "xyz = world position, w = colour attribute");

__global__ void __launch_bounds__(kBlock) writeRenderKernel(WriteRenderArgs a) {
  const int i = bodyIndex();
  if (i >= a.n) return;
  const float4 p = a.posMass[i];
  a.out[i] = make_float4(p.x, p.y, p.z, a.colour[i]);
}

// One thread, after every stage of the frame (ReportBlowUpArgs). The word is read and the launch counted here, not
// by the host, so the frame graph needs no per-frame parameter for it.
__global__ void __launch_bounds__(1) reportBlowUpKernel(ReportBlowUpArgs a) {
  programmaticLaunchPrologue();
  BlowUpDeviceState& s = *a.state;
  if (s.reported == 0 && s.first != kNoBlowUp) {
    const unsigned long long word = static_cast<unsigned long long>(s.launches) << 32 | s.first;
    *reinterpret_cast<volatile unsigned long long*>(a.hostWord) = word; // one 8-byte store over PCIe
    __threadfence_system();
    s.reported = 1;
  }
  s.launches = s.launches + 1;
}

template <typename Args> // one thread per body
KernelNodeSpec bodySpec(void (*kernel)(Args), const Args& a) {
  return kernelSpecOf(kernel, a, static_cast<unsigned>(a.n > 0 ? a.n : 0), kBlock);
}

} // namespace

KernelNodeSpec attractorSpec(const AttractorArgs& a) { return bodySpec(attractorKernel, a); }
KernelNodeSpec integrateSpec(const IntegrateArgs& a) { return bodySpec(integrateKernel, a); }
KernelNodeSpec dampingSpec(const DampingArgs& a) { return bodySpec(dampingKernel, a); }
KernelNodeSpec boundarySpec(const BoundaryArgs& a) { return bodySpec(boundaryKernel, a); }
KernelNodeSpec colourSpec(const ColourArgs& a) { return bodySpec(colourKernel, a); }
KernelNodeSpec writeRenderSpec(const WriteRenderArgs& a) { return bodySpec(writeRenderKernel, a); }
KernelNodeSpec reportBlowUpSpec(const ReportBlowUpArgs& a) { return kernelSpecOf(reportBlowUpKernel, a, 1, 1); }

} // namespace graphsim::cuda
