// The diagnostics node of the fluid frame graph (issue 15, docs/DIAGNOSTICS.md), seen from the host: its argument
// struct, the device and host memory it writes and its kernel-node parameters. One kernel after the WHILE node: each
// warp takes the maxima and the count of its particles (compute/fluid/fluid_diagnostics.h), lane 0 of every warp
// combines them with integer atomics (a count, and maxima of order-preserving bits: exact in any order, so a state
// gives the same bits every time), and the last warp to finish writes the sample into mapped pinned host memory and
// puts the accumulators back to 0. No __syncthreads (one warp per block, as the cfl kernel). Plain C++ (CUDA runtime
// headers only), like fluid_kernels.h.
#pragma once

#include <cuda_runtime_api.h>

#include "compute/fluid/cuda/fluid_kernels.h"
#include "compute/fluid/fluid_diagnostics.h"

namespace graphsim::fluid::gpu {

inline constexpr int kDiagnosticsWarps = 2048; // blocks of one warp at most (a grid-stride loop covers the rest)

// Device memory of the node (one per FluidCudaBackend, zeroed when allocated). The last warp of every launch reads
// the accumulators with atomicExch(…, 0) and resets blocksDone, so every launch finds them at 0.
struct FluidDiagnosticsDeviceState {
  fluid_diagnostics_math::Extremes extremes; // the count and the maxima as ordered bits
  unsigned int blocksDone, pad;
  unsigned long long seq; // the host report's sequence number (kept here: the kernel never reads host memory)
};

// The sample in mapped pinned host memory. seq is odd while the kernel writes and even after (0: nothing written
// since the host cleared it): the host reads seq, the fields, seq again, and keeps the fields when both reads agree
// and are even and non-zero (as the frame report, HostReport).
struct FluidDiagnosticsHostReport {
  unsigned long long seq;
  unsigned long long frame; // FrameControl::frame of the frame that sampled
  FluidDiagnosticSums sums;
};

struct FluidDiagnosticsArgs {
  const float4 *pos, *vel;
  const float2* rhoP; // (rho, p / rho^2) of the last density stage
  const FrameControl* ctrl;
  FluidDiagnosticsDeviceState* state;
  FluidDiagnosticsHostReport* host; // device pointer of the mapped pinned report
  int n;
  float rho0;
  float mass; // particleMass(params)
  int pad;
};
static_assert(sizeof(FluidDiagnosticsArgs) == 64, "no implicit padding (kernel arguments are compared as bytes)");
static_assert(sizeof(FluidDiagnosticsArgs) <= KernelSpec::kMaxArgBytes);

KernelSpec fluidDiagnosticsSpec(const FluidDiagnosticsArgs& a);

} // namespace graphsim::fluid::gpu
