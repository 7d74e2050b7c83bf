// The kit's node mechanics (issue 27), one implementation for every scene's frame graph: kernel nodes from their
// specs, updated only when a spec's bytes changed, enable states set only where they differ, a structural change
// tried as cudaGraphExecUpdate before a fresh instantiation, each counted in UpdateCounters. A scene keeps its nodes
// in build order; its node type has `std::string name`, `cudaGraphNode_t node` (in the graph the exec was
// instantiated from: the exec names its nodes by those handles, also after a whole-graph update) and
// `KernelNodeSpec applied` (what the exec holds). GraphNode is that type for a scene whose nodes are step rows.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compute/cuda/cuda_handles.h"
#include "compute/cuda/kernel_node_spec.h"
#include "compute/node_info.h" // UpdateCounters

namespace graphsim::cuda {

struct GraphNode {
  std::string name; // the row's, with "#s" for substep copy s > 0
  int row = -1;     // the step row's index; -1: none (the semaphore nodes)
  cudaGraphNode_t node = nullptr;
  KernelNodeSpec applied;
};

// The exec of a frame graph and the graphs behind it.
struct FrameExec {
  GraphExec exec;
  Graph instantiatedFrom; // whose node handles identify the exec's nodes
  Graph latest;           // the graph of the last whole-graph update, whose parameters are in use (for DOT)
  cudaGraphExec_t get() const { return exec.get(); }
  cudaGraph_t shown() const { return latest ? latest.get() : instantiatedFrom.get(); }
};

GraphExec instantiateGraph(cudaGraph_t graph);
// What `work` enqueues on a fresh stream, captured (thread-local mode) as a graph: a CUB sort, whose kernels and
// temporary layout only CUB knows, becomes a child graph. If work throws, the capture is ended and discarded first;
// a failed capture throws CudaError naming `what`.
Graph captureGraph(const std::function<void(cudaStream_t)>& work, const char* what);
const char* updateResultName(cudaGraphExecUpdateResult r);
// cudaGraphDebugDotPrint, after opening the path (an unwritable one is named with the OS's reason).
void dumpGraphDot(cudaGraph_t graph, const std::filesystem::path& path);

// A kernel node with spec's parameters after deps.
cudaGraphNode_t addKernelNode(cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t depCount,
                              const KernelNodeSpec& spec, std::string_view name);
// A conditional node (IF, SWITCH with `size` branches, WHILE) on handle after deps; *node is the node. Returns its
// body graphs (a CUDA-owned array, valid as long as the node), to add each branch's nodes to.
cudaGraph_t* addConditionalNode(cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t depCount,
                                cudaGraphConditionalHandle handle, cudaGraphConditionalNodeType type, unsigned size,
                                std::string_view what, cudaGraphNode_t* node);
// cudaGraphExecKernelNodeSetParams when want's bytes differ from applied (then applied = want); whether it did.
bool updateKernelNode(cudaGraphExec_t exec, cudaGraphNode_t node, KernelNodeSpec& applied, const KernelNodeSpec& want,
                      std::string_view name);
// Reads the exec's enable state of node and sets it to want where it differs; whether it did.
bool syncNodeEnabled(cudaGraphExec_t exec, cudaGraphNode_t node, bool want, std::string_view name);
bool nodeEnabled(cudaGraphExec_t exec, cudaGraphNode_t node, std::string_view name);
// Why cudaGraphExecUpdate refused: the error, the result and the nodes its info names (empty: none). Clears the
// thread's last error, which the refusal set.
std::string updateRefusal(cudaError_t error, const cudaGraphExecUpdateResultInfo& info, std::string_view at,
                          std::string_view edgeFrom);

template <typename Node>
std::string_view nameOf(const std::vector<Node>& nodes, cudaGraphNode_t node) {
  if (node == nullptr) return {};
  for (const Node& n : nodes)
    if (n.node == node) return n.name;
  return "an unnamed node";
}

// The byte-diff update of every node specOf(node) gives a spec (std::optional<KernelNodeSpec>) for; how many it set.
template <typename Node, typename SpecOf>
std::uint64_t updateKernels(cudaGraphExec_t exec, std::vector<Node>& nodes, const SpecOf& specOf) {
  std::uint64_t updated = 0;
  for (Node& n : nodes) {
    const std::optional<KernelNodeSpec> want = specOf(n);
    if (want && updateKernelNode(exec, n.node, n.applied, *want, n.name)) ++updated;
  }
  return updated;
}

// Toggles: every node want(node) gives a state (std::optional<bool>) gets it where the exec's differs; how many.
template <typename Node, typename Want>
std::uint64_t syncEnables(cudaGraphExec_t exec, const std::vector<Node>& nodes, const Want& want) {
  std::uint64_t set = 0;
  for (const Node& n : nodes) {
    const std::optional<bool> on = want(n);
    if (on && syncNodeEnabled(exec, n.node, *on, n.name)) ++set;
  }
  return set;
}

// A graph as a scene's builder made it, with its nodes in build order.
template <typename Node>
struct BuiltGraph {
  Graph graph;
  std::vector<Node> nodes;
};

// Puts fresh in use, built in the order of nodes. The first graph is instantiated. Later, unless notAttempted says
// why not (or the lists differ in length: another topology), cudaGraphExecUpdate is tried, after which the exec keeps
// its node handles (paired by index); else fresh is instantiated. Counted, with lastFallbackReason: cause, the path and
// why. Returns whether the exec is fresh (every node enabled). On a throw nothing has changed.
template <typename Node>
bool replaceGraph(FrameExec& fx, std::vector<Node>& nodes, BuiltGraph<Node> fresh, UpdateCounters& counters,
                  const std::string& cause, std::string notAttempted = {}) {
  if (notAttempted.empty() && fresh.nodes.size() != nodes.size()) {
    notAttempted = "cudaGraphExecUpdateErrorTopologyChanged: " + std::to_string(nodes.size()) + " -> " +
                   std::to_string(fresh.nodes.size()) + " nodes";
  }
  std::string reason = notAttempted + ", so cudaGraphExecUpdate was not attempted";
  const bool first = !fx.exec;
  if (!first && notAttempted.empty()) {
    cudaGraphExecUpdateResultInfo info{};
    const cudaError_t e = cudaGraphExecUpdate(fx.get(), fresh.graph.get(), &info);
    if (e == cudaSuccess) {
      for (std::size_t i = 0; i < nodes.size(); ++i) fresh.nodes[i].node = nodes[i].node;
      nodes = std::move(fresh.nodes);
      fx.latest = std::move(fresh.graph);
      ++counters.wholeGraphUpdates;
      if (!cause.empty()) counters.lastFallbackReason = cause + "; graph updated whole (cudaGraphExecUpdate)";
      return false;
    }
    reason = updateRefusal(e, info, nameOf(fresh.nodes, info.errorNode), nameOf(fresh.nodes, info.errorFromNode));
  }
  fx.exec = instantiateGraph(fresh.graph.get());
  fx.instantiatedFrom = std::move(fresh.graph);
  fx.latest.reset();
  nodes = std::move(fresh.nodes);
  if (!first) {
    ++counters.reinstantiations;
    counters.lastFallbackReason = (cause.empty() ? "" : cause + "; ") + reason + "; re-instantiated";
  }
  return true;
}

} // namespace graphsim::cuda
