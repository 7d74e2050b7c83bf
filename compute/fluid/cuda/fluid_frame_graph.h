// The fluid frame's CUDA graph (issue 13; docs/FLUID.md draws it), the host side of its kernels: the scratch layout
// and what the kernels are given. Between the semaphore and memory nodes every node is a row of kFluidSteps
// (compute/fluid/fluid_steps.h), in the table's order: the build, the host-decided launches, the node list and the
// toggles iterate it. FixedSubsteps unrolls the body S times instead of the WHILE node; HostDecided launches the same
// specs on a stream.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compute/cuda/cuda_handles.h"
#include "compute/fluid/cuda/fluid_diagnostics_kernel.h"
#include "compute/fluid/cuda/fluid_kernels.h"
#include "compute/fluid/fluid_backend.h"
#include "compute/fluid/fluid_cuda_backend.h"

namespace graphsim::fluid::gpu {

// The frame's nodes are the rows of kFluidSteps (compute/fluid/fluid_steps.h); the kernel rows get their parameters
// from specFor (fluid_kernels.cu).
using Step = FluidStep;
// The rows' names are string literals, so their data is NUL-terminated.
inline const char* stepName(Step s) { return stepRow(s).name.data(); }

struct ScratchLayout {
  std::size_t particles = 0, bytes = 0, cells = 0, sortTempBytes = 0;
  int keyBits = 1;
  bool lists = false;           // DFSPH's neighbour lists (Scratch::lists)
  Scratch at(void* base) const; // pointers into an allocation of `bytes` at base
};
ScratchLayout scratchLayout(int particles, const sph_math::GridDims& grid, bool neighbourLists);

// What the kernels are given for a configuration, frameDt (setFrameDt's) and the launch variant (FixedSubsteps: dt
// = frameDt / S).
KernelParams kernelParams(const FluidConfig& c, float frameDt, const FluidCudaOptions& options);

} // namespace graphsim::fluid::gpu
