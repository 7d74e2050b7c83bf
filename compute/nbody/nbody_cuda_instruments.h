// What `graphsim bench`, the GPU tests and the fault plan need of a NBodyCudaBackend beyond the product path (build,
// update, toggle, launch, profile): the comparison launch modes, a wait for one frame, one frame's GPU time, the
// host-time split of a launch, and the kernel-fail hook. Plain C++, like compute/nbody/nbody_cuda_backend.h; its
// functions live in the library graphsim_cuda_instruments, which the product's own code does not call, and so do the
// comparison launches and the hook themselves (compute/nbody/cuda/nbody_frame_graph_instruments.h), which setLaunchMode
// and injectKernelFailure hand to the backend.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "compute/nbody/nbody_cuda_backend.h"

namespace graphsim {

// How a frame reaches the GPU. Graph is the product; the others exist so that `graphsim bench` can show what the
// graph with individual node updates buys (docs/PERFORMANCE.md). All four run the same kernels on the same state in
// the same order, so they give bit-identical results.
enum class LaunchMode {
  Graph,         // one instantiated graph, semaphore values and changed kernel parameters updated node by node
  Programmatic,  // the same, its consecutive kernels joined by programmatic-dependent-launch edges (issue 14)
  Stream,        // the same kernels launched one by one on the stream, cudaWait/SignalExternalSemaphoresAsync
  WholeUpdate,   // a freshly built graph every frame, applied with cudaGraphExecUpdate
  Reinstantiate, // a freshly built graph every frame, instantiated anew (the old exec is retired, not destroyed)
};
std::string_view launchModeName(LaunchMode mode);

// Host time of the last launch, split as `graphsim bench` reports it (microseconds, steady_clock).
struct LaunchHostTiming {
  double nodeUpdatesUs = 0; // Graph: semaphore values + changed kernel nodes; WholeUpdate: build + cudaGraphExecUpdate;
                            // Reinstantiate: build + instantiate + enable states; Stream: argument set-up
  double launchUs = 0;      // cudaGraphLaunch, or (Stream) the semaphore wait, kernel launches and signal
};

// The one door to NBodyCudaBackend's instruments (its friend).
struct NBodyCudaInstruments {
  // Applies to the next launch. Reinstantiate keeps the last 8 replaced execs alive, which covers the at most
  // kMaxFramesInFlight frames in flight that the renderDone throttle (or step()) allows.
  static void setLaunchMode(NBodyCudaBackend& cuda, LaunchMode mode);
  static LaunchMode launchMode(const NBodyCudaBackend& cuda);
  static LaunchHostTiming lastLaunchHostTiming(const NBodyCudaBackend& cuda);
  // Bounded wait until frame k (already launched) has completed on the GPU; throws like synchronize().
  static void waitForFrame(NBodyCudaBackend& cuda, std::uint64_t k);
  // GPU time of frame k's graph (CUDA events) if it has completed and is one of the last 8 launched; never blocks.
  static std::optional<double> frameGpuMs(const NBodyCudaBackend& cuda, std::uint64_t k);
  // Test hook (graphsim run --inject kernel-fail, docs/RELIABILITY.md): just before frame `frame` is launched, the
  // first node of `stage` gets an invalid launch configuration (more threads per block than any GPU has), so that
  // frame fails the way a broken kernel launch does. The error names the node.
  static void injectKernelFailure(NBodyCudaBackend& cuda, NBodyStage stage, std::uint64_t frame);
};

} // namespace graphsim
