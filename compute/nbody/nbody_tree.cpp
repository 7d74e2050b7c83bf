// The tree code on the CPU (nbody_tree.h): the reference the CUDA kernels are tested against.
#include "compute/nbody/nbody_tree.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "compute/long_work.h"

namespace graphsim::tree {

using tree_math::Moments;
using tree_math::Vec3;

namespace {

Vec3 xyzOf(const Float4& p) { return {p.x, p.y, p.z}; }

// The children of `parent` (level `level`): one per non-empty octant, appended to nodes in octant order. Returns
// false, adding nothing, when they would not fit in maxNodes.
bool split(Tree& tree, int parent, int level, std::int64_t maxNodes) {
  const Node cell = tree.nodes[static_cast<std::size_t>(parent)];
  std::vector<Node> children;
  int start = cell.begin;
  while (start < cell.end) {
    const int octant = tree_math::octantBelow(tree.keys[static_cast<std::size_t>(start)], level);
    const auto past =
        std::partition_point(tree.keys.begin() + start, tree.keys.begin() + cell.end,
                             [&](std::uint64_t key) { return tree_math::octantBelow(key, level) <= octant; });
    const int stop = static_cast<int>(past - tree.keys.begin());
    children.push_back({start, stop, 0, 0, level + 1});
    start = stop;
  }
  if (static_cast<std::int64_t>(tree.nodes.size() + children.size()) > maxNodes) return false;
  Node& p = tree.nodes[static_cast<std::size_t>(parent)];
  p.firstChild = static_cast<int>(tree.nodes.size());
  p.children = static_cast<int>(children.size());
  tree.nodes.insert(tree.nodes.end(), children.begin(), children.end());
  return true;
}

// A leaf's bounding cube from its bodies, a cell's from its children's (tree_math::Cube, as the GPU's tree_cells).
tree_math::Cube nodeCube(const Tree& tree, const Node& node, Vec3 cellCentre, float cellSide) {
  tree_math::Box box{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
  if (node.children == 0) {
    for (int k = node.begin; k < node.end; ++k)
      box = tree_math::grow(box, xyzOf(tree.sorted[static_cast<std::size_t>(k)]));
  } else {
    for (int c = node.firstChild; c < node.firstChild + node.children; ++c) {
      const tree_math::Cube& ch = tree.cubes[static_cast<std::size_t>(c)];
      box = tree_math::growByCube(box, ch.centre, ch.side);
    }
  }
  return tree_math::cubeWithin(box, cellCentre, cellSide);
}

// A leaf's moments from its bodies, a cell's from its children (tree_math::combineParts, as the GPU's tree_cells).
Moments nodeMoments(const Tree& tree, const Node& node, Vec3 centre) {
  if (node.children == 0) {
    return tree_math::combineParts(
        node.end - node.begin,
        [&](int k) {
          const Float4& p = tree.sorted[static_cast<std::size_t>(node.begin) + static_cast<std::size_t>(k)];
          return tree_math::Part{p.w, xyzOf(p), {}};
        },
        centre);
  }
  return tree_math::combineParts(
      node.children,
      [&](int k) {
        const Moments& ch = tree.moments[static_cast<std::size_t>(node.firstChild) + static_cast<std::size_t>(k)];
        return tree_math::Part{ch.m, ch.c, {ch.q[0], ch.q[1], ch.q[2], ch.q[3], ch.q[4], ch.q[5]}};
      },
      centre);
}

// One group's walk (count <= kWalkGroup bodies from sorted place `first`): adds into acc[0 .. count). threshold: the
// relative criterion's (tree_math::errorThreshold).
WalkCounts walkGroup(const Tree& tree, int first, int count, float eps2, float threshold, Vec3* acc) {
  WalkCounts counts;
  Vec3 x[kWalkGroup];
  tree_math::Box box{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
  for (int i = 0; i < count; ++i) {
    x[i] = xyzOf(tree.sorted[static_cast<std::size_t>(first) + static_cast<std::size_t>(i)]);
    box = tree_math::grow(box, x[i]);
  }
  std::vector<int> stack{0};
  while (!stack.empty()) {
    const int at = stack.back();
    stack.pop_back();
    const Node& node = tree.nodes[static_cast<std::size_t>(at)];
    const Moments& mo = tree.moments[static_cast<std::size_t>(at)];
    const float d2 = tree_math::boxDistance2(box, mo.c);
    const bool open = d2 < tree.openRadius2[static_cast<std::size_t>(at)] ||
                      tree_math::openedForError(tree.errorWeight[static_cast<std::size_t>(at)], threshold, d2);
    if (!open) {
      for (int i = 0; i < count; ++i) acc[i] = tree_math::cellInteraction(acc[i], x[i], mo.c, mo.m, mo.q, eps2);
      counts.cells += count;
    } else if (node.children == 0) {
      for (int k = node.begin; k < node.end; ++k) {
        const Float4& p = tree.sorted[static_cast<std::size_t>(k)];
        for (int i = 0; i < count; ++i) acc[i] = tree_math::bodyInteraction(acc[i], x[i], xyzOf(p), p.w, eps2);
      }
      counts.bodies += static_cast<std::int64_t>(count) * (node.end - node.begin);
    } else {
      for (int c = node.children - 1; c >= 0; --c) stack.push_back(node.firstChild + c); // first child on top
    }
  }
  return counts;
}

} // namespace

void buildTree(const std::vector<Float4>& posMass, int leafSize, std::int64_t maxNodes, Tree& tree) {
  if (leafSize < 1) throw std::invalid_argument("leaf_size: must be at least 1");
  const auto n = posMass.size();
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (const Float4& p : posMass) {
    const float c[3] = {p.x, p.y, p.z};
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::fmin(lo[a], c[a]);
      hi[a] = std::fmax(hi[a], c[a]);
    }
  }
  tree.cube = tree_math::rootCube(lo, hi);
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = tree_math::mortonKey(xyzOf(posMass[i]), tree.cube);
  tree.order.resize(n);
  std::iota(tree.order.begin(), tree.order.end(), 0);
  // By key, equal keys in index order (CUB's stable radix sort's order), without stable_sort's temporary buffer.
  std::sort(tree.order.begin(), tree.order.end(), [&](int a, int b) {
    const std::uint64_t ka = keys[static_cast<std::size_t>(a)], kb = keys[static_cast<std::size_t>(b)];
    return ka < kb || (ka == kb && a < b);
  });
  tree.keys.resize(n);
  tree.sorted.resize(n);
  for (std::size_t s = 0; s < n; ++s) {
    const auto i = static_cast<std::size_t>(tree.order[s]);
    tree.keys[s] = keys[i];
    tree.sorted[s] = posMass[i];
  }
  tree.overflow = false;
  tree.nodes.assign(1, Node{0, static_cast<int>(n), 0, 0, 0});
  tree.levelStart.assign(1, 0);
  for (int level = 0, begin = 0;; ++level) {
    const int end = static_cast<int>(tree.nodes.size());
    tree.levelStart.push_back(end);
    if (level == tree_math::kLevels) break;
    for (int i = begin; i < end; ++i) {
      const Node& node = tree.nodes[static_cast<std::size_t>(i)];
      if (node.end - node.begin > leafSize && !split(tree, i, level, maxNodes)) tree.overflow = true;
    }
    if (static_cast<int>(tree.nodes.size()) == end) break;
    begin = end;
  }
}

void computeMoments(Tree& tree, float theta) {
  if (!(theta > 0.0f)) throw std::invalid_argument("theta: must be greater than 0");
  tree.moments.assign(tree.nodes.size(), Moments{});
  tree.openRadius2.assign(tree.nodes.size(), 0.0f);
  tree.errorWeight.assign(tree.nodes.size(), 0.0f);
  tree.cubes.assign(tree.nodes.size(), tree_math::Cube{});
  const float invTheta = 1.0f / theta;
  for (int level = tree.depth(); level >= 0; --level) {
    const float side = tree_math::cellSideFromRoot(tree.cube.side, level);
    for (int i = tree.levelStart[static_cast<std::size_t>(level)];
         i < tree.levelStart[static_cast<std::size_t>(level) + 1]; ++i) {
      const Node& node = tree.nodes[static_cast<std::size_t>(i)];
      const std::uint64_t key = node.end > node.begin ? tree.keys[static_cast<std::size_t>(node.begin)] : 0;
      const Vec3 centre = tree_math::cellCentre(key, level, tree.cube);
      Moments& mo = tree.moments[static_cast<std::size_t>(i)];
      mo = nodeMoments(tree, node, centre);
      const tree_math::Cube cube = tree.cubes[static_cast<std::size_t>(i)] = nodeCube(tree, node, centre, side);
      const float r = tree_math::openingRadius(cube.side, invTheta, mo.c, cube.centre);
      tree.openRadius2[static_cast<std::size_t>(i)] = r * r;
      tree.errorWeight[static_cast<std::size_t>(i)] = tree_math::errorWeight(mo.m, cube.side);
    }
  }
}

std::vector<tree_math::Range> walkGroups(const Tree& tree) {
  std::vector<tree_math::Range> groups;
  for (std::size_t i = 0; i < tree.nodes.size(); ++i) {
    const Node& node = tree.nodes[i];
    tree_math::nodeGroups(
        i == 0, {node.begin, node.end}, node.firstChild, node.children,
        [&](int c) {
          const Node& child = tree.nodes[static_cast<std::size_t>(c)];
          return tree_math::Range{child.begin, child.end};
        },
        [&](int begin, int end) {
          groups.push_back({begin, end});
        });
  }
  return groups;
}

WalkCounts treeForces(const Tree& tree, const NBodyParams& params, std::vector<Float4>& accel) {
  const auto n = static_cast<int>(tree.sorted.size());
  if (accel.size() != static_cast<std::size_t>(n)) accel.assign(static_cast<std::size_t>(n), Float4{});
  const float eps2 = params.softening * params.softening;
  const std::vector<tree_math::Range> list = walkGroups(tree);
  const int groups = static_cast<int>(list.size());
  std::int64_t cells = 0, bodies = 0;
  LongWork work;
  constexpr int kGroupsPerCheckpoint = 2048;
  for (int begin = 0; begin < groups; begin += kGroupsPerCheckpoint) {
    const int end = std::min(groups, begin + kGroupsPerCheckpoint);
#pragma omp parallel for schedule(dynamic, 8) reduction(+ : cells, bodies)
    for (int g = begin; g < end; ++g) {
      const int first = list[static_cast<std::size_t>(g)].begin;
      const int count = list[static_cast<std::size_t>(g)].end - first;
      float aMin = INFINITY; // the group's smallest |a| of the previous step, read before it is overwritten
      for (int i = 0; i < count; ++i) {
        const Float4& a =
            accel[static_cast<std::size_t>(tree.order[static_cast<std::size_t>(first) + static_cast<std::size_t>(i)])];
        aMin = std::fmin(aMin, tree_math::accelNorm(a.x, a.y, a.z));
      }
      Vec3 acc[kWalkGroup] = {};
      const WalkCounts c =
          walkGroup(tree, first, count, eps2, tree_math::errorThreshold(params.treeTolerance, aMin, params.G), acc);
      cells += c.cells;
      bodies += c.bodies;
      for (int i = 0; i < count; ++i) {
        accel[static_cast<std::size_t>(tree.order[static_cast<std::size_t>(first) + static_cast<std::size_t>(i)])] = {
            params.G * acc[i].x, params.G * acc[i].y, params.G * acc[i].z, 0.0f};
      }
    }
    if (end < groups) work.checkpoint(static_cast<double>(end) / static_cast<double>(groups));
  }
  return {cells, bodies};
}

TreeStats treeStats(const Tree& tree) {
  TreeStats s;
  s.depth = tree.depth();
  s.nodes = static_cast<std::int64_t>(tree.nodes.size());
  s.overflow = tree.overflow;
  for (const Node& node : tree.nodes) {
    if (node.children != 0) continue;
    ++s.leaves;
    s.largestLeaf = std::max<std::int64_t>(s.largestLeaf, node.end - node.begin);
  }
  return s;
}

ForceError forceError(const std::vector<Float4>& approx, const std::vector<Float4>& exact) {
  if (approx.size() != exact.size()) throw std::invalid_argument("forceError: arrays of different sizes");
  std::vector<double> errors;
  errors.reserve(exact.size());
  for (std::size_t i = 0; i < exact.size(); ++i) {
    const double ex = exact[i].x, ey = exact[i].y, ez = exact[i].z;
    const double norm = std::sqrt(ex * ex + ey * ey + ez * ez);
    if (!(norm > 0)) continue;
    const double dx = approx[i].x - ex, dy = approx[i].y - ey, dz = approx[i].z - ez;
    errors.push_back(std::sqrt(dx * dx + dy * dy + dz * dz) / norm);
  }
  ForceError e;
  e.bodies = static_cast<std::int64_t>(errors.size());
  if (errors.empty()) return e;
  const auto at = [&](double q) {
    const auto k = static_cast<std::size_t>(q * static_cast<double>(errors.size() - 1));
    std::nth_element(errors.begin(), errors.begin() + static_cast<std::ptrdiff_t>(k), errors.end());
    return errors[k];
  };
  e.median = at(0.5);
  e.p99 = at(0.99);
  e.max = *std::max_element(errors.begin(), errors.end());
  return e;
}

ForceError sampledForceError(const std::vector<Float4>& posMass, const std::vector<Float4>& approx,
                             const NBodyParams& params, std::int64_t samples) {
  const auto n = static_cast<std::int64_t>(posMass.size());
  if (static_cast<std::int64_t>(approx.size()) != n) throw std::invalid_argument("sampledForceError: sizes differ");
  samples = std::min(samples, n);
  std::vector<Float4> exact(static_cast<std::size_t>(samples)), picked(static_cast<std::size_t>(samples));
  const double eps2 = static_cast<double>(params.softening) * params.softening;
#pragma omp parallel for schedule(dynamic, 4)
  for (std::int64_t s = 0; s < samples; ++s) {
    const Float4 xi = posMass[static_cast<std::size_t>(s * n / samples)];
    double ax = 0, ay = 0, az = 0;
    for (const Float4& p : posMass) {
      const double dx = double(p.x) - xi.x, dy = double(p.y) - xi.y, dz = double(p.z) - xi.z;
      const double r2 = dx * dx + dy * dy + dz * dz + eps2;
      if (!(r2 > 0)) continue;
      const double w = p.w / (r2 * std::sqrt(r2));
      ax += dx * w;
      ay += dy * w;
      az += dz * w;
    }
    exact[static_cast<std::size_t>(s)] = {static_cast<float>(params.G * ax), static_cast<float>(params.G * ay),
                                          static_cast<float>(params.G * az), 0.0f};
    picked[static_cast<std::size_t>(s)] = approx[static_cast<std::size_t>(s * n / samples)];
  }
  return forceError(picked, exact);
}

} // namespace graphsim::tree
