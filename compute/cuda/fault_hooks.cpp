// Test hooks of the frame graph for the reliability tests (graphsim run --inject, docs/RELIABILITY.md). Kept out of
// frame_graph.cpp so that the product code reads without them.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "compute/cuda/cuda_check.h"
#include "compute/cuda/frame_graph.h"

namespace graphsim::cuda {

std::string FrameGraph::injectBadLaunchConfig(Stage stage) {
  for (const Node& n : nodes_) {
    if (n.kind != Kind::Kernel || n.stage != stage) continue;
    // 4096 threads per block: above the 1024 every CUDA GPU allows, so the launch of this node must fail. Which
    // call reports it (this update, cudaGraphLaunch, or the stream afterwards) is the driver's choice; each of
    // those error paths names the node.
    KernelNodeSpec bad = n.applied;
    bad.block = dim3(4096, 1, 1);
    void* argSlot[1];
    const cudaKernelNodeParams params = bad.nodeParams(argSlot);
    std::fprintf(stderr, "graphsim: --inject kernel-fail: node %s gets 4096 threads per block\n", n.name.c_str());
    CUDA_CHECK_CTX(cudaGraphExecKernelNodeSetParams(exec_.get(), n.node, &params),
                   "updating node " + n.name + " (--inject kernel-fail: 4096 threads per block)");
    return n.name;
  }
  throw std::invalid_argument("--inject kernel-fail: the frame graph has no " + std::string(stageName(stage)) +
                              " node");
}

} // namespace graphsim::cuda
