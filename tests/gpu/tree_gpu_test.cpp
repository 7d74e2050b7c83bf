// Issue 33: forces: tree on CUDA (compute/nbody/cuda/tree_kernels.cu) against the CPU tree (compute/nbody/nbody_tree.h)
// and against direct summation; theta and the leaf size as node updates; the forces toggle; degenerate inputs that
// must end the build's WHILE loop; a body count changed within the capacity.
//
// How close CUDA and the CPU tree must be: both build the same tree (same keys, same stable sort, same split rule)
// and walk it in the same order with the same formulas (tree_math.h); the GPU forms FMAs, so a moment or a distance
// differs in its last bits, and a cell whose distance to a group's box sits within that of its opening radius is
// opened on one floor and not on the other: that body's force then differs by the multipole error (~1e-4), not by
// rounding. So the test bounds the 99th percentile tightly (1e-5 relative) and the worst body loosely (1e-2). The
// relative criterion's threshold (from the previous step's accelerations) is a second such edge: both floors start
// from the same accelerations (sameStart).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "compute/nbody/nbody_cpu_backend.h"
#include "compute/nbody/nbody_cpu_stages.h"
#include "compute/nbody/nbody_cuda_backend.h"
#include "compute/nbody/nbody_tree.h"
#include "tests/gpu/gpu_test_support.h"

namespace graphsim {
namespace {

// Forces only: positions stay, so one step computes a(x0) on both floors.
NBodyConfig forcesOnly(const char* initial, std::int64_t bodies) {
  NBodyConfig config = gputest::scene(initial, bodies, 5);
  config.forces = NBodyForces::Tree;
  config.enabled.fill(false);
  config.enabled[static_cast<int>(NBodyStage::Forces)] = true;
  config.enabled[static_cast<int>(NBodyStage::WriteRender)] = true;
  return config;
}

std::vector<Float4> directAccel(const BodyState& state, const NBodyParams& params) {
  cpu::ForceScratch scratch;
  std::vector<Float4> accel;
  cpu::computeForces(state.posMass, params, scratch, accel);
  return accel;
}

// Both floors from CUDA's start, a(0) included: the relative criterion's threshold comes from the previous step's
// accelerations, and the CPU backend starts from a direct sum's (nbody_cpu_backend.cpp), CUDA from the tree's.
void sameStart(NBodyCudaBackend& cuda, NBodyCpuBackend& cpu) {
  const BodyState state = gputest::download(cuda);
  const std::vector<Float4> accel = cuda.downloadAccelerations();
  cpu.setState(state, accel);
  cuda.setState(state, accel);
}

void printError(const char* what, const tree::ForceError& e) {
  std::printf("[ measured ] %s: relative force error median %.2e, p99 %.2e, max %.2e over %lld bodies\n", what,
              e.median, e.p99, e.max, static_cast<long long>(e.bodies));
}

class TreeGpu : public ::testing::TestWithParam<const char*> {};

TEST_P(TreeGpu, AccelerationsMatchTheCpuTreeAndDirectSummationWithinTheTreeError) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  const NBodyConfig config = forcesOnly(GetParam(), 16384);
  NBodyCpuBackend cpu(config);
  NBodyCudaBackend cuda(config, 0);
  sameStart(cuda, cpu);
  cpu.step();
  cuda.step();
  const std::vector<Float4> a = cuda.downloadAccelerations();
  const tree::ForceError vsCpu = tree::forceError(a, cpu.downloadAccelerations());
  printError("CUDA tree against the CPU tree", vsCpu);
  EXPECT_LT(vsCpu.p99, 1e-5);
  EXPECT_LT(vsCpu.max, 1e-2);
  const tree::ForceError vsDirect = tree::forceError(a, directAccel(gputest::download(cuda), config.params));
  printError("CUDA tree (theta 0.5, the default tolerance) against direct summation", vsDirect);
  EXPECT_LT(vsDirect.p99, 1e-3);   // issue 33's bound
  EXPECT_GT(vsDirect.median, 0.0); // it is an approximation: a zero error would mean the tree was not used
  const std::optional<NBodyCudaBackend::TreeStats> stats = cuda.treeStats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_FALSE(stats->overflow);
  EXPECT_FALSE(stats->walkOverflow);
  EXPECT_GT(stats->depth, 3);
  EXPECT_LE(stats->depth, tree_math::kLevels);
}
INSTANTIATE_TEST_SUITE_P(Presets, TreeGpu, ::testing::Values("galaxy-pair", "plummer"));

TEST(TreeGpuGraph, ThetaAndLeafSizeAreNodeUpdatesAndTheToggleStopsTheForces) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = forcesOnly("plummer", 8192);
  NBodyCudaBackend cuda(config, 0);
  cuda.step();
  const BodyState state = gputest::download(cuda);
  const std::vector<Float4> exact = directAccel(state, config.params);
  const double at05 = tree::forceError(cuda.downloadAccelerations(), exact).median;
  const UpdateCounters before = cuda.counters();

  NBodyParams p = config.params;
  p.theta = 0.25f;
  p.leafSize = 8;
  cuda.setParams(p);
  cuda.step();
  const double at025 = tree::forceError(cuda.downloadAccelerations(), exact).median;
  std::printf("[ measured ] median error theta 0.5: %.2e, theta 0.25 leaf 8: %.2e\n", at05, at025);
  EXPECT_LT(at025, 0.5 * at05);
  EXPECT_GE(cuda.counters().nodeUpdates - before.nodeUpdates, 1u);
  EXPECT_EQ(cuda.counters().reinstantiations, before.reinstantiations);
  EXPECT_EQ(cuda.counters().wholeGraphUpdates, before.wholeGraphUpdates);

  // Toggled off, every tree kernel and the walk are disabled and the loops' conditions stay 0: a(t) stays.
  const std::vector<Float4> kept = cuda.downloadAccelerations();
  cuda.setStageEnabled(NBodyStage::Forces, false);
  p.theta = 0.9f;
  cuda.setParams(p);
  cuda.step();
  EXPECT_EQ(cuda.downloadAccelerations(), kept);
  int treeNodes = 0;
  for (const NodeInfo& n : cuda.nodes()) {
    if (n.name.rfind("tree_", 0) != 0) continue;
    ++treeNodes;
    if (n.type == "kernel") {
      EXPECT_FALSE(n.enabled) << n.name;
    }
  }
  EXPECT_EQ(treeNodes, 8); // prepare, bounds, keys, sort, gather, build, moments, groups
  cuda.setStageEnabled(NBodyStage::Forces, true);
  cuda.step();
  EXPECT_NE(cuda.downloadAccelerations(), kept);
}

TEST(TreeGpuGraph, ACountChangeWithinTheCapacityIsANodeUpdate) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = forcesOnly("galaxy-pair", 8192);
  config.maxBodies = 16384;
  NBodyCudaBackend cuda(config, 0);
  cuda.step();
  const UpdateCounters before = cuda.counters();
  config.bodies = 12000;
  cuda.reset(config);
  NBodyCpuBackend cpu(config);
  sameStart(cuda, cpu);
  cuda.step();
  cpu.step();
  EXPECT_EQ(cuda.counters().reinstantiations, before.reinstantiations);
  const tree::ForceError e = tree::forceError(cuda.downloadAccelerations(), cpu.downloadAccelerations());
  printError("12,000 bodies in arrays for 16,384, against the CPU tree", e);
  EXPECT_LT(e.p99, 1e-5);
}

// The build's WHILE ends on inputs that would not end a loop "until every leaf is small": every body at one point
// (the deepest level stops it), two tight clusters far apart, a single body, no body.
TEST(TreeGpuGraph, DegenerateInputsEndTheBuildAndGiveTheCpuTreesForces) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = forcesOnly("plummer", 600);
  config.params.softening = 1e-3f;
  NBodyCudaBackend cuda(config, 0);
  NBodyCpuBackend cpu(config);
  const auto check = [&](const char* what, const BodyState& state) -> int {
    config.bodies = static_cast<std::int64_t>(state.size());
    cuda.reset(config); // within the capacity: the same graph, a new count
    cpu.reset(config);
    const std::vector<Float4> zero(state.size());
    cuda.setState(state, zero);
    cpu.setState(state, zero);
    cuda.step();
    cpu.step();
    const std::vector<Float4> a = cuda.downloadAccelerations(), b = cpu.downloadAccelerations();
    EXPECT_EQ(a.size(), state.size()) << what;
    for (const Float4& v : a) EXPECT_TRUE(std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z)) << what;
    const tree::ForceError e = tree::forceError(a, b);
    printError(what, e);
    EXPECT_LT(e.max, 1e-4) << what;
    const std::optional<NBodyCudaBackend::TreeStats> stats = cuda.treeStats();
    if (!stats) {
      ADD_FAILURE() << what << ": no tree";
      return -1;
    }
    EXPECT_LE(stats->depth, tree_math::kLevels) << what;
    EXPECT_FALSE(stats->walkOverflow) << what;
    return stats->depth;
  };
  BodyState point;
  point.posMass.assign(600, Float4{0.25f, -0.5f, 1.0f, 1.0f / 600});
  point.vel.assign(600, Float4{});
  EXPECT_EQ(check("600 bodies at one point", point), tree_math::kLevels); // the deepest level ends the loop
  BodyState clusters;
  clusters.posMass.reserve(600);
  clusters.vel.reserve(600);
  for (int i = 0; i < 600; ++i) {
    const float s = 1e-3f * static_cast<float>(i % 17) / 17.0f, t = 1e-3f * static_cast<float>(i % 13) / 13.0f;
    clusters.posMass.push_back({(i < 300 ? 0.0f : 1e4f) + s, t, s - t, 1.0f / 600});
    clusters.vel.push_back({});
  }
  check("two clusters 1e4 apart", clusters);
  BodyState one;
  one.posMass.push_back({3, 2, 1, 1});
  one.vel.push_back({});
  check("one body", one);
  check("no body", BodyState{});
}

} // namespace
} // namespace graphsim
