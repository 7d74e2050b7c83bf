// What NBodyFrameGraph's product path (build, update, toggle, launch, profile) does not need: the benchmark's
// comparison launches and the kernel-fail test hook. Compiled into graphsim_cuda_instruments, which bench, the tests
// and the fault plan link; NBodyCudaInstruments (compute/nbody/nbody_cuda_instruments.h) hands these functions to
// NBodyCudaBackend as plain function pointers, so graphsim_compute never refers to them and its per-frame path is
// NBodyFrameGraph::launch alone.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <string>

#include "compute/cuda/cuda_handles.h"
#include "compute/nbody/cuda/nbody_frame_graph.h"
#include "compute/nbody/nbody.h"

namespace graphsim::cuda {

// NBodyFrameGraph's friend: these work on the graph's exec and node list as its own members would. Each comparison runs
// the product graph's kernels on the same state in the same order (docs/PERFORMANCE.md says what each costs) and
// records its host time as the product path does: set-up (lastUpdateHostUs) and launch (lastLaunchHostUs).
struct FrameGraphInstruments {
  // Stream: cudaWaitExternalSemaphoresAsync, the enabled stages' kernels with cudaLaunchKernel,
  // cudaSignalExternalSemaphoresAsync; the exec is left as is (later graph launches catch up on what changed).
  static void launchOnStream(NBodyFrameGraph& graph, const FrameLaunch& launch);
  // A fresh graph with this frame's values, applied with cudaGraphExecUpdate (throws CudaError with the update
  // result if the driver refuses it), then cudaGraphLaunch.
  static void launchWithWholeUpdate(NBodyFrameGraph& graph, const FrameLaunch& launch);
  // A fresh graph with this frame's values, instantiated, enable states set, launched. The replaced exec is retired.
  static void launchReinstantiated(NBodyFrameGraph& graph, const FrameLaunch& launch);

  // Test hook (graphsim run --inject kernel-fail, docs/RELIABILITY.md): gives the exec's first node of `stage` an
  // invalid launch configuration; returns the node's name. The node keeps it until its parameters next change.
  static std::string injectBadLaunchConfig(NBodyFrameGraph& graph, NBodyStage stage);

private:
  using Clock = std::chrono::steady_clock;
  // A fresh graph holding frame k's semaphore values and write_render target.
  static NBodyFrameGraph::Built buildForFrame(NBodyFrameGraph& graph, const FrameLaunch& launch);
  // cudaGraphLaunch of the exec, then the host times: set-up from setUpStart, launch from here.
  static void launchExec(NBodyFrameGraph& graph, const FrameLaunch& launch, Clock::time_point setUpStart);
  static void recordHostTimes(NBodyFrameGraph& graph, Clock::time_point setUpStart, Clock::time_point launchStart);
  static void retire(NBodyFrameGraph& graph, GraphExec exec, Graph built);
};

} // namespace graphsim::cuda
