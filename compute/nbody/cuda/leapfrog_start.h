// The start of the leapfrog on the GPU: a(0) from the forces kernel, the half-step velocities
// v(-dt/2) = v(0) - a(0) dt/2 and the colour attribute of those velocities: what startLeapfrog
// (nbody_initial_conditions.h) and NBodyCpuBackend::reset compute on the host in double, here in float with the
// product's own forces kernel. O(N^2) work that takes milliseconds on the GPU, against about 90 s on 16 cores at 10^6
// bodies. Plain CUDA runtime header.
#pragma once

#include <cuda_runtime_api.h>

#include "compute/cuda/cuda_handles.h"
#include "compute/nbody/cuda/nbody_kernels.h"

namespace graphsim::cuda {

// The parameters the start needs, taken from NBodyParams by the caller.
struct LeapfrogStartParams {
  float G = 1;
  float eps2 = 0; // softening^2, as NBodyFrameGraph::stageSpecs computes it
  float dt = 0, colourScale = 1;
  float theta = 0.5f; // forces: tree (bodies.tree present)
  int leafSize = 16;
  float treeTolerance = 0.005f;
};

// bodies.vel holds v(0) on entry; afterwards (asynchronously, on `stream`) accel holds a(0), vel v(-dt/2) and
// colour the speed colour of v(-dt/2). a(0) comes from the stage the graph runs: direct summation, or with
// bodies.tree the tree (a direct sum would take 93 s at 16,777,216 bodies; two walks with a tolerance), whose graph the
// returned exec holds: keep it until the stream has passed it (empty for direct summation). Does not synchronise.
// Throws CudaError naming the launch that failed.
[[nodiscard]] GraphExec startLeapfrogOnDevice(const BodiesView& bodies, const LeapfrogStartParams& params,
                                              cudaStream_t stream);

} // namespace graphsim::cuda
