// The tree code's CPU reference (issue 33, docs/FORCES.md "The tree"): the same octree, moments and walk as the CUDA
// kernels (compute/nbody/cuda/tree_kernels.cu), step for step, on host arrays.
//
//   keys     the Morton key of every body in the root cube of their bounds (tree_math.h)
//   sort     bodies ordered by key, equal keys in index order (as a stable sort)
//   build    level by level from the root: a cell with more than leafSize bodies below the deepest level gets one
//            child per non-empty octant, stored together in octant order; the loop ends when a level splits nothing
//   moments  deepest level first: a leaf from its bodies, a cell from its children; then each node's bounding cube
//            (around its bodies or its children's cubes, within its cell) and from it the opening radius
//   walk     groups of at most kWalkGroup consecutive sorted bodies within one cell (walkGroups; a warp on the GPU)
//            walk the tree depth first together:
//            a cell every body of the group sees beyond its opening radius acts through its moments, unless its next
//            multipole term is too large for the group's smallest |a| of the previous step (the relative criterion);
//            otherwise it is opened (a leaf: its bodies one by one)
//
// The result for a body depends only on the tree's shape and the group it is in, not on the order nodes were stored
// in, so the GPU (which stores a level's cells in the order its threads allocate them) walks the same interactions.
#pragma once

#include <cstdint>
#include <vector>

#include "compute/float4.h"
#include "compute/nbody/nbody.h"
#include "compute/nbody/tree_math.h"

namespace graphsim::tree {

using tree_math::kWalkGroup; // bodies that walk together (a warp on the GPU)

struct Node {
  int begin = 0, end = 0;           // its bodies in sorted order
  int firstChild = 0, children = 0; // children == 0: a leaf
  int level = 0;
};

// Nodes the build may create for n bodies (the GPU's allocation); a cell that would need more stays a leaf and
// Stats::overflow says so. Enough for any leaf size >= 1 on the distributions we measured (docs/FORCES.md).
constexpr std::int64_t nodeCapacity(std::int64_t bodies) { return 2 * bodies + 4096; }

struct Tree {
  tree_math::RootCube cube{};
  std::vector<std::uint64_t> keys; // sorted
  std::vector<int> order;          // sorted place -> body index
  std::vector<Float4> sorted;      // positions and masses in sorted order
  std::vector<Node> nodes;         // level by level; nodes[0] is the root
  std::vector<int> levelStart;     // level L holds nodes [levelStart[L], levelStart[L + 1])
  std::vector<tree_math::Moments> moments;
  std::vector<float> openRadius2;     // squared opening radius of each node
  std::vector<tree_math::Cube> cubes; // each node's bounding cube, which the next two measure
  std::vector<float> errorWeight;     // m side^3 of each node (the relative criterion, tree_math::openedForError)
  bool overflow = false;              // a cell stayed a leaf for want of node capacity
  int depth() const { return static_cast<int>(levelStart.size()) - 2; }
};

// keys, sort and build for the first n bodies of posMass. leafSize >= 1.
void buildTree(const std::vector<Float4>& posMass, int leafSize, std::int64_t maxNodes, Tree& tree);
// moments and opening radii for theta > 0.
void computeMoments(Tree& tree, float theta);

struct WalkCounts {
  std::int64_t cells = 0;  // cell interactions (moments), summed over bodies
  std::int64_t bodies = 0; // body interactions, summed over bodies
};
// accel[i] = G * (the walk's sum for body i), i in body order; returns the interaction counts. On entry accel holds
// the previous step's accelerations, which set the relative criterion's threshold (params.treeTolerance): zeros, or
// an array of another size (resized with zeros), leave theta alone.
// The walk's groups (tree_math::nodeGroups over every node, in node order): each body in exactly one.
std::vector<tree_math::Range> walkGroups(const Tree& tree);

WalkCounts treeForces(const Tree& tree, const NBodyParams& params, std::vector<Float4>& accel);

// What the panel and bench report about a tree.
struct TreeStats {
  int depth = 0;
  std::int64_t nodes = 0, leaves = 0, largestLeaf = 0;
  bool overflow = false;
};
TreeStats treeStats(const Tree& tree);

// Relative force error of `approx` against `exact` (|a - e| / |e| per body; bodies with |e| == 0 skipped).
struct ForceError {
  double median = 0, p99 = 0, max = 0;
  std::int64_t bodies = 0;
};
ForceError forceError(const std::vector<Float4>& approx, const std::vector<Float4>& exact);
// The same for `samples` bodies evenly spread over the arrays, against their direct sums in double precision (O(samples
// N): what bench measures at counts where a full direct sum would take minutes).
ForceError sampledForceError(const std::vector<Float4>& posMass, const std::vector<Float4>& approx,
                             const NBodyParams& params, std::int64_t samples);

} // namespace graphsim::tree
