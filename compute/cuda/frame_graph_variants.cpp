// The benchmark's comparison paths for one frame (frame_graph.h): the same kernels as the product path's graph,
// reached in the ways the product path avoids. `graphsim bench` runs each and docs/PERFORMANCE.md says what each
// costs. Each records its host time as the product path does: set-up (lastUpdateHostUs) and launch
// (lastLaunchHostUs).
#include <chrono>
#include <string>
#include <utility>

#include "compute/cuda/frame_graph.h"
#include "compute/cuda/frame_graph_detail.h"
#include "compute/cuda/kernel_launch.h"

namespace graphsim::cuda {
namespace {

using Clock = std::chrono::steady_clock;

double microseconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}

} // namespace

void FrameGraph::launchOnStream(std::uint64_t frame, float4* output, cudaStream_t stream) {
  const auto t0 = Clock::now();
  if (output != output_) {
    output_ = output;
    outputDirty_ = true; // the exec still points at the old buffer; a later graph launch updates it
  }
  // paramsDirty_ stays as it is for the same reason: these launches take their arguments from stageSpec().
  cudaExternalSemaphoreWaitParams waitParams{};
  cudaExternalSemaphoreSignalParams signalParams{};
  waitParams.params.fence.value = protocol().renderDoneWaited(frame);
  signalParams.params.fence.value = protocol().simDoneSignalled(frame);
  cudaExternalSemaphore_t renderDone = semaphores_.renderDone;
  cudaExternalSemaphore_t simDone = semaphores_.simDone;
  const auto t1 = Clock::now();

  if (hasSemaphores()) {
    CUDA_CHECK_CTX(cudaWaitExternalSemaphoresAsync(&renderDone, &waitParams, 1, stream),
                   "frame " + std::to_string(frame) + ": waiting for renderDone on the stream");
  }
  const auto run = [&](Stage stage, int substep) {
    if (!runsStage(stage)) return;
    launchKernel(stageSpec(stage, substep), stream, [&] { return stageInstanceName(stage, substep); });
  };
  forEachStageInstance(substeps_, run);
  launchKernel(reportBlowUpSpec(blowUp_), stream, [] { return kBlowUpNodeName; });
  if (hasSemaphores()) {
    CUDA_CHECK_CTX(cudaSignalExternalSemaphoresAsync(&simDone, &signalParams, 1, stream),
                   "frame " + std::to_string(frame) + ": signalling simDone on the stream");
  }
  lastUpdateHostUs_ = microseconds(t0, t1);
  lastLaunchHostUs_ = microseconds(t1, Clock::now());
}

void FrameGraph::launchWithWholeUpdate(std::uint64_t frame, float4* output, cudaStream_t stream) {
  const auto t0 = Clock::now();
  output_ = output;
  Built fresh = build(protocol().renderDoneWaited(frame), protocol().simDoneSignalled(frame));
  cudaGraphExecUpdateResultInfo info{};
  const cudaError_t e = cudaGraphExecUpdate(exec_.get(), fresh.graph.get(), &info);
  if (e != cudaSuccess) {
    (void)cudaGetLastError(); // reported through the exception below
    throwCudaError(e, "cudaGraphExecUpdate", __FILE__, __LINE__,
                   "frame " + std::to_string(frame) + ": whole-graph update refused (" +
                       detail::updateResultName(info.result) + ")");
  }
  // The exec keeps identifying its nodes by the handles of the graph it was instantiated from, and keeps their
  // enable states; it now holds the fresh graph's parameters.
  for (std::size_t i = 0; i < nodes_.size(); ++i) nodes_[i].applied = fresh.nodes[i].applied;
  latest_ = std::move(fresh.graph);
  paramsDirty_ = outputDirty_ = false;
  ++counters_.wholeGraphUpdates;
  const auto t1 = Clock::now();
  CUDA_CHECK_CTX(cudaGraphLaunch(exec_.get(), stream), "launching frame " + std::to_string(frame));
  lastUpdateHostUs_ = microseconds(t0, t1);
  lastLaunchHostUs_ = microseconds(t1, Clock::now());
}

void FrameGraph::launchReinstantiated(std::uint64_t frame, float4* output, cudaStream_t stream) {
  const auto t0 = Clock::now();
  output_ = output;
  Built fresh = build(protocol().renderDoneWaited(frame), protocol().simDoneSignalled(frame));
  GraphExec exec = detail::instantiate(fresh.graph.get());
  for (const Node& n : fresh.nodes) {
    if (n.kind == Kind::Kernel && !runsStage(n.stage)) {
      CUDA_CHECK_CTX(cudaGraphNodeSetEnabled(exec.get(), n.node, 0u), n.name);
    }
  }
  retire(std::exchange(exec_, std::move(exec)), std::exchange(instantiatedFrom_, std::move(fresh.graph)));
  latest_.reset();
  nodes_ = std::move(fresh.nodes);
  nodeList_.structure = true; // new node handles and a new exec: nodes() reads the enable states back from it
  paramsDirty_ = outputDirty_ = false;
  ++counters_.reinstantiations;
  const auto t1 = Clock::now();
  CUDA_CHECK_CTX(cudaGraphLaunch(exec_.get(), stream), "launching frame " + std::to_string(frame));
  lastUpdateHostUs_ = microseconds(t0, t1);
  lastLaunchHostUs_ = microseconds(t1, Clock::now());
}

void FrameGraph::retire(GraphExec exec, Graph graph) {
  // Overwriting the oldest entry destroys the exec replaced 8 frames ago, whose launches have completed.
  retired_[retiredNext_] = Retired{std::move(exec), std::move(graph)};
  retiredNext_ = (retiredNext_ + 1) % kRetiredExecs;
}

} // namespace graphsim::cuda
