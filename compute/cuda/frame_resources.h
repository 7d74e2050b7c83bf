// What every scene's CUDA backend keeps for its frames (the kit, issue 27): the stream they run on, the timing ring
// around each launch, the imported interop (the F render buffers, the two timeline semaphores and the frame protocol
// their values follow), the last launched frame, and the bounded waits with their stall message. A backend's Impl
// declares it first, so it is destroyed last, after the graphs and arrays that use it; inside, the render buffers go
// before the semaphores, the events before the stream (docs/FRAME.md, Shutdown).
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "compute/cuda/cuda_handles.h"
#include "compute/cuda/external_interop.h"
#include "compute/cuda/frame_shell.h"
#include "compute/cuda/frame_timings.h"
#include "compute/cuda/poll.h"
#include "compute/errors.h"
#include "compute/protocol.h"

namespace graphsim::cuda {

struct FrameResources {
  Stream stream;
  FrameTimings timings;             // frame k's GPU time and end event
  ImportedInterop imported;         // none: compute only (host copy)
  FrameProtocol protocol{1};        // interop: F = the render buffers; else 1
  std::uint64_t renderCapacity = 0; // the Float4s the smallest render buffer holds
  std::chrono::milliseconds waitTimeout{5000};
  std::string frameNoun = "frame"; // in messages: "fluid frame 12"
  std::optional<std::uint64_t> lastLaunched;
  mutable double lastSimMs = -1;

  // Makes `device` current, then creates the stream (named for a timeline tool) and the timing ring and, with interop
  // (fds taken from it), imports its buffers and semaphores: InteropImportError when CUDA refuses them.
  void open(int device, const InteropDesc* interop, InteropFds fds, std::chrono::milliseconds timeout, std::string noun,
            const char* streamName);

  bool interop() const { return !imported.renderBuffers.empty(); }
  FrameSemaphores semaphores() const { return {imported.renderDone.get(), imported.simDone.get(), protocol}; }
  template <typename T>
  T* renderBuffer(std::uint64_t k) const { // the render buffer frame k writes (interop only)
    return imported.renderBuffers[protocol.slot(k)].as<T>();
  }

  // Frame k's launches between its timing events; k becomes the last launched frame.
  template <typename Launch>
  void timed(std::uint64_t k, const Launch& launch) {
    timings.begin(k, stream.get());
    launch();
    timings.end(k, stream.get());
    lastLaunched = k;
  }

  // "CUDA side stalled: <noun> k did not complete within T ms", k the oldest frame still running (else the last
  // launched), with interop the renderDone value it may wait for.
  TimeoutError stalled() const;
  // Bounded waits for the stream, or for frame k's end event (a frame the ring no longer holds: the stream). Work
  // that failed throws CudaError naming failed() (called only then); past the timeout, stalled().
  template <typename Failed>
  void synchronize(const Failed& failed) const {
    if (!pollCudaUntilDone([&] { return cudaStreamQuery(stream.get()); }, "cudaStreamQuery", failed,
                           std::chrono::steady_clock::now() + waitTimeout))
      throw stalled();
  }
  template <typename Failed>
  void waitForFrame(std::uint64_t k, const Failed& failed) const {
    cudaEvent_t end = timings.endOf(k);
    if (end == nullptr) return synchronize(failed);
    if (!pollCudaUntilDone([&] { return cudaEventQuery(end); }, "cudaEventQuery", failed,
                           std::chrono::steady_clock::now() + waitTimeout))
      throw stalled();
  }
  // The GPU time of the newest completed frame; the last figure while none newer completed (-1: none yet). No wait.
  double lastSimGpuMs() const;
};

} // namespace graphsim::cuda
