// The fluid frame's CUDA graph (issue 13): built once per structural change, then launched every frame with node
// updates only. docs/FLUID.md draws it:
//
//   [alloc scratch]? -> [wait renderDone] -> frame_begin -> WHILE { cfl -> cell_keys -> sort (child graph: CUB)
//     -> clear_cells (memset) -> cell_ranges -> reorder -> density -> forces -> integrate -> obstacle -> walls
//     -> condition } -> [diagnostics]? -> write_render -> colour -> report -> [free scratch]? -> [signal simDone]
//
// Between the semaphore and memory nodes, every node is a row of kFluidSteps (compute/fluid/fluid_steps.h), in the
// table's order: the build, the host-decided launches, the node list and the toggles iterate it.
//
// FixedSubsteps unrolls the body S times instead of the WHILE node; HostDecided launches the same specs on a stream.
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
// from specFor below.
using Step = FluidStep;
// The rows' names are string literals, so their data is NUL-terminated.
inline const char* stepName(Step s) { return stepRow(s).name.data(); }

// The substep's scratch, carved out of one allocation (preallocated, or a graph memory node's).
struct Scratch {
  unsigned *keys = nullptr, *keysAlt = nullptr, *vals = nullptr, *valsAlt = nullptr;
  unsigned *cellStart = nullptr, *cellEnd = nullptr;
  float4 *posS = nullptr, *velS = nullptr, *accel = nullptr;
  void* sortTemp = nullptr;
  std::size_t sortTempBytes = 0;
  bool sortedInAlt = false; // where CUB's DoubleBuffer leaves the result (fixed for a key-bit count: set by the sort)
  const unsigned* sortedKeys() const { return sortedInAlt ? keysAlt : keys; }
  const unsigned* sortedVals() const { return sortedInAlt ? valsAlt : vals; }
};
struct ScratchLayout {
  std::size_t particles = 0;
  std::size_t bytes = 0;
  std::size_t cells = 0;
  std::size_t sortTempBytes = 0;
  int keyBits = 1;
  Scratch at(void* base) const; // pointers into an allocation of `bytes` at base
};
ScratchLayout scratchLayout(int particles, const sph_math::GridDims& grid);

// The device state the graph's kernels read and write (owned by the backend).
struct DeviceState {
  float4* pos = nullptr;
  float4* vel = nullptr;
  float2* rhoP = nullptr;
  FrameControl* ctrl = nullptr;
  BlowUpState* blowUp = nullptr;
  HostReport* report = nullptr; // device pointer of the mapped pinned report
  FluidDiagnosticsDeviceState* diagnostics = nullptr;
  FluidDiagnosticsHostReport* diagnosticsReport = nullptr; // device pointer of the mapped pinned sample
  OutputArgs outputs{};
  int n = 0;
};

// What a frame's kernels are given: the parameters that node updates change.
struct FrameSettings {
  FluidParams params;
  FluidSwitches enabled{};
  ColourBy colourBy = ColourBy::Speed;
  float colourScale = 2.0f;
  float frameDt = 0;
  float fixedDt = 0; // FixedSubsteps: frameDt / S
  int maxSubsteps = 1;
};

// The spec of one kernel node (a row with StepNode::Kernel) from the state, the scratch and the settings (the same for
// every substep).
KernelSpec specFor(Step step, const DeviceState& d, const Scratch& s, const FrameSettings& f,
                   const sph_math::GridDims& g, unsigned long long handle, std::uint64_t frame);

} // namespace graphsim::fluid::gpu
