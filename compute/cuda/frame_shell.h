// The frame's shell, the same for every scene (docs/FRAME.md): a frame graph starts with
// [wait_render_done: renderDone >= renderDoneWaited(k)] and ends with [signal_sim_done: simDone = simDoneSignalled(k)],
// both external-semaphore nodes whose values are set on the exec before every launch; stream launches (bench
// comparisons, host-decided loops) do the same two as stream operations. What lies between is the scene's body.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "compute/protocol.h"

namespace graphsim::cuda {

// The imported timeline semaphores (raw handles; the backend owns them) and the frame protocol their values follow.
struct FrameSemaphores {
  cudaExternalSemaphore_t renderDone = nullptr; // Vulkan signals, the graph waits
  cudaExternalSemaphore_t simDone = nullptr;    // the graph signals, Vulkan waits
  FrameProtocol protocol{1};
  bool present() const { return renderDone != nullptr; } // compute-only graphs have neither node
};

inline constexpr const char* kWaitNodeName = "wait_render_done";
inline constexpr const char* kSignalNodeName = "signal_sim_done";
inline constexpr const char* kSemaphoreNodeReason =
    "semaphore nodes order CUDA against Vulkan; disabling one would break the frame protocol";

// The two nodes, added after `deps` (count of them) with a first value (launches set each frame's; the comparison
// paths that rebuild a graph every frame build it with that frame's). Return the node.
cudaGraphNode_t addFrameWaitNode(cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t count,
                                 const FrameSemaphores& s, std::uint64_t value = 0);
cudaGraphNode_t addFrameSignalNode(cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t count,
                                   const FrameSemaphores& s, std::uint64_t value = 0);
// Frame k's values on the exec's two nodes (the frame protocol, not parameter changes: never counted as updates).
void setFrameSemaphoreValues(cudaGraphExec_t exec, cudaGraphNode_t wait, cudaGraphNode_t signal,
                             const FrameSemaphores& s, std::uint64_t k);
// The same two as stream operations, for frame k's launches on `stream`.
void waitRenderDoneOnStream(cudaStream_t stream, const FrameSemaphores& s, std::uint64_t k);
void signalSimDoneOnStream(cudaStream_t stream, const FrameSemaphores& s, std::uint64_t k);

} // namespace graphsim::cuda
