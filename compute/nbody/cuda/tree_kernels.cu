// The tree code's kernels, their launch shapes and its device arrays (tree_kernels.h; docs/FORCES.md "The tree"); the
// specs for a tree, the two WHILE loops and the stage's own graph: tree_graph.cpp.
#include "compute/nbody/cuda/tree_kernels.h"

#include <cuda_runtime.h>

#include <algorithm>

#include <cub/device/device_radix_sort.cuh>

#include "compute/cuda/cuda_check.h"
#include "compute/cuda/graph_nodes.h"
#include "compute/nbody/tree_math.h"

namespace graphsim::cuda {

using tree_math::Vec3;

namespace {

constexpr int kBlock = 256;
constexpr int kLoopBlocks = 1024; // the loops' kernels stride over a level of unknown size
constexpr int kWalkWarps = kBlock / 32;
constexpr int kWalkBlocksPerSm = 3; // 24 warps an SM: at most 80 registers a thread (two bodies a lane)

__device__ inline unsigned orderedBits(float f) {
  const unsigned u = __float_as_uint(f);
  return (u & 0x80000000u) != 0 ? ~u : u | 0x80000000u;
}
__device__ inline float fromOrderedBits(unsigned u) {
  return __uint_as_float((u & 0x80000000u) != 0 ? u & 0x7fffffffu : ~u);
}
__device__ inline Vec3 xyz(float4 p) { return {p.x, p.y, p.z}; }

__global__ void treePrepareKernel(TreePrepareArgs a) {
  TreeControl& c = *a.control;
  for (int k = 0; k < 3; ++k) {
    c.lo[k] = orderedBits(INFINITY);
    c.hi[k] = orderedBits(-INFINITY);
  }
  c.leafSize = a.leafSize;
  c.invTheta = a.invTheta;
  c.walkNext = 0;
  c.groupCount = 0;
}

__global__ void __launch_bounds__(kBlock) treeBoundsKernel(TreeBoundsArgs a) {
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += gridDim.x * blockDim.x) {
    const float4 p = a.posMass[i];
    const float v[3] = {p.x, p.y, p.z};
    for (int k = 0; k < 3; ++k) {
      if (!isfinite(v[k])) continue; // a blown-up body must not stretch the cube to infinity
      lo[k] = fminf(lo[k], v[k]);
      hi[k] = fmaxf(hi[k], v[k]);
    }
  }
  for (int k = 0; k < 3; ++k) {
    for (int off = 16; off > 0; off >>= 1) {
      lo[k] = fminf(lo[k], __shfl_xor_sync(0xffffffffu, lo[k], off));
      hi[k] = fmaxf(hi[k], __shfl_xor_sync(0xffffffffu, hi[k], off));
    }
  }
  if ((threadIdx.x & 31) == 0) {
    for (int k = 0; k < 3; ++k) {
      atomicMin(&a.control->lo[k], orderedBits(lo[k]));
      atomicMax(&a.control->hi[k], orderedBits(hi[k]));
    }
  }
}

__device__ inline tree_math::RootCube cubeOf(const TreeControl& c) {
  const float lo[3] = {fromOrderedBits(c.lo[0]), fromOrderedBits(c.lo[1]), fromOrderedBits(c.lo[2])};
  const float hi[3] = {fromOrderedBits(c.hi[0]), fromOrderedBits(c.hi[1]), fromOrderedBits(c.hi[2])};
  return tree_math::rootCube(lo, hi);
}

__global__ void __launch_bounds__(kBlock) treeKeysKernel(TreeKeysArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.capacity) return;
  const tree_math::RootCube cube = cubeOf(*a.control);
  if (i == 0) {
    for (int k = 0; k < 3; ++k) a.control->cubeLo[k] = cube.lo[k];
    a.control->side = cube.side;
  }
  a.keys[i] = i < a.n ? tree_math::mortonKey(xyz(a.posMass[i]), cube) : tree_math::kPaddingKey;
  a.order[i] = i;
}

__global__ void __launch_bounds__(kBlock) treeGatherKernel(TreeGatherArgs a) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < a.n) a.sorted[s] = a.posMass[a.order[s]];
  if (s != 0) return;
  TreeControl& c = *a.control;
  a.nodes[0] = make_int4(0, a.n, 0, 0);
  c.nodeCount = 1;
  c.level = 0;
  c.depth = 0;
  c.overflow = 0;
  c.walkOverflow = 0;
  c.levelStart[0] = 0;
  c.levelStart[1] = 1;
  cudaGraphSetConditional(a.buildHandle, a.n > c.leafSize ? 1u : 0u);
  cudaGraphSetConditional(a.momentsHandle, a.n > 0 ? 1u : 0u);
}

// The first place in [from, end) whose octant below `level` is past `octant` (keys sorted: octants ascend).
__device__ inline int octantEnd(const unsigned long long* keys, int from, int end, int level, int octant) {
  int lo = from, hi = end;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (tree_math::octantBelow(keys[mid], level) <= octant) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

__global__ void __launch_bounds__(kBlock) treeSplitKernel(TreeSplitArgs a) {
  TreeControl& c = *a.control;
  const int level = c.level;
  if (level >= kTreeLevels) return;
  const int first = c.levelStart[level], last = c.levelStart[level + 1];
  for (int i = first + blockIdx.x * blockDim.x + threadIdx.x; i < last; i += gridDim.x * blockDim.x) {
    const int4 node = a.nodes[i];
    if (node.y - node.x <= c.leafSize) continue;
    int starts[9];
    int k = 0;
    for (int s = node.x; s < node.y; ++k) {
      starts[k] = s;
      s = octantEnd(a.keys, s + 1, node.y, level, tree_math::octantBelow(a.keys[s], level));
    }
    starts[k] = node.y;
    const int off = atomicAdd(&c.nodeCount, k);
    if (off + k > a.maxNodes) { // no room: the cell stays a leaf; slots below the capacity become empty leaves
      c.overflow = 1;
      for (int j = 0; j < k && off + j < a.maxNodes; ++j) a.nodes[off + j] = make_int4(0, 0, 0, 0);
      continue;
    }
    for (int j = 0; j < k; ++j) a.nodes[off + j] = make_int4(starts[j], starts[j + 1], 0, 0);
    a.nodes[i].z = off;
    a.nodes[i].w = k;
  }
}

__global__ void treeLevelKernel(TreeLevelArgs a) {
  TreeControl& c = *a.control;
  const int level = c.level;
  const int count = min(c.nodeCount, a.maxNodes);
  c.nodeCount = count;
  const bool grew = count > c.levelStart[level + 1];
  if (grew) {
    c.levelStart[level + 2] = count;
    c.level = level + 1;
  }
  c.depth = c.level;
  cudaGraphSetConditional(a.handle, grew && level + 1 < kTreeLevels ? 1u : 0u);
}

__global__ void __launch_bounds__(kBlock) treeCellsKernel(TreeCellsArgs a) {
  const TreeControl& c = *a.control;
  const int level = c.level;
  const tree_math::RootCube cube{{c.cubeLo[0], c.cubeLo[1], c.cubeLo[2]}, c.side};
  const float side = tree_math::cellSideFromRoot(cube.side, level);
  for (int i = c.levelStart[level] + blockIdx.x * blockDim.x + threadIdx.x; i < c.levelStart[level + 1];
       i += gridDim.x * blockDim.x) {
    const int4 node = a.nodes[i];
    const Vec3 centre = tree_math::cellCentre(node.y > node.x ? a.keys[node.x] : 0ull, level, cube);
    // A leaf from its bodies, a cell from its children (nbody_tree.cpp's nodeMoments).
    const tree_math::Moments mo =
        node.w == 0 ? tree_math::combineParts(
                          node.y - node.x,
                          [&](int k) {
                            const float4 p = a.sorted[node.x + k];
                            return tree_math::Part{p.w, xyz(p), {}};
                          },
                          centre)
                    : tree_math::combineParts(
                          node.w,
                          [&](int k) {
                            const float4 A = a.nodeA[node.z + k], B = a.nodeB[node.z + k], C = a.nodeC[node.z + k];
                            return tree_math::Part{B.x, xyz(A), {B.y, B.z, B.w, C.x, C.y, C.z}};
                          },
                          centre);
    // Its bounding cube (nbody_tree.cpp's nodeCube): around its bodies, or its children's cubes.
    tree_math::Box box{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    if (node.w == 0) {
      for (int k = node.x; k < node.y; ++k) box = tree_math::grow(box, xyz(a.sorted[k]));
    } else {
      for (int ch = node.z; ch < node.z + node.w; ++ch) {
        const float4 D = a.nodeD[ch];
        box = tree_math::growByCube(box, xyz(D), D.w);
      }
    }
    const tree_math::Cube cube = tree_math::cubeWithin(box, centre, side);
    const float r = tree_math::openingRadius(cube.side, c.invTheta, mo.c, cube.centre);
    a.nodeA[i] = make_float4(mo.c.x, mo.c.y, mo.c.z, r * r);
    a.nodeB[i] = make_float4(mo.m, mo.q[0], mo.q[1], mo.q[2]);
    a.nodeC[i] = make_float4(mo.q[3], mo.q[4], mo.q[5], tree_math::errorWeight(mo.m, cube.side));
    a.nodeD[i] = make_float4(cube.centre.x, cube.centre.y, cube.centre.z, cube.side);
  }
}

__global__ void treeUpKernel(TreeUpArgs a) {
  const int level = a.control->level - 1;
  a.control->level = level;
  cudaGraphSetConditional(a.handle, level >= 0 ? 1u : 0u);
}

// The walk's groups (tree_math::nodeGroups): each node of more than kWalkGroup bodies (and the root) appends its
// groups with one atomicAdd. Nodes are stored level by level, so the shallow levels' groups, whose boxes are the
// largest and whose walks the longest, tend to come first in the list and to be taken first.
__global__ void __launch_bounds__(kBlock) treeGroupsKernel(TreeGroupsArgs a) {
  const int count = min(a.control->nodeCount, a.maxNodes);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    const int4 node = a.nodes[i];
    const auto childRange = [&](int c) {
      const int4 child = a.nodes[c];
      return tree_math::Range{child.x, child.y};
    };
    int groups = 0;
    tree_math::nodeGroups(i == 0, {node.x, node.y}, node.z, node.w, childRange, [&](int, int) { ++groups; });
    if (groups == 0) continue;
    int slot = atomicAdd(&a.control->groupCount, groups);
    tree_math::nodeGroups(i == 0, {node.x, node.y}, node.z, node.w, childRange,
                          [&](int begin, int end) { a.groups[slot++] = make_int2(begin, end); });
  }
}

// The walk's per-warp work queues (shared memory): cells accepted and leaves opened, flushed 32 at a time; the data of
// the cells or bodies being applied, loaded by the lanes together and read by all of them.
struct WarpQueues {
  int cells[64];
  int2 leaves[64];
  int leafStart[65]; // leaves' first body in the flattened list of their bodies
  float4 cellA[32], cellB[32], cellC[32];
  float4 bodies[32];
};

__device__ inline unsigned lanesBelow(int lane) { return (1u << lane) - 1u; }

// The bodies a lane walks for: kPerLane of its warp's group (places first + k * 32 + lane), and their sums.
constexpr int kPerLane = tree_math::kWalkGroup / 32;
struct LaneBodies {
  Vec3 x[kPerLane];
  Vec3 acc[kPerLane];
};

// Applies queued cells [0, count) to every lane's body, then moves cells [count, count + rest) to the front. Full:
// count is 32 (the walk's flushes while it runs), a trip count the compiler knows.
template <bool Full>
__device__ void flushCells(WarpQueues& q, const TreeWalkArgs& a, int count, int rest, int lane, LaneBodies& b) {
  if (Full) count = 32;
  if (lane < count) {
    const int c = q.cells[lane];
    q.cellA[lane] = a.nodeA[c];
    q.cellB[lane] = a.nodeB[c];
    q.cellC[lane] = a.nodeC[c];
  }
  __syncwarp();
#pragma unroll 8
  for (int j = 0; j < count; ++j) {
    const float4 A = q.cellA[j], B = q.cellB[j], C = q.cellC[j];
    const float m2[6] = {B.y, B.z, B.w, C.x, C.y, C.z};
#pragma unroll
    for (int k = 0; k < kPerLane; ++k) b.acc[k] = tree_math::cellInteraction(b.acc[k], b.x[k], xyz(A), B.x, m2, a.eps2);
  }
  __syncwarp();
  if (lane < rest) q.cells[lane] = q.cells[count + lane];
  __syncwarp();
}

// Applies the bodies of queued leaves [0, count) to every lane's body, 32 bodies per round across leaves (a leaf of
// any size: a large one spans rounds), then moves leaves [count, count + rest) to the front.
__device__ void flushLeaves(WarpQueues& q, const TreeWalkArgs& a, int count, int rest, int lane, LaneBodies& b) {
  // Exclusive prefix of the leaves' sizes (two warp scans: count <= 64).
  int total = 0;
  for (int base = 0; base < count; base += 32) {
    const int l = base + lane;
    int size = l < count ? q.leaves[l].y - q.leaves[l].x : 0;
    for (int off = 1; off < 32; off <<= 1) {
      const int up = __shfl_up_sync(0xffffffffu, size, off);
      if (lane >= off) size += up;
    }
    if (l < count) q.leafStart[l + 1] = total + size;
    total += __shfl_sync(0xffffffffu, size, 31);
  }
  if (lane == 0) q.leafStart[0] = 0;
  __syncwarp();
  for (int round = 0; round < total; round += 32) {
    const int f = round + lane;
    if (f < total) {
      int lo = 0, hi = count - 1; // the leaf holding flattened body f: the last with leafStart <= f
      while (lo < hi) {
        const int mid = (lo + hi + 1) >> 1;
        if (q.leafStart[mid] <= f) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      q.bodies[lane] = a.sorted[q.leaves[lo].x + f - q.leafStart[lo]];
    }
    __syncwarp();
    const int m = min(32, total - round);
    for (int j = 0; j < m; ++j) {
      const float4 p = q.bodies[j];
#pragma unroll
      for (int k = 0; k < kPerLane; ++k) b.acc[k] = tree_math::bodyInteraction(b.acc[k], b.x[k], xyz(p), p.w, a.eps2);
    }
    __syncwarp();
  }
  if (lane < rest) q.leaves[lane] = q.leaves[count + lane];
  __syncwarp();
}

// A warp's group, sorted places [first, end): each lane's bodies (sums zeroed), the group's box, and the relative
// criterion's threshold from the group's smallest |a| of the previous step (read before the walk overwrites it).
__device__ void loadGroup(const TreeWalkArgs& a, int first, int end, int lane, LaneBodies& b, tree_math::Box& box,
                          float& threshold) {
  box = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
  float aMin = INFINITY;
#pragma unroll
  for (int k = 0; k < kPerLane; ++k) {
    const int s = first + k * 32 + lane;
    b.x[k] = xyz(a.sorted[s < end ? s : first]); // past the group: its first body (inside the box anyway)
    b.acc[k] = {0, 0, 0};
    box = tree_math::grow(box, b.x[k]);
    if (s < end) {
      const float4 old = a.accel[a.order[s]];
      aMin = fminf(aMin, tree_math::accelNorm(old.x, old.y, old.z));
    }
  }
  for (int off = 16; off > 0; off >>= 1) {
    box.lo = {fminf(box.lo.x, __shfl_xor_sync(0xffffffffu, box.lo.x, off)),
              fminf(box.lo.y, __shfl_xor_sync(0xffffffffu, box.lo.y, off)),
              fminf(box.lo.z, __shfl_xor_sync(0xffffffffu, box.lo.z, off))};
    box.hi = {fmaxf(box.hi.x, __shfl_xor_sync(0xffffffffu, box.hi.x, off)),
              fmaxf(box.hi.y, __shfl_xor_sync(0xffffffffu, box.hi.y, off)),
              fmaxf(box.hi.z, __shfl_xor_sync(0xffffffffu, box.hi.z, off))};
    aMin = fminf(aMin, __shfl_xor_sync(0xffffffffu, aMin, off));
  }
  threshold = tree_math::errorThreshold(a.tolerance, aMin, a.G);
}

// One warp per group (tree_groups: at most kWalkGroup consecutive sorted bodies), kPerLane a lane (the group criterion
// of nbody_tree.cpp's walkGroup: the same interactions, summed in another order). Up to 32 nodes of the warp's stack
// are tested at once, one per lane; accepted cells and opened leaves are queued and applied 32 at a time with every
// lane reading the same shared entry; opened cells push their children. Each warp takes the next group when it is done
// with one (TreeControl::walkNext).
__global__ void __launch_bounds__(kBlock, kWalkBlocksPerSm) treeWalkKernel(TreeWalkArgs a) {
  __shared__ WarpQueues queues[kWalkWarps];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  WarpQueues& q = queues[warp];
  const int warpIndex = blockIdx.x * kWalkWarps + warp;
  int* stack = a.stack + static_cast<long long>(warpIndex) * kWalkStack;
  const int groups = *a.groupCount;
  for (;;) {
    int group = 0;
    if (lane == 0) group = atomicAdd(a.walkNext, 1);
    group = __shfl_sync(0xffffffffu, group, 0);
    if (group >= groups) break;
    const int2 range = a.groups[group];
    const int first = range.x;
    LaneBodies b;
    tree_math::Box box;
    float threshold = 0;
    loadGroup(a, first, range.y, lane, b, box, threshold);
    if (lane == 0) stack[0] = 0;
    __syncwarp();
    int depth = 1, cells = 0, leaves = 0;
    while (depth > 0) {
      const int take = min(32, depth);
      depth -= take;
      const bool valid = lane < take;
      const int at = valid ? stack[depth + lane] : 0;
      __syncwarp(); // read before the pushes below overwrite
      const float4 A = valid ? a.nodeA[at] : make_float4(0, 0, 0, 0);
      const int4 node = valid ? a.nodes[at] : make_int4(0, 0, 0, 0);
      const float d2 = tree_math::boxDistance2(box, xyz(A));
      const float weight = valid && threshold > 0.0f ? a.nodeC[at].w : 0.0f; // loaded beside A, not after it
      const bool open = valid && (d2 < A.w || tree_math::openedForError(weight, threshold, d2));
      const bool cell = valid && !open, leaf = open && node.w == 0 && node.y > node.x, inner = open && node.w > 0;
      unsigned m = __ballot_sync(0xffffffffu, cell);
      if (cell) q.cells[cells + __popc(m & lanesBelow(lane))] = at;
      cells += __popc(m);
      m = __ballot_sync(0xffffffffu, leaf);
      if (leaf) q.leaves[leaves + __popc(m & lanesBelow(lane))] = make_int2(node.x, node.y);
      leaves += __popc(m);
      int children = inner ? node.w : 0;
      for (int off = 1; off < 32; off <<= 1) {
        const int up = __shfl_up_sync(0xffffffffu, children, off);
        if (lane >= off) children += up;
      }
      const int pushed = __shfl_sync(0xffffffffu, children, 31);
      if (depth + pushed > kWalkStack) { // cannot happen within the bound (tree_kernels.h); flagged, never silent
        if (lane == 0) atomicExch(a.walkOverflow, 1);
      } else {
        const int from = depth + children - (inner ? node.w : 0);
        for (int c = 0; inner && c < node.w; ++c) stack[from + c] = node.z + c;
        depth += pushed;
      }
      __syncwarp();
      if (cells >= 32) {
        flushCells<true>(q, a, 32, cells - 32, lane, b);
        cells -= 32;
      }
      if (leaves >= 32) {
        flushLeaves(q, a, 32, leaves - 32, lane, b);
        leaves -= 32;
      }
    }
    flushCells<false>(q, a, cells, 0, lane, b);
    flushLeaves(q, a, leaves, 0, lane, b);
#pragma unroll
    for (int k = 0; k < kPerLane; ++k) {
      const int s = first + k * 32 + lane;
      if (s < range.y) a.accel[a.order[s]] = make_float4(a.G * b.acc[k].x, a.G * b.acc[k].y, a.G * b.acc[k].z, 0.0f);
    }
  }
}

unsigned blocksFor(int threads) { return threads > 0 ? static_cast<unsigned>((threads + kBlock - 1) / kBlock) : 1u; }

template <typename Args>
KernelNodeSpec oneThread(void (*kernel)(Args), const Args& a) {
  return kernelSpecOf(kernel, a, 1, 1);
}

} // namespace

KernelNodeSpec treePrepareSpec(const TreePrepareArgs& a) { return oneThread(treePrepareKernel, a); }
KernelNodeSpec treeBoundsSpec(const TreeBoundsArgs& a) {
  // Enough blocks to fill the GPU; each thread strides over the rest.
  const unsigned blocks = blocksFor(a.n) < 1024u ? blocksFor(a.n) : 1024u;
  return KernelNodeSpec::make(reinterpret_cast<const void*>(treeBoundsKernel), dim3(blocks), dim3(kBlock), a);
}
KernelNodeSpec treeKeysSpec(const TreeKeysArgs& a) { return kernelSpecOf(treeKeysKernel, a, a.capacity, kBlock); }
KernelNodeSpec treeGatherSpec(const TreeGatherArgs& a) {
  return kernelSpecOf(treeGatherKernel, a, a.n > 0 ? a.n : 1, kBlock);
}
KernelNodeSpec treeSplitSpec(const TreeSplitArgs& a) {
  return KernelNodeSpec::make(reinterpret_cast<const void*>(treeSplitKernel), dim3(kLoopBlocks), dim3(kBlock), a);
}
KernelNodeSpec treeLevelSpec(const TreeLevelArgs& a) { return oneThread(treeLevelKernel, a); }
KernelNodeSpec treeCellsSpec(const TreeCellsArgs& a) {
  return KernelNodeSpec::make(reinterpret_cast<const void*>(treeCellsKernel), dim3(kLoopBlocks), dim3(kBlock), a);
}
KernelNodeSpec treeUpSpec(const TreeUpArgs& a) { return oneThread(treeUpKernel, a); }
KernelNodeSpec treeGroupsSpec(const TreeGroupsArgs& a) {
  return KernelNodeSpec::make(reinterpret_cast<const void*>(treeGroupsKernel), dim3(kLoopBlocks), dim3(kBlock), a);
}
KernelNodeSpec treeWalkSpec(const TreeWalkArgs& a) {
  // One warp per group, 8 warps a block; at least one block (no body: a launch that does nothing).
  const unsigned groupsBlocks = std::max(
      1u, static_cast<unsigned>((a.n + tree_math::kWalkGroup * kWalkWarps - 1) / (tree_math::kWalkGroup * kWalkWarps)));
  const unsigned blocks = groupsBlocks < static_cast<unsigned>(a.walkBlocks) ? groupsBlocks : a.walkBlocks;
  return KernelNodeSpec::make(reinterpret_cast<const void*>(treeWalkKernel), dim3(blocks), dim3(kBlock), a);
}

DeviceTree::DeviceTree(std::size_t capacity)
    : keys_(capacity), keysAlt_(capacity), order_(capacity), orderAlt_(capacity), sorted_(capacity),
      nodeA_(static_cast<std::size_t>(treeNodeCapacity(static_cast<std::int64_t>(capacity)))), nodeB_(nodeA_.size()),
      nodeC_(nodeA_.size()), nodeD_(nodeA_.size()), nodes_(nodeA_.size()), groups_(std::max<std::size_t>(capacity, 1)),
      control_(1), capacity_(static_cast<int>(capacity)), maxNodes_(static_cast<int>(nodeA_.size())) {
  CUDA_CHECK(cudaMemset(control_.get(), 0, sizeof(TreeControl)));
  cub::DoubleBuffer<unsigned long long> keys(keys_.get(), keysAlt_.get());
  cub::DoubleBuffer<int> order(order_.get(), orderAlt_.get());
  std::size_t tempBytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, tempBytes, keys, order, capacity_, 0, 3 * kTreeLevels));
  sortTemp_ = DeviceArray<unsigned char>(tempBytes);
  sortGraph_ = captureGraph(
      [&](cudaStream_t s) {
        CUDA_CHECK_CTX(
            cub::DeviceRadixSort::SortPairs(sortTemp_.get(), tempBytes, keys, order, capacity_, 0, 3 * kTreeLevels, s),
            "capturing the tree's sort");
      },
      "capturing the tree's sort");
  sortedInAlt_ = keys.selector != 0;
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  // As many blocks as are resident at once (the walk's launch bounds), each warp taking groups until none is left: the
  // stacks cost kWalkStack ints per resident warp, not per group.
  walkBlocks_ = kWalkBlocksPerSm * sms;
  walkStack_ = DeviceArray<int>(static_cast<std::size_t>(walkBlocks_) * kWalkWarps * kWalkStack);
}

TreeView DeviceTree::view() const {
  TreeView v;
  if (control_.get() == nullptr) return v;
  v.keys = sortedInAlt_ ? keysAlt_.get() : keys_.get();
  v.order = sortedInAlt_ ? orderAlt_.get() : order_.get();
  v.unsortedKeys = keys_.get();
  v.unsortedOrder = order_.get();
  v.sorted = sorted_.get();
  v.nodes = nodes_.get();
  v.nodeA = nodeA_.get();
  v.nodeB = nodeB_.get();
  v.nodeC = nodeC_.get();
  v.nodeD = nodeD_.get();
  v.groups = groups_.get();
  v.control = control_.get();
  v.capacity = capacity_;
  v.maxNodes = maxNodes_;
  v.walkStack = walkStack_.get();
  v.walkBlocks = walkBlocks_;
  v.sortGraph = sortGraph_.get();
  return v;
}

std::size_t DeviceTree::bytes() const {
  if (control_.get() == nullptr) return 0;
  return keys_.bytes() + keysAlt_.bytes() + order_.bytes() + orderAlt_.bytes() + sorted_.bytes() + nodeA_.bytes() +
         nodeB_.bytes() + nodeC_.bytes() + nodeD_.bytes() + nodes_.bytes() + groups_.bytes() + control_.bytes() +
         sortTemp_.bytes() + walkStack_.bytes();
}

TreeDeviceStats DeviceTree::stats() const {
  TreeControl c{};
  CUDA_CHECK(cudaMemcpy(&c, control_.get(), sizeof c, cudaMemcpyDeviceToHost));
  return {c.depth, c.nodeCount, c.overflow != 0, c.walkOverflow != 0};
}

} // namespace graphsim::cuda
