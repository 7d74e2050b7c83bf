// The benchmark's comparison paths for one frame and the kernel-fail test hook (frame_graph_instruments.h): the same
// kernels as the product path's graph, reached in the ways the product path avoids.
#include "compute/nbody/cuda/nbody_frame_graph_instruments.h"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "compute/cuda/cuda_check.h"
#include "compute/cuda/kernel_launch.h"

namespace graphsim::cuda {
namespace {

double microseconds(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}

std::string frameContext(std::uint64_t frame, const char* what) { return "frame " + std::to_string(frame) + what; }

} // namespace

void FrameGraphInstruments::launchOnStream(NBodyFrameGraph& g, const FrameLaunch& launch) {
  const auto t0 = Clock::now();
  if (launch.output != g.output_) {
    g.output_ = launch.output;
    g.outputDirty_ = true; // the exec still points at the old buffer; a later graph launch updates it
  }
  // paramsDirty_ stays as it is for the same reason: these launches take their arguments from stageSpec().
  const auto t1 = Clock::now();

  if (g.hasSemaphores()) waitRenderDoneOnStream(launch.stream, g.semaphores_, launch.frame);
  // The diagnostics kernel on the frames the graph would sample, where the graph has its node.
  const bool sample = g.diagnosticsSamples(launch.frame);
  const auto run = [&](NBodyStage stage, int substep) {
    if (g.runsStage(stage)) {
      launchKernel(g.stageSpec(stage, substep), launch.stream, [&] { return stageInstanceName(stage, substep); });
    }
    if (sample && stage == NBodyStage::Forces && substep == 0) {
      launchKernel(g.diagnosticsSpecFor(launch.frame), launch.stream, [] { return kDiagnosticsNodeName; });
    }
  };
  forEachStageInstance(g.substeps_, run);
  if (sample) g.diagnosticsFirstPending_ = false;
  launchKernel(reportBlowUpSpec(g.blowUp_), launch.stream, [] { return kBlowUpNodeName; });
  if (g.hasSemaphores()) signalSimDoneOnStream(launch.stream, g.semaphores_, launch.frame);
  recordHostTimes(g, t0, t1);
}

void FrameGraphInstruments::launchWithWholeUpdate(NBodyFrameGraph& g, const FrameLaunch& launch) {
  const auto t0 = Clock::now();
  NBodyFrameGraph::Built fresh = buildForFrame(g, launch);
  cudaGraphExecUpdateResultInfo info{};
  const cudaError_t e = cudaGraphExecUpdate(g.exec_.get(), fresh.graph.get(), &info);
  if (e != cudaSuccess) {
    (void)cudaGetLastError(); // reported through the exception below
    throwCudaError(e, "cudaGraphExecUpdate", __FILE__, __LINE__,
                   frameContext(launch.frame, ": whole-graph update refused (") + updateResultName(info.result) + ")");
  }
  // The exec keeps identifying its nodes by the handles of the graph it was instantiated from, and keeps their
  // enable states; it now holds the fresh graph's parameters.
  for (std::size_t i = 0; i < g.nodes_.size(); ++i) g.nodes_[i].applied = fresh.nodes[i].applied;
  g.exec_.latest = std::move(fresh.graph);
  g.paramsDirty_ = g.outputDirty_ = false;
  ++g.counters_.wholeGraphUpdates;
  g.prepareDiagnostics(launch.frame); // the update kept the node's enable state: the schedule decides it again
  launchExec(g, launch, t0);
}

void FrameGraphInstruments::launchReinstantiated(NBodyFrameGraph& g, const FrameLaunch& launch) {
  const auto t0 = Clock::now();
  NBodyFrameGraph::Built fresh = buildForFrame(g, launch);
  GraphExec exec = instantiateGraph(fresh.graph.get());
  for (const NBodyFrameGraph::Node& n : fresh.nodes) {
    if (n.kind == NBodyFrameGraph::Kind::Kernel && !g.runsStage(n.stage)) {
      CUDA_CHECK_CTX(cudaGraphNodeSetEnabled(exec.get(), n.node, 0u), n.name);
    }
  }
  retire(g, std::exchange(g.exec_.exec, std::move(exec)),
         std::exchange(g.exec_.instantiatedFrom, std::move(fresh.graph)));
  g.exec_.latest.reset();
  g.nodes_ = std::move(fresh.nodes);
  g.nodeList_.structure = true; // new node handles and a new exec: nodes() reads the enable states back from it
  g.paramsDirty_ = g.outputDirty_ = false;
  ++g.counters_.reinstantiations;
  g.diagnosticsExecEnabled_ = true; // a fresh exec starts with every node enabled: the schedule decides this frame's
  g.prepareDiagnostics(launch.frame);
  launchExec(g, launch, t0);
}

std::string FrameGraphInstruments::injectBadLaunchConfig(NBodyFrameGraph& g, NBodyStage stage) {
  for (const NBodyFrameGraph::Node& n : g.nodes_) {
    if (n.kind != NBodyFrameGraph::Kind::Kernel || n.stage != stage) continue;
    // 4096 threads per block: above the 1024 every CUDA GPU allows, so the launch of this node must fail. Which
    // call reports it (this update, cudaGraphLaunch, or the stream afterwards) is the driver's choice; each of
    // those error paths names the node.
    KernelNodeSpec bad = n.applied;
    bad.block = dim3(4096, 1, 1);
    void* argSlot[1];
    const cudaKernelNodeParams params = bad.nodeParams(argSlot);
    std::fprintf(stderr, "graphsim: --inject kernel-fail: node %s gets 4096 threads per block\n", n.name.c_str());
    CUDA_CHECK_CTX(cudaGraphExecKernelNodeSetParams(g.exec_.get(), n.node, &params),
                   "updating node " + n.name + " (--inject kernel-fail: 4096 threads per block)");
    return n.name;
  }
  throw std::invalid_argument("--inject kernel-fail: the frame graph has no " + std::string(stageName(stage)) +
                              " node");
}

NBodyFrameGraph::Built FrameGraphInstruments::buildForFrame(NBodyFrameGraph& g, const FrameLaunch& launch) {
  g.output_ = launch.output;
  return g.build(g.protocol().renderDoneWaited(launch.frame), g.protocol().simDoneSignalled(launch.frame));
}

void FrameGraphInstruments::launchExec(NBodyFrameGraph& g, const FrameLaunch& launch, Clock::time_point setUpStart) {
  const auto t1 = Clock::now();
  CUDA_CHECK_CTX(cudaGraphLaunch(g.exec_.get(), launch.stream), "launching frame " + std::to_string(launch.frame));
  recordHostTimes(g, setUpStart, t1);
}

void FrameGraphInstruments::recordHostTimes(NBodyFrameGraph& g, Clock::time_point setUpStart,
                                            Clock::time_point launchStart) {
  g.lastUpdateHostUs_ = microseconds(setUpStart, launchStart);
  g.lastLaunchHostUs_ = microseconds(launchStart, Clock::now());
}

void FrameGraphInstruments::retire(NBodyFrameGraph& g, GraphExec exec, Graph built) {
  // Overwriting the oldest entry destroys the exec replaced 8 frames ago, whose launches have completed.
  g.retired_[g.retiredNext_] = NBodyFrameGraph::Retired{std::move(exec), std::move(built)};
  g.retiredNext_ = (g.retiredNext_ + 1) % NBodyFrameGraph::kRetiredExecs;
}

} // namespace graphsim::cuda
