// The tree code's formulas (issue 33, docs/FORCES.md "The tree"), written once for the CPU reference
// (nbody_tree.cpp) and the CUDA kernels (cuda/tree_kernels.cu): the Morton key of a position, the octant of a key
// at a level, a cell's multipole moments (mass, centre of mass, second moment) and their combination, the
// opening radius and the relative criterion, and the two interactions of the walk (a body, a cell). Both floors
// evaluate the same expressions in the same order in float32; they still differ in the last bits (nvcc forms FMAs),
// which the tests absorb.
//
// Plain C++17 with no dependencies beyond <cmath> and compute/vec3.h; under nvcc every function is __host__ __device__.
#pragma once

#include <cmath>
#include <cstdint>

#include "compute/vec3.h"

namespace graphsim::tree_math {

using math::dot;
using math::Vec3;

// Levels below the root: a key holds 21 bits per axis (63 bits), so a cell at the deepest level is 2^-21 of the
// root's side. A cell at that level is a leaf whatever its count (all bodies at one point stop there).
inline constexpr int kLevels = 21;
inline constexpr float kCellsPerSide = 2097152.0f; // 2^21
// The most bodies that walk the tree together (a warp on the GPU, two bodies a lane): consecutive in sorted order,
// within one cell (nodeGroups).
inline constexpr int kWalkGroup = 64;
// Octree nodes' Morton keys are compared with this as "no body" (a padding slot of the sort: after every real key).
inline constexpr std::uint64_t kPaddingKey = (std::uint64_t{1} << 63) - 1;

// The root cube: its low corner and side. side > 0 even for one body (then the cube is tiny and every key 0).
struct RootCube {
  float lo[3];
  float side;
};
GRAPHSIM_HD inline RootCube rootCube(const float lo[3], const float hi[3]) {
  float extent = fmaxf(fmaxf(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]);
  extent = fmaxf(extent, 1e-30f); // NaN (no bounds) and 0 (one point) alike
  return {{lo[0], lo[1], lo[2]}, extent * 1.0001f};
}

// Spreads the low 21 bits of v so that bit k lands on bit 3k.
GRAPHSIM_HD inline std::uint64_t spreadBits(std::uint64_t v) {
  v &= 0x1fffffULL;
  v = (v | v << 32) & 0x1f00000000ffffULL;
  v = (v | v << 16) & 0x1f0000ff0000ffULL;
  v = (v | v << 8) & 0x100f00f00f00f00fULL;
  v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
  v = (v | v << 2) & 0x1249249249249249ULL;
  return v;
}

// The cell coordinate (0 .. 2^21 - 1) of x along one axis; a non-finite x lands in a corner cell (fmaxf/fminf drop
// NaN), never out of range.
GRAPHSIM_HD inline std::uint32_t cellCoordinate(float x, float lo, float scale) {
  const float q = fminf(fmaxf(floorf((x - lo) * scale), 0.0f), kCellsPerSide - 1.0f);
  return static_cast<std::uint32_t>(q);
}

// The 63-bit Morton key: x's bits at 3k + 2, y's at 3k + 1, z's at 3k. Sorting by it puts the bodies of every cell
// of every level in one contiguous range, children in octant order.
GRAPHSIM_HD inline std::uint64_t mortonKey(Vec3 p, const RootCube& cube) {
  const float scale = kCellsPerSide / cube.side;
  return spreadBits(cellCoordinate(p.x, cube.lo[0], scale)) << 2 |
         spreadBits(cellCoordinate(p.y, cube.lo[1], scale)) << 1 | spreadBits(cellCoordinate(p.z, cube.lo[2], scale));
}

// The octant (0..7) a key falls in among the children of its cell at `level` (the children are at level + 1).
GRAPHSIM_HD inline int octantBelow(std::uint64_t key, int level) {
  return static_cast<int>(key >> (3 * (kLevels - 1 - level)) & 7u);
}

// The bounding box of a walk's group of bodies, and the squared distance from it to a point (0 inside): a cell is
// opened for the whole group when its centre of mass is within its opening radius of the box (Bonsai's criterion),
// so each body of the group sees every cell at least as far as the box does.
struct Box {
  Vec3 lo, hi;
};
GRAPHSIM_HD inline Box grow(Box b, Vec3 p) {
  return {{fminf(b.lo.x, p.x), fminf(b.lo.y, p.y), fminf(b.lo.z, p.z)},
          {fmaxf(b.hi.x, p.x), fmaxf(b.hi.y, p.y), fmaxf(b.hi.z, p.z)}};
}
GRAPHSIM_HD inline float boxDistance2(const Box& b, Vec3 p) {
  const float dx = fmaxf(fmaxf(b.lo.x - p.x, p.x - b.hi.x), 0.0f);
  const float dy = fmaxf(fmaxf(b.lo.y - p.y, p.y - b.hi.y), 0.0f);
  const float dz = fmaxf(fmaxf(b.lo.z - p.z, p.z - b.hi.z), 0.0f);
  return dx * dx + dy * dy + dz * dz;
}

// A node's bounding cube, which its opening radius and error weight measure (Bonsai's tight boxes: bodies bunched
// in a corner of their cell are seen as small as they are): around its bodies' box (a leaf) or its children's
// cubes (a cell), within its geometric cell. side <= the cell's side; every body of the node lies in the cube.
struct Cube {
  Vec3 centre;
  float side;
};
GRAPHSIM_HD inline Box growByCube(Box b, Vec3 centre, float side) {
  const float h = 0.5f * side;
  return grow(grow(b, {centre.x - h, centre.y - h, centre.z - h}), {centre.x + h, centre.y + h, centre.z + h});
}
// The cube around box b clipped to the geometric cell (centre, side); the cell itself where b is empty.
GRAPHSIM_HD inline Cube cubeWithin(Box b, Vec3 cellCentre, float cellSide) {
  const float h = 0.5f * cellSide;
  if (!(b.lo.x <= b.hi.x && b.lo.y <= b.hi.y && b.lo.z <= b.hi.z)) return {cellCentre, cellSide};
  b.lo = {fmaxf(b.lo.x, cellCentre.x - h), fmaxf(b.lo.y, cellCentre.y - h), fmaxf(b.lo.z, cellCentre.z - h)};
  b.hi = {fminf(b.hi.x, cellCentre.x + h), fminf(b.hi.y, cellCentre.y + h), fminf(b.hi.z, cellCentre.z + h)};
  const float side = fmaxf(fmaxf(b.hi.x - b.lo.x, b.hi.y - b.lo.y), b.hi.z - b.lo.z);
  return {{0.5f * (b.lo.x + b.hi.x), 0.5f * (b.lo.y + b.hi.y), 0.5f * (b.lo.z + b.hi.z)}, side};
}

// A run of bodies in sorted order: [begin, end).
struct Range {
  int begin, end;
};

// The walk's groups that a node contributes (both floors; every body lands in exactly one group). A node of more than
// kWalkGroup bodies contributes its children of at most kWalkGroup, consecutive ones packed together while their sum
// fits (a child of more contributes its own), or, if it is a leaf (bodies at one point, or a cell the node store had
// no room for), its bodies in runs of kWalkGroup. The root contributes itself when it holds at most kWalkGroup.
// So a group never leaves the smallest cell of more than kWalkGroup bodies around it. 64 consecutive sorted bodies
// did, where the sort order steps from one cell to a far one: such a group's box spans the system, and at 1M
// Plummer bodies a few of those walked every body directly, 180 times an average group (docs/FORCES.md).
// childRange(c) gives node c's Range; emit(begin, end) takes each group.
template <typename ChildRange, typename Emit>
GRAPHSIM_HD inline void nodeGroups(bool root, Range node, int firstChild, int children, const ChildRange& childRange,
                                   const Emit& emit) {
  if (node.end - node.begin <= kWalkGroup) {
    if (root && node.end > node.begin) emit(node.begin, node.end);
    return;
  }
  if (children == 0) {
    for (int f = node.begin; f < node.end; f += kWalkGroup)
      emit(f, node.end - f < kWalkGroup ? node.end : f + kWalkGroup);
    return;
  }
  int from = -1, to = -1; // the pack being made (children are consecutive in sorted order)
  for (int c = firstChild; c < firstChild + children; ++c) {
    const Range r = childRange(c);
    const bool small = r.end - r.begin <= kWalkGroup;
    if (from >= 0 && (!small || r.end - from > kWalkGroup)) {
      emit(from, to);
      from = -1;
    }
    if (!small) continue;
    if (from < 0) from = r.begin;
    to = r.end;
  }
  if (from >= 0) emit(from, to);
}

// The side of a cell at `level` below a root of side rootSide.
GRAPHSIM_HD inline float cellSideFromRoot(float rootSide, int level) { return ldexpf(rootSide, -level); }

// The centre of the cell at `level` that holds key (from the key's prefix): what the opening radius measures the
// centre of mass against.
GRAPHSIM_HD inline Vec3 cellCentre(std::uint64_t key, int level, const RootCube& cube) {
  const int drop = kLevels - level; // low bits of each coordinate below this cell
  std::uint32_t c[3] = {0, 0, 0};
  for (int bit = drop; bit < kLevels; ++bit) {
    c[0] |= static_cast<std::uint32_t>(key >> (3 * bit + 2) & 1u) << bit;
    c[1] |= static_cast<std::uint32_t>(key >> (3 * bit + 1) & 1u) << bit;
    c[2] |= static_cast<std::uint32_t>(key >> (3 * bit) & 1u) << bit;
  }
  const float unit = cube.side / kCellsPerSide;
  const float half = 0.5f * cellSideFromRoot(cube.side, level);
  return {cube.lo[0] + static_cast<float>(c[0]) * unit + half, cube.lo[1] + static_cast<float>(c[1]) * unit + half,
          cube.lo[2] + static_cast<float>(c[2]) * unit + half};
}

// A cell's multipole moments about its centre of mass: mass m, centre c, and the second moment
// M2 = sum m_k d_k d_k^T, d_k = x_k - c, stored as (xx, yy, zz, xy, xz, yz). Not the traceless quadrupole
// 3 M2 - tr(M2) I of the unsoftened expansion: its trace term cancels only because the Laplacian of 1/r is zero,
// and that of the softened 1/sqrt(r^2 + eps^2) is not (cellInteraction).
struct Moments {
  float m = 0;
  Vec3 c = {0, 0, 0};
  float q[6] = {0, 0, 0, 0, 0, 0};
};

// Adds the second moment of a point mass m at d from the centre (a body, or a child's monopole).
GRAPHSIM_HD inline void addPointQuadrupole(float q[6], float m, Vec3 d) {
  q[0] += m * d.x * d.x;
  q[1] += m * d.y * d.y;
  q[2] += m * d.z * d.z;
  q[3] += m * d.x * d.y;
  q[4] += m * d.x * d.z;
  q[5] += m * d.y * d.z;
}

// What a cell's moments combine: its bodies (second moment 0) or its children.
struct Part {
  float m;
  Vec3 c;
  float q[6];
};
// A cell's moments from its `count` parts, partAt(k) giving part k (called twice per part: once for the centre of
// mass, once for the second moment about it). A massless cell keeps `centre` as its c.
template <typename PartAt>
GRAPHSIM_HD inline Moments combineParts(int count, const PartAt& partAt, Vec3 centre) {
  Moments mo;
  float mx = 0, my = 0, mz = 0;
  for (int k = 0; k < count; ++k) {
    const Part p = partAt(k);
    mo.m += p.m;
    mx += p.m * p.c.x;
    my += p.m * p.c.y;
    mz += p.m * p.c.z;
  }
  if (!(mo.m > 0.0f)) {
    mo.c = centre;
    return mo;
  }
  mo.c = {mx / mo.m, my / mo.m, mz / mo.m};
  for (int k = 0; k < count; ++k) {
    const Part p = partAt(k);
    for (int j = 0; j < 6; ++j) mo.q[j] += p.q[j];
    addPointQuadrupole(mo.q, p.m, p.c - mo.c);
  }
  return mo;
}

// The opening radius r of a node whose bounding cube (Cube) has this side and centre: a body at distance >= r from c
// sees the node as its moments; closer, the walk opens it. side / theta + delta (delta = |c - centre|: a centre of
// mass off the middle opens earlier), and at least the farthest a body inside the cube can be from c
// (sqrt(3)/2 side + delta), so no body ever uses its own node's moments whatever theta. Plus the rounding of c's
// coordinates (1e-6 of them): in a cell about as small as a float's resolution at its place (bodies at one point), c
// computed in float misses the bodies by more than side.
GRAPHSIM_HD inline float openingRadius(float side, float invTheta, Vec3 c, Vec3 centre) {
  const Vec3 off = c - centre;
  const float rounding = 1e-6f * (fabsf(c.x) + fabsf(c.y) + fabsf(c.z));
  return fmaxf(side * invTheta, 0.8660254f * side) + sqrtf(dot(off, off)) + rounding;
}

// The relative criterion (Gadget's): a cell that passes the opening radius is still opened when its next multipole
// term, estimated as m side^3 / d^5 (d: from the group's box to c), exceeds `threshold`, the tolerance times the
// group's smallest |a| of the previous step over G. The quadrupole leaves exactly that term out, and it matters most
// where a heavy body (a galaxy's centre) sits off-centre in a cell near bodies it dominates. errorWeight is the
// cell's m side^3, stored with its moments; threshold 0 (no previous step) leaves theta alone.
GRAPHSIM_HD inline float errorWeight(float m, float side) { return m * side * side * side; }
GRAPHSIM_HD inline bool openedForError(float weight, float threshold, float d2) {
  return threshold > 0.0f && weight > threshold * d2 * d2 * sqrtf(d2);
}
// The threshold for a group whose smallest |a| of the previous step (G included) was aMin. 0 (theta alone) where
// there was none: every |a| 0 before the first step, or G 0.
GRAPHSIM_HD inline float errorThreshold(float tolerance, float aMin, float G) {
  return G > 0.0f && aMin < INFINITY ? tolerance * aMin / G : 0.0f;
}
GRAPHSIM_HD inline float accelNorm(float x, float y, float z) { return sqrtf(x * x + y * y + z * z); }

// 1 / sqrt(r2): on the GPU the hardware's reciprocal square root (MUFU.RSQ, <= 2 ulp; an IEEE sqrt and division cost
// several times its instructions in the walk's inner loops), on the CPU the exact expression.
GRAPHSIM_HD inline float inverseSqrt(float r2) {
#if defined(__CUDA_ARCH__)
  float inv;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(inv) : "f"(r2)); // rsqrtf without its denormal scaling (r2 >= eps2)
  return inv;
#else
  return 1.0f / sqrtf(r2);
#endif
}

// acc += m_j (x_j - x_i) / (|x_j - x_i|^2 + eps2)^(3/2): one body (the direct sum's weight, nbody_math.h).
GRAPHSIM_HD inline Vec3 bodyInteraction(Vec3 acc, Vec3 xi, Vec3 xj, float mj, float eps2) {
  const Vec3 d = xj - xi;
  const float r2 = dot(d, d) + eps2;
  const float inv = inverseSqrt(r2);
  const float w = r2 > 0.0f ? mj * inv * inv * inv : 0.0f;
  return acc + d * w;
}

// A cell's monopole and quadrupole at body xi: the softened potential phi = -sum m_k / sqrt(|x - x_k|^2 + eps^2)
// expanded to second order about c. With d = xi - c and R^2 = |d|^2 + eps^2:
//   phi = -m / R - (3 d.M2.d / R^5 - tr M2 / R^3) / 2
//   acc += -m d / R^3 + 3 M2 d / R^5 - (15/2) (d.M2.d) d / R^7 + (3/2) tr(M2) d / R^5.
// q: M2 as (xx, yy, zz, xy, xz, yz).
GRAPHSIM_HD inline Vec3 cellInteraction(Vec3 acc, Vec3 xi, Vec3 c, float m, const float q[6], float eps2) {
  const Vec3 d = xi - c;
  const float r2 = dot(d, d) + eps2;
  const float inv = inverseSqrt(r2);
  const float inv2 = inv * inv;
  const float inv3 = inv * inv2;
  const float inv5 = inv3 * inv2;
  const Vec3 qd = {q[0] * d.x + q[3] * d.y + q[4] * d.z, q[3] * d.x + q[1] * d.y + q[5] * d.z,
                   q[4] * d.x + q[5] * d.y + q[2] * d.z};
  const float dqd = dot(d, qd);
  const float trace = q[0] + q[1] + q[2];
  const float radial = -m * inv3 + (1.5f * trace - 7.5f * dqd * inv2) * inv5;
  return acc + d * radial + qd * (3.0f * inv5);
}

} // namespace graphsim::tree_math
