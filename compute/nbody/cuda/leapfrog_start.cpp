// startLeapfrogOnDevice (leapfrog_start.h): three launches on the stream, no graph (it runs once per reset).
#include "compute/nbody/cuda/leapfrog_start.h"

#include "compute/cuda/kernel_launch.h"

namespace graphsim::cuda {

void startLeapfrogOnDevice(const BodiesView& b, const LeapfrogStartParams& p, cudaStream_t stream) {
  // The same arguments as the graph's forces and colour nodes (NBodyFrameGraph::stageSpec).
  launchKernel(forcesSpec(forcesArgs(b, p.G, p.eps2)), stream, [] { return "forces (a(0) for the leapfrog start)"; });
  launchKernel(halfKickSpec({b.vel, b.accel, b.n, 0.5f * p.dt}), stream, [] { return "half-kick (leapfrog start)"; });
  launchKernel(colourSpec({b.vel, b.colour, b.n, p.colourScale}), stream, [] { return "colour (leapfrog start)"; });
}

} // namespace graphsim::cuda
