// The tree code's CUDA side (issue 33, docs/FORCES.md "The tree"), seen from the host: the device arrays
// (DeviceTree), one argument struct per kernel and its spec builder. The same stages as the CPU reference
// (compute/nbody/nbody_tree.h), with the formulas of compute/nbody/tree_math.h:
//
//   tree_prepare   one thread: bounds reset, theta and leaf size into the control block (the node θ and the leaf
//                  size update)
//   tree_bounds    min/max of the positions (atomics on order-preserving integers)
//   tree_keys      the Morton key of every body; the padding slots up to the capacity get a key after every real one
//   tree_sort      CUB's radix sort of (key, index) over the capacity: a child graph captured once per allocation
//   tree_gather    positions in sorted order; the root; sets the build's and the moments' WHILE conditions
//   tree_build     WHILE { tree_split: the cells of this level with more than leafSize bodies get their children;
//                          tree_level: one thread, next level or stop }                 (the GPU decides the depth)
//   tree_moments   WHILE { tree_cells: moments of this level's cells, deepest first; tree_up: one level up }
//   tree_groups    the walk's groups: runs of at most 64 sorted bodies within one cell (tree_math::nodeGroups)
//   forces         tree_walk: one warp per group, taken from a counter, depth first together (Bonsai's group
//                  criterion, and Gadget's relative one against the group's smallest |a| of the previous step)
//
// Plain C++ (CUDA runtime headers only), like nbody_kernels.h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "compute/cuda/cuda_handles.h"
#include "compute/cuda/kernel_node_spec.h"

namespace graphsim::cuda {

inline constexpr int kTreeLevels = 21; // tree_math::kLevels
// The walk's stack per warp, in global memory: each round pops up to 32 nodes and pushes at most 8 children of each,
// so (as for a depth-first walk with 256 children a node) it never holds more than 256 per level of the tree.
inline constexpr int kWalkStack = 256 * (kTreeLevels + 2);
inline constexpr std::int64_t treeNodeCapacity(std::int64_t bodies) { // tree::nodeCapacity
  return 2 * bodies + 4096;
}

// The tree's device-side bookkeeping, one per DeviceTree; written by the kernels only.
struct TreeControl {
  unsigned int lo[3], hi[3]; // bounds as order-preserving integers
  float cubeLo[3], side;     // the root cube (tree_keys)
  int nodeCount;             // nodes allocated (may run past maxNodes: then overflow)
  int level;                 // the build's current level, then the moments' (counting down)
  int depth;                 // the deepest level with nodes
  int overflow;              // a cell stayed a leaf for want of node capacity
  int leafSize;
  float invTheta;
  int levelStart[kTreeLevels + 2]; // level L: nodes [levelStart[L], levelStart[L + 1])
  int walkOverflow;                // a warp's stack was full (never within kWalkStack's bound; checked by the tests)
  int walkNext;                    // the walk's next group (its warps take groups as they finish: a dense core's
                                   // groups cost many times a halo's)
  int groupCount;                  // the walk's groups (tree_groups)
};

// The tree's device arrays (DeviceTree owns them), compared by pointer in BodiesView's ==.
struct TreeView {
  unsigned long long* keys = nullptr; // sorted keys (the sort's output buffer)
  int* order = nullptr;               // sorted place -> body index (the sort's output buffer)
  unsigned long long* unsortedKeys = nullptr;
  int* unsortedOrder = nullptr;
  float4* sorted = nullptr; // posMass in sorted order
  int4* nodes = nullptr;    // (begin, end, firstChild, children)
  float4* nodeA = nullptr;  // (centre of mass, squared opening radius)
  float4* nodeB = nullptr;  // (mass, M2 xx, yy, zz)
  float4* nodeC = nullptr;  // (M2 xy, xz, yz, m side^3: the relative criterion's weight)
  float4* nodeD = nullptr;  // (bounding cube's centre, side): the moments pass's, for the parent's cube
  int2* groups = nullptr;   // the walk's groups (tree_math::nodeGroups), control->groupCount of them
  TreeControl* control = nullptr;
  int* walkStack = nullptr; // kWalkStack per warp of the walk's grid
  int capacity = 0;         // bodies the keys and the sort cover
  int maxNodes = 0;
  int walkBlocks = 0;              // the walk's grid (its warps take groups from TreeControl::walkNext)
  cudaGraph_t sortGraph = nullptr; // the captured sort (DeviceTree owns it)
  bool present() const { return control != nullptr; }
  friend bool operator==(const TreeView& a, const TreeView& b) {
    return a.control == b.control && a.keys == b.keys && a.sorted == b.sorted && a.nodes == b.nodes &&
           a.capacity == b.capacity && a.sortGraph == b.sortGraph;
  }
};

// What the host reads back about the last tree (DeviceTree::stats; bench and tests).
struct TreeDeviceStats {
  int depth = 0, nodes = 0;
  bool overflow = false, walkOverflow = false;
};

// The arrays for `capacity` bodies, and the sort over them captured as a graph.
class DeviceTree {
public:
  DeviceTree() = default;
  explicit DeviceTree(std::size_t capacity);
  TreeView view() const;
  std::size_t bytes() const; // device memory held
  // Synchronous copy of the control block (the caller has synchronised the stream that builds).
  TreeDeviceStats stats() const;

private:
  DeviceArray<unsigned long long> keys_, keysAlt_;
  DeviceArray<int> order_, orderAlt_;
  DeviceArray<float4> sorted_, nodeA_, nodeB_, nodeC_, nodeD_;
  DeviceArray<int4> nodes_;
  DeviceArray<int2> groups_;
  DeviceArray<TreeControl> control_;
  DeviceArray<int> walkStack_;
  DeviceArray<unsigned char> sortTemp_;
  Graph sortGraph_;
  bool sortedInAlt_ = false;
  int capacity_ = 0, maxNodes_ = 0, walkBlocks_ = 0;
};

struct TreePrepareArgs {
  TreeControl* control;
  int leafSize;
  float invTheta;
};
struct TreeBoundsArgs {
  const float4* posMass;
  TreeControl* control;
  int n, pad;
};
struct TreeKeysArgs {
  const float4* posMass;
  unsigned long long* keys;
  int* order;
  TreeControl* control;
  int n, capacity;
};
struct TreeGatherArgs {
  const float4* posMass;
  const int* order;
  float4* sorted;
  int4* nodes;
  TreeControl* control;
  unsigned long long buildHandle, momentsHandle; // cudaGraphConditionalHandle
  int n, pad;
};
struct TreeSplitArgs {
  const unsigned long long* keys;
  int4* nodes;
  TreeControl* control;
  int maxNodes, pad;
};
struct TreeLevelArgs {
  TreeControl* control;
  unsigned long long handle;
  int maxNodes, pad;
};
struct TreeCellsArgs {
  const unsigned long long* keys;
  const int4* nodes;
  const float4* sorted;
  float4 *nodeA, *nodeB, *nodeC, *nodeD;
  TreeControl* control;
};
struct TreeUpArgs {
  TreeControl* control;
  unsigned long long handle;
};
struct TreeGroupsArgs {
  const int4* nodes;
  int2* groups;
  TreeControl* control;
  int maxNodes, pad;
};
struct TreeWalkArgs {
  const int4* nodes;
  const float4 *nodeA, *nodeB, *nodeC;
  const float4* sorted;
  const int* order;
  float4* accel;
  int* stack;        // TreeView::walkStack
  int* walkOverflow; // &TreeControl::walkOverflow
  int* walkNext;     // &TreeControl::walkNext (zeroed by tree_prepare)
  const int2* groups;
  const int* groupCount; // &TreeControl::groupCount
  int n;
  float G, eps2;
  int walkBlocks;
  float tolerance; // the relative criterion's (NBodyParams::treeTolerance; 0: theta alone)
  int pad;
};
static_assert(sizeof(TreePrepareArgs) == 16 && sizeof(TreeBoundsArgs) == 24 && sizeof(TreeKeysArgs) == 40 &&
                  sizeof(TreeGatherArgs) == 64 && sizeof(TreeSplitArgs) == 32 && sizeof(TreeLevelArgs) == 24 &&
                  sizeof(TreeCellsArgs) == 64 && sizeof(TreeUpArgs) == 16 && sizeof(TreeGroupsArgs) == 32 &&
                  sizeof(TreeWalkArgs) == 120,
              "kernel argument structs must have no implicit padding (their bytes are compared)");

KernelNodeSpec treePrepareSpec(const TreePrepareArgs& a);
KernelNodeSpec treeBoundsSpec(const TreeBoundsArgs& a);
KernelNodeSpec treeKeysSpec(const TreeKeysArgs& a);
KernelNodeSpec treeGatherSpec(const TreeGatherArgs& a);
KernelNodeSpec treeSplitSpec(const TreeSplitArgs& a);
KernelNodeSpec treeLevelSpec(const TreeLevelArgs& a);
KernelNodeSpec treeCellsSpec(const TreeCellsArgs& a);
KernelNodeSpec treeUpSpec(const TreeUpArgs& a);
KernelNodeSpec treeWalkSpec(const TreeWalkArgs& a);
KernelNodeSpec treeGroupsSpec(const TreeGroupsArgs& a);
// The walk's arguments for a tree: n bodies' accelerations into accel.
TreeWalkArgs treeWalkArgs(const TreeView& t, float4* accel, int n, float G, float eps2, float tolerance);

// The kernel nodes of the main graph that carry parameters (the loops' bodies take only fixed pointers and handles).
enum class TreeStep : int { Prepare, Bounds, Keys, Gather, Groups };
inline constexpr const char* kTreeStepNames[] = {"tree_prepare", "tree_bounds", "tree_keys", "tree_gather",
                                                 "tree_groups"};
struct TreeHandles {
  unsigned long long build = 0, moments = 0;
};
// The spec of one of them for a tree, n bodies, theta and leaf size.
KernelNodeSpec treeStepSpec(TreeStep step, const TreeView& t, const float4* posMass, int n, float theta, int leafSize,
                            const TreeHandles& handles);
// Adds the two WHILE nodes (build, moments) with their bodies after *deps: the build loop, then the moments loop.
// Returns the moments node (the walk depends on it).
cudaGraphNode_t addTreeLoops(cudaGraph_t g, cudaGraphNode_t after, const TreeView& t, const TreeHandles& handles,
                             cudaGraphNode_t* buildNode);

// The whole tree stage on `stream`, outside the frame graph (the leapfrog start's a(0)): the same nodes in a graph of
// their own, instantiated and launched, twice with a tolerance (the second walk's relative criterion uses the first's
// accelerations; accel must hold zeros on entry). The caller keeps the returned exec until the stream has passed it.
struct TreeForces {
  const float4* posMass;
  float4* accel;
  int n;
  float G, eps2, theta;
  int leafSize;
  float tolerance;
};
GraphExec launchTreeForces(const TreeView& t, const TreeForces& f, cudaStream_t stream);

} // namespace graphsim::cuda
