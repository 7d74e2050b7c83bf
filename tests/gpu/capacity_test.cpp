// Issue 14, item 2: the body count as a node update. The CUDA backend's state arrays hold a capacity
// (NBodyConfig::maxBodies); a reset to a count within it (same substeps) uploads into the same arrays and changes the
// graph by kernel-node updates only (no cudaGraphExecUpdate, no instantiation). Beyond it the arrays are reallocated
// and the graph rebuilt (whole-graph update, or re-instantiation), with the reason recorded.
//
// Correctness: a backend whose count was changed within its capacity must run exactly as a fresh backend built with
// that count. Both start from the same host state and run the same kernels with the same counts and grids (the
// forces kernel sums in a fixed order that depends on n only), so they are compared bit for bit; the CPU reference
// checks the physics within the tolerance of reference_test.cpp.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "compute/nbody/nbody_cpu_backend.h"
#include "compute/nbody/nbody_cuda_backend.h"
#include "tests/gpu/gpu_test_support.h"

namespace graphsim {
namespace {

using gputest::download;

constexpr double kMaxRelTolerance = 1e-5; // as reference_test.cpp
constexpr double kP99RelTolerance = 1e-6;

NBodyConfig withBodies(NBodyConfig config, std::int64_t bodies) {
  config.bodies = bodies;
  return config;
}

// `steps` frames of `changed` against a fresh backend of its config (capacity = the count): bit for bit.
void expectSameAsFresh(const char* what, NBodyCudaBackend& changed, int steps) {
  NBodyConfig fresh = changed.config();
  fresh.maxBodies = 0;
  NBodyCudaBackend reference(fresh, 0);
  for (int k = 0; k < steps; ++k) {
    changed.step();
    reference.step();
  }
  const StateDifference d = compareStates(download(changed), download(reference));
  gputest::report(what, d);
  EXPECT_TRUE(d.sameSize) << what;
  EXPECT_TRUE(d.bitIdentical) << what << ": body " << d.worst << " differs by " << d.maxAbs;
}

// One in-capacity reset: no whole-graph update, no re-instantiation; the next launch updates every stage instance
// (each takes the count) and nothing else. Returns that launch's node-update host time (us).
double resetWithinCapacity(NBodyCudaBackend& cuda, const NBodyConfig& config) {
  const UpdateCounters before = cuda.counters();
  const std::int64_t capacity = cuda.capacity();
  cuda.reset(config);
  EXPECT_EQ(cuda.capacity(), capacity) << "the arrays were replaced";
  const UpdateCounters afterReset = cuda.counters();
  EXPECT_EQ(afterReset.wholeGraphUpdates, before.wholeGraphUpdates);
  EXPECT_EQ(afterReset.reinstantiations, before.reinstantiations);
  EXPECT_EQ(afterReset.nodeUpdates, before.nodeUpdates) << "node updates are applied at the next launch";
  cuda.step();
  const UpdateCounters after = cuda.counters();
  EXPECT_EQ(after.wholeGraphUpdates, before.wholeGraphUpdates);
  EXPECT_EQ(after.reinstantiations, before.reinstantiations);
  EXPECT_EQ(after.nodeUpdates - before.nodeUpdates, static_cast<std::uint64_t>(stageInstanceCount(config.substeps)))
      << "one kernel-node update per stage instance (all of them take the count)";
  return cuda.lastUpdateHostUs();
}

TEST(BodyCapacity, CountChangesWithinTheCapacityAreNodeUpdatesAndRunAsAFreshBackend) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = gputest::scene("plummer", 2048, 5);
  config.maxBodies = 4096;
  NBodyCudaBackend cuda(config, 0);
  EXPECT_EQ(cuda.capacity(), 4096);
  for (int k = 0; k < 3; ++k) cuda.step();

  // 2048 -> 1024 -> 4096 (the capacity itself) -> 2048, each compared with a fresh backend of that count.
  double hostUs = 0;
  int changes = 0;
  for (const std::int64_t bodies : {1024, 4096, 2048}) {
    hostUs += resetWithinCapacity(cuda, withBodies(config, bodies));
    ++changes;
    // The reset's first frame has run (resetWithinCapacity): restart both from the count's initial state.
    cuda.reset(withBodies(config, bodies));
    const std::string what = "count " + std::to_string(bodies) + " within the capacity 4096, 10 steps vs fresh";
    expectSameAsFresh(what.c_str(), cuda, 10);
  }
  std::printf(
      "[ measured ] body-count change within the capacity: %d kernel-node updates, %.2f us host time "
      "(mean of %d changes; issue 14 asks <= 10 us)\n",
      stageInstanceCount(config.substeps), hostUs / changes, changes);
  const UpdateCounters c = cuda.counters();
  EXPECT_EQ(c.wholeGraphUpdates, 0u);
  EXPECT_EQ(c.reinstantiations, 0u);
}

// The count change of reference_test.cpp's structural test, with two substeps, enable states and parameters that
// change with it, checked against the CPU reference.
TEST(BodyCapacity, CountChangeWithTogglesAndParametersMatchesTheCpu) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = gputest::scene("galaxy-pair", 2048, 9);
  config.substeps = 2;
  config.maxBodies = 2048;
  NBodyCpuBackend cpu(config);
  NBodyCudaBackend cuda(config, 0);
  for (int k = 0; k < 5; ++k) {
    cpu.step();
    cuda.step();
  }
  config.bodies = 1536;
  config.enabled[static_cast<int>(NBodyStage::Attractor)] = true;
  config.enabled[static_cast<int>(NBodyStage::Damping)] = true;
  config.params.dt = 0.001f;
  config.params.attractorPos[0] = 1.0f;
  cpu.reset(config);
  const UpdateCounters before = cuda.counters();
  cuda.reset(config);
  for (const NodeInfo& n : gputest::stageInstances(cuda.nodes(), NBodyStage::Attractor))
    EXPECT_TRUE(n.enabled) << n.name;
  for (int k = 0; k < 20; ++k) {
    cpu.step();
    cuda.step();
  }
  const UpdateCounters after = cuda.counters();
  EXPECT_EQ(after.wholeGraphUpdates, before.wholeGraphUpdates);
  EXPECT_EQ(after.reinstantiations, before.reinstantiations);
  EXPECT_GT(after.nodeUpdates, before.nodeUpdates);
  EXPECT_GT(after.enableToggles, before.enableToggles) << "attractor and damping on: cudaGraphNodeSetEnabled";
  const BodyState got = download(cuda);
  ASSERT_EQ(got.size(), 1536u);
  const StateDifference d = compareStates(got, download(cpu));
  gputest::report("galaxy-pair 2048 -> 1536 within the capacity, 2 substeps, 20 steps vs cpu", d);
  EXPECT_LT(d.maxAbs, kMaxRelTolerance * d.scale) << "body " << d.worst;
  EXPECT_LT(d.p99, kP99RelTolerance * d.scale);
}

TEST(BodyCapacity, BeyondTheCapacityReallocatesAndSaysWhy) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = gputest::scene("plummer", 1024, 3);
  config.maxBodies = 2048;
  NBodyCudaBackend cuda(config, 0);
  cuda.step();
  EXPECT_EQ(cuda.capacity(), 2048);

  cuda.reset(withBodies(config, 4096));
  const UpdateCounters c = cuda.counters();
  EXPECT_EQ(c.wholeGraphUpdates + c.reinstantiations, 1u) << "the existing fallback: update, else re-instantiation";
  EXPECT_NE(c.lastFallbackReason.find("body count 4096 exceeds the capacity 2048: buffers reallocated"),
            std::string::npos)
      << c.lastFallbackReason;
  std::printf(
      "[ measured ] bodies 1024 -> 4096 beyond the capacity 2048: whole-graph updates %llu, "
      "re-instantiations %llu, reason: %s\n",
      static_cast<unsigned long long>(c.wholeGraphUpdates), static_cast<unsigned long long>(c.reinstantiations),
      c.lastFallbackReason.c_str());
  EXPECT_EQ(cuda.capacity(), 4096) << "reallocated for max(bodies, maxBodies)";
  expectSameAsFresh("count 4096 beyond the capacity 2048, 5 steps vs fresh", cuda, 5);

  // The new arrays are the new capacity: back down to 2048 is node updates only.
  resetWithinCapacity(cuda, withBodies(config, 2048));
  cuda.reset(withBodies(config, 2048));
  expectSameAsFresh("count 2048 within the new capacity 4096, 5 steps vs fresh", cuda, 5);
}

TEST(BodyCapacity, SubstepChangeWithinTheCapacityStillRebuilds) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = gputest::scene("plummer", 1024, 4);
  config.maxBodies = 2048;
  NBodyCudaBackend cuda(config, 0);
  cuda.step();
  config.substeps = 3;
  cuda.reset(config);
  const UpdateCounters c = cuda.counters();
  EXPECT_EQ(c.reinstantiations, 1u) << "another topology";
  EXPECT_EQ(c.lastFallbackReason.find("exceeds the capacity"), std::string::npos) << c.lastFallbackReason;
  EXPECT_EQ(cuda.capacity(), 2048);
  expectSameAsFresh("substeps 1 -> 3 within the capacity, 5 steps vs fresh", cuda, 5);
}

} // namespace
} // namespace graphsim
