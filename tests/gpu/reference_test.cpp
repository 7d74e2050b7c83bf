// Issue 3, tests 3-5: the CUDA backend against the CPU reference (same seed, same stage list), stage toggles and
// per-frame parameter updates, and structural changes (a substep count through re-instantiation, a body count within
// the capacity through kernel-node updates).
//
// Why CUDA and CPU differ at all, and by how much they may: both start from the same bodies (same host initial
// conditions; checked below); the CUDA backend computes a(0) with its forces kernel (LeapfrogStart::Device), so the
// half-step velocities differ in their last bits (LeapfrogStart::Host reproduces the CPU's start bit for bit, for the
// bit-exact test below). Every O(N) stage evaluates the same float expression
// (compute/nbody/nbody_math.h; the CUDA file is built without FMA contraction), so those stages agree bit for bit (the
// forces-off toggle test checks exactly that). Only forces differs: the merged CUDA kernel sums j in another order
// than the CPU (docs/FORCES.md), with rsqrtf (<= 2 ulp) and fused multiply-adds, so a_i differs in its last bits.
// Leapfrog turns an acceleration error delta_a into a position error ~ delta_a * t^2 / 2 (t = 0.15 after 100 steps
// of 0.0015), and chaotic growth multiplies it by e^(t / t_e); the shortest e-folding time here, close pairs at the
// softening length (eps = 0.025, m = 1/4096), is ~ sqrt(eps^3 / (G m)) ~ 0.25, longer than the run. So float noise
// stays float noise.
//
// Measured on an H200 (CUDA 13.0, driver 580) with the merged kernel: galaxy-pair N=4096, 100 steps: worst body
// 5.5e-6 = 1.66e-6 of the system scale (RMS radius 3.3), 99th percentile 2.4e-7 (7e-8 of the scale); the other
// comparisons below <= 7.2e-8 of the scale (the j-ordered kernel before it: 8.8e-8 and 9e-9). The tolerances are
// 1e-5 (worst body) and 1e-6 (99th percentile) of the scale: 6x and 14x the measured figures, room for other seeds
// and an odd close encounter; and still ~50x below the smallest real bug: a wrong, skipped or stale stage moves
// bodies by ~dt * |v| ~ 1.5e-3 (5e-4 of the scale) in a single frame, and more every frame after. Each test prints
// its figures ("[ measured ]") so the margins can be re-checked.
#include <gtest/gtest.h>

#include <cmath>

#include "compute/nbody/nbody_cpu_backend.h"
#include "compute/nbody/nbody_cuda_backend.h"
#include "tests/gpu/gpu_test_support.h"

namespace graphsim {
namespace {

using gputest::download;

constexpr double kMaxRelTolerance = 1e-5; // worst body, relative to the system scale
constexpr double kP99RelTolerance = 1e-6; // 99th percentile, relative to the system scale

void expectClose(const char* what, const BodyState& cuda, const BodyState& cpu) {
  ASSERT_EQ(cuda.size(), cpu.size()) << what;
  const StateDifference d = compareStates(cuda, cpu);
  gputest::report(what, d);
  EXPECT_LT(d.maxAbs, kMaxRelTolerance * d.scale) << what << ": body " << d.worst;
  EXPECT_LT(d.p99, kP99RelTolerance * d.scale) << what;
}

TEST(CudaVsCpu, GalaxyPair4096For100StepsAgreesWithinTolerance) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  const NBodyConfig config = gputest::scene("galaxy-pair", 4096, 11);
  NBodyCpuBackend cpu(config);
  NBodyCudaBackend cuda(config, 0); // the product's start: a(0) on the GPU (LeapfrogStart::Device)
  // Same bodies, bit for bit (both come from makeInitialConditions); the half-step velocities differ in the last
  // bits of a(0), float on the GPU against double on the host (LeapfrogStartTest checks how little).
  const StateDifference start = compareStates(download(cuda), download(cpu));
  EXPECT_EQ(start.maxAbs, 0.0) << "initial positions differ";
  for (int k = 0; k < 100; ++k) {
    cpu.step();
    cuda.step();
  }
  expectClose("galaxy-pair N=4096, 100 steps", download(cuda), download(cpu));
}

TEST(Toggles, DisablingIntegrateFreezesPositionsBitExactlyAndReenablingResumes) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = gputest::scene("plummer", 2048);
  config.substeps = 2;
  config.enabled[static_cast<int>(NBodyStage::Damping)] = true; // velocities keep changing while positions must not
  // The boundary stage projects an escaped body onto the sphere, which is not idempotent in float (the projected
  // point can sit an ulp outside and be projected again): put the sphere far outside this cluster so that, with
  // integrate off, nothing but integrate could move a body.
  config.params.boundaryRadius = 1e4f;
  NBodyCudaBackend cuda(config, 0);
  for (int k = 0; k < 3; ++k) cuda.step();

  const std::uint64_t togglesBefore = cuda.counters().enableToggles;
  cuda.setStageEnabled(NBodyStage::Integrate, false);
  EXPECT_FALSE(cuda.stageEnabled(NBodyStage::Integrate));
  EXPECT_EQ(cuda.counters().enableToggles - togglesBefore, 2u) << "one cudaGraphNodeSetEnabled per substep instance";
  const std::vector<NodeInfo> integrate = gputest::stageInstances(cuda.nodes(), NBodyStage::Integrate);
  ASSERT_EQ(integrate.size(), 2u);
  for (const NodeInfo& n : integrate) EXPECT_FALSE(n.enabled) << n.name << ": cudaGraphNodeGetEnabled != 0";
  for (const NodeInfo& n : gputest::stageInstances(cuda.nodes(), NBodyStage::Forces)) EXPECT_TRUE(n.enabled) << n.name;

  const BodyState frozen = download(cuda);
  for (int k = 0; k < 5; ++k) cuda.step();
  const BodyState after = download(cuda);
  ASSERT_EQ(after.size(), frozen.size());
  std::size_t moved = 0, velocityChanged = 0;
  for (std::size_t i = 0; i < after.size(); ++i) {
    moved += after.posMass[i] == frozen.posMass[i] ? 0 : 1;
    velocityChanged += after.vel[i] == frozen.vel[i] ? 0 : 1;
  }
  EXPECT_EQ(moved, 0u) << "positions changed with integrate disabled";
  EXPECT_GT(velocityChanged, 0u) << "the other stages should still run (damping changes velocities)";

  cuda.setStageEnabled(NBodyStage::Integrate, true);
  for (const NodeInfo& n : gputest::stageInstances(cuda.nodes(), NBodyStage::Integrate))
    EXPECT_TRUE(n.enabled) << n.name;
  cuda.step();
  const StateDifference resumed = compareStates(download(cuda), frozen);
  EXPECT_GT(resumed.maxAbs, 0.0) << "positions did not move after re-enabling integrate";
  EXPECT_TRUE(std::isfinite(resumed.maxAbs)) << "body " << resumed.worst << " is not finite"; // NaN counts as +inf
}

// Attractor toggled on both backends at the same frame. Without forces only the O(N) stages run, which agree bit
// for bit (see the top of this file), so this isolates the toggle itself; the second test keeps forces on. The
// bit-exact case starts from the host's a(0) (LeapfrogStart::Host), as the CPU backend does.
void runAttractorToggle(bool forces, const char* what) {
  NBodyConfig config = gputest::scene("plummer", 1024, 3);
  config.enabled[static_cast<int>(NBodyStage::Forces)] = forces;
  config.enabled[static_cast<int>(NBodyStage::Attractor)] = true;
  config.enabled[static_cast<int>(NBodyStage::Damping)] = true;
  config.params.attractorStrength = 20.0f; // strong: a missed toggle moves bodies far beyond the tolerance
  config.params.attractorPos[0] = 1.0f;
  config.params.attractorPos[1] = 0.5f;
  config.params.attractorPos[2] = -0.5f;
  NBodyCpuBackend cpu(config);
  const LeapfrogStart start = forces ? LeapfrogStart::Device : LeapfrogStart::Host;
  NBodyCudaBackend cuda(config, 0, nullptr, std::chrono::milliseconds(5000), start);
  NBodyCudaBackend untoggled(config, 0, nullptr, std::chrono::milliseconds(5000), start); // keeps the attractor on
  for (int k = 0; k < 15; ++k) {
    cpu.step();
    cuda.step();
    untoggled.step();
  }
  cpu.setStageEnabled(NBodyStage::Attractor, false);
  cuda.setStageEnabled(NBodyStage::Attractor, false);
  for (const NodeInfo& n : gputest::stageInstances(cuda.nodes(), NBodyStage::Attractor))
    EXPECT_FALSE(n.enabled) << n.name;
  for (int k = 0; k < 15; ++k) {
    cpu.step();
    cuda.step();
    untoggled.step();
  }
  const BodyState c = download(cuda);
  const BodyState reference = download(cpu);
  expectClose(what, c, reference);
  // Without forces every stage that ran is an O(N) stage built without FMA from the CPU's own expressions.
  if (!forces) {
    EXPECT_TRUE(compareStates(c, reference).bitIdentical) << "O(N) stages differ from the CPU";
  }
  const StateDifference effect = compareStates(c, download(untoggled));
  gputest::report("attractor off vs on (the toggle's effect)", effect);
  EXPECT_GT(effect.maxAbs, 100 * kMaxRelTolerance * effect.scale) << "disabling the attractor changed nothing";
  EXPECT_TRUE(std::isfinite(effect.maxAbs)) << "body " << effect.worst << " is not finite"; // NaN counts as +inf
}

TEST(Toggles, DisablingAttractorMatchesTheCpuBackendWithoutForces) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  runAttractorToggle(false, "attractor toggle, forces off, N=1024, 30 steps");
}

TEST(Toggles, DisablingAttractorMatchesTheCpuBackendWithForces) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  runAttractorToggle(true, "attractor toggle, forces on, N=1024, 30 steps");
}

// The per-frame parameter sequence both backends get in NodeUpdates tests.
NBodyParams paramsForFrame(NBodyParams p, int k) {
  p.dt = 0.001f + 0.00002f * static_cast<float>(k); // distinct every frame
  p.attractorPos[0] = 2.0f * std::cos(0.2f * static_cast<float>(k));
  p.attractorPos[1] = 2.0f * std::sin(0.2f * static_cast<float>(k));
  p.attractorPos[2] = 0.25f;
  return p;
}

// Frame k of that sequence on both backends: the same parameters, then one step each.
void stepBothWithParamsForFrame(NBodyCpuBackend& cpu, NBodyCudaBackend& cuda, const NBodyParams& base, int k) {
  const NBodyParams p = paramsForFrame(base, k);
  cpu.setParams(p);
  cuda.setParams(p);
  cpu.step();
  cuda.step();
}

TEST(NodeUpdates, PerFrameDtAndAttractorChangesMatchTheCpuWithoutReinstantiation) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = gputest::scene("galaxy-pair", 2048, 5);
  config.enabled[static_cast<int>(NBodyStage::Attractor)] = true;
  config.enabled[static_cast<int>(NBodyStage::Damping)] = true;
  NBodyCpuBackend cpu(config);
  NBodyCudaBackend cuda(config, 0);
  const UpdateCounters before = cuda.counters();
  double hostUs = 0;
  for (int k = 0; k < 50; ++k) {
    stepBothWithParamsForFrame(cpu, cuda, config.params, k);
    hostUs += cuda.lastUpdateHostUs();
  }
  expectClose("dt + attractor changed every frame, N=2048, 50 frames", download(cuda), download(cpu));
  const UpdateCounters after = cuda.counters();
  EXPECT_EQ(after.reinstantiations, 0u);
  EXPECT_EQ(after.wholeGraphUpdates, 0u);
  // dt reaches attractor, integrate and damping (its factor is exp(-damping dt)); the attractor position only the
  // attractor; forces, boundary, colour and write_render keep their arguments. One substep: 3 updates a frame.
  EXPECT_EQ(after.nodeUpdates - before.nodeUpdates, 50u * 3u);
  std::printf("[ measured ] 3 kernel-node updates per frame: %.2f us host time per frame (mean of 50)\n", hostUs / 50);
}

TEST(NodeUpdates, StructuralChangesUpdateOrReinstantiateAndKeepWorking) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = gputest::scene("plummer", 2048, 9);
  config.params.boundaryRadius = 1e4f; // see DisablingIntegrateFreezes...: integrate is switched off below
  NBodyCpuBackend cpu(config);
  NBodyCudaBackend cuda(config, 0);
  cuda.step();

  // Substeps 1 -> 2: a different topology, which cudaGraphExecUpdate must refuse; the backend says why.
  config.substeps = 2;
  config.enabled[static_cast<int>(NBodyStage::Attractor)] = true; // enable states come with the config
  cpu.reset(config);
  cuda.reset(config);
  UpdateCounters c = cuda.counters();
  EXPECT_EQ(c.reinstantiations + c.wholeGraphUpdates, 1u);
  if (c.reinstantiations == 1) {
    EXPECT_NE(c.lastFallbackReason.find("cudaGraphExecUpdate"), std::string::npos) << c.lastFallbackReason;
  }
  std::printf("[ measured ] substeps 1 -> 2: reinstantiations %llu, whole-graph updates %llu, reason: %s\n",
              static_cast<unsigned long long>(c.reinstantiations), static_cast<unsigned long long>(c.wholeGraphUpdates),
              c.lastFallbackReason.c_str());
  ASSERT_EQ(cuda.nodes().size(), 2u * 5u + 2u + 1u); // + report_blow_up
  for (const NodeInfo& n : gputest::stageInstances(cuda.nodes(), NBodyStage::Attractor))
    EXPECT_TRUE(n.enabled) << n.name;
  for (int k = 0; k < 10; ++k) {
    cpu.step();
    cuda.step();
  }
  expectClose("after substeps 1 -> 2, 10 frames", download(cuda), download(cpu));

  // Body count 2048 -> 1024 with integrate off: within the arrays' capacity (2048, the count they were built for),
  // so the same arrays with new counts and grids: kernel-node updates at the next launch, no whole-graph update and
  // no re-instantiation (issue 14; tests/gpu/capacity_test.cpp has the count changes and the beyond-capacity path).
  // Afterwards individual node updates (dt) and the toggle must still reach the exec.
  config.bodies = 1024;
  config.enabled[static_cast<int>(NBodyStage::Integrate)] = false;
  cpu.reset(config);
  cuda.reset(config);
  const UpdateCounters c2 = cuda.counters();
  EXPECT_EQ(c2.reinstantiations, c.reinstantiations);
  EXPECT_EQ(c2.wholeGraphUpdates, c.wholeGraphUpdates);
  std::printf("[ measured ] bodies 2048 -> 1024 within the capacity: reinstantiations %llu, whole-graph updates %llu\n",
              static_cast<unsigned long long>(c2.reinstantiations - c.reinstantiations),
              static_cast<unsigned long long>(c2.wholeGraphUpdates - c.wholeGraphUpdates));
  for (const NodeInfo& n : gputest::stageInstances(cuda.nodes(), NBodyStage::Integrate))
    EXPECT_FALSE(n.enabled) << n.name;
  const BodyState frozen = download(cuda);
  ASSERT_EQ(frozen.size(), 1024u);
  const std::uint64_t countUpdatesBefore = cuda.counters().nodeUpdates;
  cuda.step();
  EXPECT_GT(cuda.counters().nodeUpdates, countUpdatesBefore) << "the new count reaches the kernels as node updates";
  EXPECT_EQ(cuda.counters().wholeGraphUpdates, c.wholeGraphUpdates);
  EXPECT_TRUE(compareStates(download(cuda), frozen).maxAbs == 0.0) << "integrate disabled across the update";
  cpu.step();
  cpu.setStageEnabled(NBodyStage::Integrate, true);
  cuda.setStageEnabled(NBodyStage::Integrate, true);
  const std::uint64_t updatesBefore = cuda.counters().nodeUpdates;
  for (int k = 0; k < 10; ++k) stepBothWithParamsForFrame(cpu, cuda, config.params, k);
  EXPECT_GT(cuda.counters().nodeUpdates, updatesBefore);
  expectClose("after bodies 2048 -> 1024 and 10 frames of dt changes", download(cuda), download(cpu));
}

} // namespace
} // namespace graphsim
