// The tree code's graph: its kernel nodes' specs for a tree, its two WHILE loops, and the whole tree stage in a graph
// of its own (tree_kernels.h; docs/FORCES.md "The tree"). The kernels and their launch shapes: tree_kernels.cu.
#include <cuda_runtime_api.h>

#include <stdexcept>

#include "compute/cuda/cuda_check.h"
#include "compute/cuda/graph_nodes.h"
#include "compute/nbody/cuda/tree_kernels.h"

namespace graphsim::cuda {
TreeWalkArgs treeWalkArgs(const TreeView& t, float4* accel, int n, float G, float eps2, float tolerance) {
  return {t.nodes,
          t.nodeA,
          t.nodeB,
          t.nodeC,
          t.sorted,
          t.order,
          accel,
          t.walkStack,
          &t.control->walkOverflow,
          &t.control->walkNext,
          t.groups,
          &t.control->groupCount,
          n,
          G,
          eps2,
          t.walkBlocks,
          tolerance,
          0};
}

KernelNodeSpec treeStepSpec(TreeStep step, const TreeView& t, const float4* posMass, int n, float theta, int leafSize,
                            const TreeHandles& handles) {
  switch (step) {
  case TreeStep::Prepare: return treePrepareSpec({t.control, leafSize, 1.0f / theta});
  case TreeStep::Bounds: return treeBoundsSpec({posMass, t.control, n, 0});
  case TreeStep::Keys: return treeKeysSpec({posMass, t.unsortedKeys, t.unsortedOrder, t.control, n, t.capacity});
  case TreeStep::Groups: return treeGroupsSpec({t.nodes, t.groups, t.control, t.maxNodes, 0});
  case TreeStep::Gather:
    return treeGatherSpec({posMass, t.order, t.sorted, t.nodes, t.control, handles.build, handles.moments, n, 0});
  }
  throw std::logic_error("treeStepSpec: unknown step");
}

cudaGraphNode_t addTreeLoops(cudaGraph_t g, cudaGraphNode_t after, const TreeView& t, const TreeHandles& handles,
                             cudaGraphNode_t* buildNode) {
  const cudaGraph_t build = addConditionalNode(g, &after, 1, handles.build, cudaGraphCondTypeWhile, 1,
                                               "adding node tree_build", buildNode)[0];
  const cudaGraphNode_t split =
      addKernelNode(build, nullptr, 0, treeSplitSpec({t.keys, t.nodes, t.control, t.maxNodes, 0}), "tree_split");
  (void)addKernelNode(build, &split, 1, treeLevelSpec({t.control, handles.build, t.maxNodes, 0}), "tree_level");
  cudaGraphNode_t momentsNode = nullptr;
  const cudaGraph_t moments = addConditionalNode(g, buildNode, 1, handles.moments, cudaGraphCondTypeWhile, 1,
                                                 "adding node tree_moments", &momentsNode)[0];
  const cudaGraphNode_t cells = addKernelNode(
      moments, nullptr, 0, treeCellsSpec({t.keys, t.nodes, t.sorted, t.nodeA, t.nodeB, t.nodeC, t.nodeD, t.control}),
      "tree_cells");
  (void)addKernelNode(moments, &cells, 1, treeUpSpec({t.control, handles.moments}), "tree_up");
  return momentsNode;
}

GraphExec launchTreeForces(const TreeView& t, const TreeForces& f, cudaStream_t stream) {
  Graph graph = makeGraph();
  cudaGraph_t g = graph.get();
  TreeHandles handles;
  CUDA_CHECK(cudaGraphConditionalHandleCreate(&handles.build, g, 0, cudaGraphCondAssignDefault));
  CUDA_CHECK(cudaGraphConditionalHandleCreate(&handles.moments, g, 0, cudaGraphCondAssignDefault));
  cudaGraphNode_t prev = nullptr;
  const auto kernel = [&](const KernelNodeSpec& spec, const char* name) {
    prev = addKernelNode(g, prev != nullptr ? &prev : nullptr, prev != nullptr ? 1 : 0, spec, name);
  };
  for (const TreeStep step : {TreeStep::Prepare, TreeStep::Bounds, TreeStep::Keys}) {
    kernel(treeStepSpec(step, t, f.posMass, f.n, f.theta, f.leafSize, handles), kTreeStepNames[static_cast<int>(step)]);
  }
  cudaGraphNode_t sort = nullptr;
  CUDA_CHECK_CTX(cudaGraphAddChildGraphNode(&sort, g, &prev, 1, t.sortGraph), "adding node tree_sort");
  prev = sort;
  kernel(treeStepSpec(TreeStep::Gather, t, f.posMass, f.n, f.theta, f.leafSize, handles), "tree_gather");
  cudaGraphNode_t build = nullptr;
  prev = addTreeLoops(g, prev, t, handles, &build);
  kernel(treeStepSpec(TreeStep::Groups, t, f.posMass, f.n, f.theta, f.leafSize, handles), "tree_groups");
  kernel(treeWalkSpec(treeWalkArgs(t, f.accel, f.n, f.G, f.eps2, f.tolerance)), "forces");
  GraphExec exec = instantiateGraph(g);
  // The relative criterion needs the previous step's accelerations: a first walk (from zeros: theta alone) gives them.
  for (int walk = 0; walk < (f.tolerance > 0.0f ? 2 : 1); ++walk) {
    CUDA_CHECK_CTX(cudaGraphLaunch(exec.get(), stream), "launching the tree's forces");
  }
  return exec;
}

} // namespace graphsim::cuda
