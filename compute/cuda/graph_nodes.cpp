// The kit's node mechanics (graph_nodes.h).
#include "compute/cuda/graph_nodes.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "compute/cuda/cuda_check.h"

namespace graphsim::cuda {

GraphExec instantiateGraph(cudaGraph_t graph) {
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK_CTX(cudaGraphInstantiate(&exec, graph, 0), "instantiating the frame graph");
  return GraphExec(exec);
}

Graph captureGraph(const std::function<void(cudaStream_t)>& work, const char* what) {
  const Stream capture = makeStream();
  CUDA_CHECK_CTX(cudaStreamBeginCapture(capture.get(), cudaStreamCaptureModeThreadLocal), what);
  try {
    work(capture.get());
  } catch (...) {
    cudaGraph_t discard = nullptr;
    CUDA_LOG(cudaStreamEndCapture(capture.get(), &discard));
    if (discard != nullptr) CUDA_LOG(cudaGraphDestroy(discard));
    throw;
  }
  cudaGraph_t g = nullptr;
  CUDA_CHECK_CTX(cudaStreamEndCapture(capture.get(), &g), what);
  return Graph(g);
}

const char* updateResultName(cudaGraphExecUpdateResult r) {
  switch (r) {
  case cudaGraphExecUpdateSuccess: return "cudaGraphExecUpdateSuccess";
  case cudaGraphExecUpdateError: return "cudaGraphExecUpdateError";
  case cudaGraphExecUpdateErrorTopologyChanged: return "cudaGraphExecUpdateErrorTopologyChanged";
  case cudaGraphExecUpdateErrorNodeTypeChanged: return "cudaGraphExecUpdateErrorNodeTypeChanged";
  case cudaGraphExecUpdateErrorFunctionChanged: return "cudaGraphExecUpdateErrorFunctionChanged";
  case cudaGraphExecUpdateErrorParametersChanged: return "cudaGraphExecUpdateErrorParametersChanged";
  case cudaGraphExecUpdateErrorNotSupported: return "cudaGraphExecUpdateErrorNotSupported";
  case cudaGraphExecUpdateErrorUnsupportedFunctionChange: return "cudaGraphExecUpdateErrorUnsupportedFunctionChange";
  case cudaGraphExecUpdateErrorAttributesChanged: return "cudaGraphExecUpdateErrorAttributesChanged";
  }
  return "cudaGraphExecUpdateResult(unknown)";
}

void dumpGraphDot(cudaGraph_t graph, const std::filesystem::path& path) {
  // cudaGraphDebugDotPrint reports an unwritable path only as cudaErrorOperatingSystem; opening it first gives the
  // user the path and the OS's reason (and keeps sanitizer runs free of that API error).
  if (std::ofstream probe(path, std::ios::trunc); !probe) {
    throw std::runtime_error("cannot write the frame graph to " + path.string() + ": " + std::strerror(errno));
  }
  CUDA_CHECK_CTX(cudaGraphDebugDotPrint(graph, path.c_str(), cudaGraphDebugDotFlagsVerbose),
                 "writing the frame graph to " + path.string());
}

cudaGraphNode_t addKernelNode(cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t depCount,
                              const KernelNodeSpec& spec, std::string_view name) {
  void* argSlot[1];
  const cudaKernelNodeParams params = spec.nodeParams(argSlot);
  cudaGraphNode_t node = nullptr;
  CUDA_CHECK_CTX(cudaGraphAddKernelNode(&node, g, deps, depCount, &params), std::string("adding node ").append(name));
  return node;
}

cudaGraph_t* addConditionalNode(cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t depCount,
                                cudaGraphConditionalHandle handle, cudaGraphConditionalNodeType type, unsigned size,
                                std::string_view what, cudaGraphNode_t* node) {
  cudaGraphNodeParams params{};
  params.type = cudaGraphNodeTypeConditional;
  params.conditional.handle = handle;
  params.conditional.type = type;
  params.conditional.size = size;
  CUDA_CHECK_CTX(cudaGraphAddNode(node, g, deps, nullptr, depCount, &params), std::string(what));
  return params.conditional.phGraph_out;
}

bool updateKernelNode(cudaGraphExec_t exec, cudaGraphNode_t node, KernelNodeSpec& applied, const KernelNodeSpec& want,
                      std::string_view name) {
  if (want == applied) return false;
  void* argSlot[1];
  const cudaKernelNodeParams params = want.nodeParams(argSlot);
  CUDA_CHECK_CTX(cudaGraphExecKernelNodeSetParams(exec, node, &params), std::string("updating node ").append(name));
  applied = want;
  return true;
}

bool nodeEnabled(cudaGraphExec_t exec, cudaGraphNode_t node, std::string_view name) {
  unsigned int isEnabled = 0;
  CUDA_CHECK_CTX(cudaGraphNodeGetEnabled(exec, node, &isEnabled), std::string(name));
  return isEnabled != 0;
}

bool syncNodeEnabled(cudaGraphExec_t exec, cudaGraphNode_t node, bool want, std::string_view name) {
  if (nodeEnabled(exec, node, name) == want) return false;
  CUDA_CHECK_CTX(cudaGraphNodeSetEnabled(exec, node, want ? 1u : 0u),
                 std::string(want ? "enabling node " : "disabling node ").append(name));
  return true;
}

std::string updateRefusal(cudaError_t error, const cudaGraphExecUpdateResultInfo& info, std::string_view at,
                          std::string_view edgeFrom) {
  (void)cudaGetLastError(); // the refusal is handled by the caller
  std::string reason =
      "cudaGraphExecUpdate: " + std::string(cudaGetErrorName(error)) + ", " + updateResultName(info.result);
  if (!at.empty()) reason.append(" at ").append(at);
  if (!edgeFrom.empty()) reason.append(" (edge from ").append(edgeFrom).append(")");
  return reason;
}

} // namespace graphsim::cuda
