// Launching a kernel described by a KernelNodeSpec directly on a stream, outside any graph: the n-body benchmark's
// stream comparison, the fluid's host-decided substeps and the one-off leapfrog start use the graph nodes' own specs.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "compute/cuda/cuda_check.h"
#include "compute/cuda/kernel_node_spec.h"

namespace graphsim::cuda {

// describe() returns what names the launch in the error message; it is only called on failure, so a launch in a
// frame builds no strings.
template <typename Describe>
void launchKernel(const KernelNodeSpec& spec, cudaStream_t stream, const Describe& describe) {
  void* argSlot[1];
  const cudaKernelNodeParams p = spec.nodeParams(argSlot);
  CUDA_CHECK_CTX(cudaLaunchKernel(p.func, p.gridDim, p.blockDim, p.kernelParams, p.sharedMemBytes, stream),
                 std::string(describe()));
}

} // namespace graphsim::cuda
