// startLeapfrogOnDevice (leapfrog_start.h): three launches on the stream (with forces: tree, the tree's own graph
// first).
#include "compute/nbody/cuda/leapfrog_start.h"

#include "compute/cuda/kernel_launch.h"

namespace graphsim::cuda {
namespace {

constexpr unsigned kBlock = 256;

struct HalfKickArgs { // v -= a * halfDt
  float4* vel;
  const float4* accel;
  int n;
  float halfDt;
};

// The host reference rounds (v - a dt/2) from double once; this rounds in float, a difference far below what the
// forces kernel's own rounding already leaves in a(0).
__global__ void __launch_bounds__(kBlock) halfKickKernel(HalfKickArgs a) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= a.n) return;
  const float4 v = a.vel[i], acc = a.accel[i];
  a.vel[i] = make_float4(v.x - acc.x * a.halfDt, v.y - acc.y * a.halfDt, v.z - acc.z * a.halfDt, v.w);
}

} // namespace

GraphExec startLeapfrogOnDevice(const BodiesView& b, const LeapfrogStartParams& p, cudaStream_t stream) {
  // The same arguments as the graph's forces and colour nodes (NBodyFrameGraph::stageSpec).
  GraphExec tree;
  if (b.tree.present()) {
    tree =
        launchTreeForces(b.tree, {b.posMass, b.accel, b.n, p.G, p.eps2, p.theta, p.leafSize, p.treeTolerance}, stream);
  } else {
    launchKernel(forcesSpec(forcesArgs(b, p.G, p.eps2)), stream, [] { return "forces (a(0) for the leapfrog start)"; });
  }
  const HalfKickArgs half{b.vel, b.accel, b.n, 0.5f * p.dt};
  launchKernel(kernelSpecOf(halfKickKernel, half, static_cast<unsigned>(b.n > 0 ? b.n : 0), kBlock), stream,
               [] { return "half-kick (leapfrog start)"; });
  launchKernel(colourSpec({b.vel, b.colour, b.n, p.colourScale}), stream, [] { return "colour (leapfrog start)"; });
  return tree;
}

} // namespace graphsim::cuda
