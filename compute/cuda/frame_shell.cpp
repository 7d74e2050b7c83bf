#include "compute/cuda/frame_shell.h"

#include <string>

#include "compute/cuda/cuda_check.h"

namespace graphsim::cuda {
namespace {

// Wait or signal parameters of a timeline semaphore at `value`, everything else zero.
template <typename Params>
Params fenceAt(std::uint64_t value) {
  Params params{};
  params.params.fence.value = value;
  return params;
}

std::string frameContext(std::uint64_t k, const char* what) { return "frame " + std::to_string(k) + ": " + what; }

} // namespace

cudaGraphNode_t addFrameWaitNode(cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t count,
                                 const FrameSemaphores& s, std::uint64_t value) {
  cudaExternalSemaphore_t sem = s.renderDone;
  const auto params = fenceAt<cudaExternalSemaphoreWaitParams>(value);
  const cudaExternalSemaphoreWaitNodeParams node{&sem, &params, 1}; // copied by the call
  cudaGraphNode_t added = nullptr;
  CUDA_CHECK_CTX(cudaGraphAddExternalSemaphoresWaitNode(&added, g, deps, count, &node), kWaitNodeName);
  return added;
}

cudaGraphNode_t addFrameSignalNode(cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t count,
                                   const FrameSemaphores& s, std::uint64_t value) {
  cudaExternalSemaphore_t sem = s.simDone;
  const auto params = fenceAt<cudaExternalSemaphoreSignalParams>(value);
  const cudaExternalSemaphoreSignalNodeParams node{&sem, &params, 1};
  cudaGraphNode_t added = nullptr;
  CUDA_CHECK_CTX(cudaGraphAddExternalSemaphoresSignalNode(&added, g, deps, count, &node), kSignalNodeName);
  return added;
}

void setFrameSemaphoreValues(cudaGraphExec_t exec, cudaGraphNode_t wait, cudaGraphNode_t signal,
                             const FrameSemaphores& s, std::uint64_t k) {
  cudaExternalSemaphore_t renderDone = s.renderDone, simDone = s.simDone;
  const auto waitParams = fenceAt<cudaExternalSemaphoreWaitParams>(s.protocol.renderDoneWaited(k));
  const auto signalParams = fenceAt<cudaExternalSemaphoreSignalParams>(s.protocol.simDoneSignalled(k));
  const cudaExternalSemaphoreWaitNodeParams w{&renderDone, &waitParams, 1};
  const cudaExternalSemaphoreSignalNodeParams sg{&simDone, &signalParams, 1};
  CUDA_CHECK_CTX(cudaGraphExecExternalSemaphoresWaitNodeSetParams(exec, wait, &w), kWaitNodeName);
  CUDA_CHECK_CTX(cudaGraphExecExternalSemaphoresSignalNodeSetParams(exec, signal, &sg), kSignalNodeName);
}

void waitRenderDoneOnStream(cudaStream_t stream, const FrameSemaphores& s, std::uint64_t k) {
  cudaExternalSemaphore_t sem = s.renderDone;
  const auto params = fenceAt<cudaExternalSemaphoreWaitParams>(s.protocol.renderDoneWaited(k));
  CUDA_CHECK_CTX(cudaWaitExternalSemaphoresAsync(&sem, &params, 1, stream),
                 frameContext(k, "waiting for renderDone on the stream"));
}

void signalSimDoneOnStream(cudaStream_t stream, const FrameSemaphores& s, std::uint64_t k) {
  cudaExternalSemaphore_t sem = s.simDone;
  const auto params = fenceAt<cudaExternalSemaphoreSignalParams>(s.protocol.simDoneSignalled(k));
  CUDA_CHECK_CTX(cudaSignalExternalSemaphoresAsync(&sem, &params, 1, stream),
                 frameContext(k, "signalling simDone on the stream"));
}

} // namespace graphsim::cuda
