// Live diagnostics on the CUDA backend (issue 15, docs/DIAGNOSTICS.md): the graph's diagnostics node against the CPU
// reference on the same state, its schedule (every K frames, the toggle, interval 0 = no node), every launch mode,
// and that no frame waits for a sample: the host reads it from mapped pinned memory once the GPU has run it.
//
// Tolerance against the CPU reference (computeDiagnostics, double pairs): the GPU's pair terms are float,
// 1 / sqrt(r^2 + eps^2) by the approximate rsqrt (about 2 ulp, 2.4e-7 relative), summed in float over a tile of 256
// bodies, the tiles in double. All of U's terms have one sign, so its relative error is at most the worst relative
// error of a term: 2.4e-7 if the rsqrt erred by 2 ulp on every pair in the same direction. An emulation on the CPU
// (float pairs, the same tiles) of Plummer and galaxy-pair states at 4,096 and 16,384 bodies gave 4e-9 to 1.1e-8 with
// correctly rounded terms and 1.0e-7 to 1.3e-7 with every term biased by 1 ulp. Bound: 1e-6 of |U| (and of |K| + |U|
// for E). K, P, L and the scales are double sums of the same float inputs on both sides, in another order: bound
// 1e-10 of their scales. Measured on an H100 (docs/DIAGNOSTICS.md): U 4.7e-9 to 3.2e-8, K <= 3.4e-15, P and L
// <= 1.5e-15.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "compute/nbody/nbody_cpu_backend.h"
#include "compute/nbody/nbody_cuda_backend.h"
#include "compute/nbody/nbody_cuda_instruments.h"
#include "compute/nbody/nbody_diagnostics.h"
#include "render/particle_renderer.h"
#include "render/vulkan_context.h"
#include "tests/gpu/gpu_test_support.h"

namespace graphsim {
namespace {

NBodyConfig sampled(const char* initial, std::int64_t bodies, int every) {
  NBodyConfig config = gputest::scene(initial, bodies);
  config.diagnosticsEvery = every;
  return config;
}

double distance(const double (&a)[3], const double (&b)[3]) {
  const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return magnitude(d);
}

void expectClose(const DiagnosticSums& gpu, const DiagnosticSums& cpu, const std::string& what) {
  const double scaleE = std::abs(cpu.kinetic) + std::abs(cpu.potential);
  std::printf("[ measured ] %s: U %.2e, K %.2e, E %.2e of |K|+|U|, P %.2e, L %.2e of their scales\n", what.c_str(),
              std::abs(gpu.potential / cpu.potential - 1), std::abs(gpu.kinetic / cpu.kinetic - 1),
              std::abs(gpu.total() - cpu.total()) / scaleE, distance(gpu.momentum, cpu.momentum) / cpu.momentumScale,
              distance(gpu.angularMomentum, cpu.angularMomentum) / cpu.angularMomentumScale);
  EXPECT_NEAR(gpu.potential, cpu.potential, 1e-6 * std::abs(cpu.potential)) << what;
  EXPECT_NEAR(gpu.total(), cpu.total(), 1e-6 * scaleE) << what;
  EXPECT_NEAR(gpu.kinetic, cpu.kinetic, 1e-10 * cpu.kinetic) << what;
  EXPECT_LE(distance(gpu.momentum, cpu.momentum), 1e-10 * cpu.momentumScale) << what;
  EXPECT_LE(distance(gpu.angularMomentum, cpu.angularMomentum), 1e-10 * cpu.angularMomentumScale) << what;
  EXPECT_NEAR(gpu.momentumScale, cpu.momentumScale, 1e-10 * cpu.momentumScale) << what;
  EXPECT_NEAR(gpu.angularMomentumScale, cpu.angularMomentumScale, 1e-10 * cpu.angularMomentumScale) << what;
}

struct Case {
  const char* initial;
  std::int64_t bodies; // 1000 and 40000: not multiples of the 256-body tiles; 40000: the symmetric forces kernel
};

TEST(DiagnosticsCuda, MatchTheCpuReferenceOnTheSameState) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  for (const Case c :
       {Case{"plummer", 1000}, Case{"galaxy-pair", 4096}, Case{"galaxy-pair", 16384}, Case{"plummer", 40000}}) {
    const std::string what = std::string(c.initial) + " " + std::to_string(c.bodies);
    NBodyCudaBackend sim(sampled(c.initial, c.bodies, 1), 0);
    sim.step();
    sim.step();
    const BodyState start = gputest::download(sim); // the state frame 2 starts from
    sim.step();                                     // frame 2: forces, then the sample of that state
    const std::optional<DiagnosticsSample> sample = sim.diagnostics();
    ASSERT_TRUE(sample.has_value()) << what;
    EXPECT_EQ(sample->frame, 2u) << what;
    // One substep: the accelerations left after frame 2 are its forces node's, at the positions of `start`.
    const DiagnosticSums cpu = computeDiagnostics(start, sim.downloadAccelerations(), sim.config().params);
    expectClose(sample->sums, cpu, what);
  }
}

TEST(DiagnosticsCuda, EveryLaunchModeGivesTheSameBits) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  std::optional<DiagnosticSums> graph;
  for (LaunchMode mode : {LaunchMode::Graph, LaunchMode::Programmatic, LaunchMode::Stream, LaunchMode::WholeUpdate,
                          LaunchMode::Reinstantiate}) {
    SCOPED_TRACE(std::string(launchModeName(mode)));
    NBodyCudaBackend sim(sampled("galaxy-pair", 2048, 3), 0);
    NBodyCudaInstruments::setLaunchMode(sim, mode);
    for (int k = 0; k < 7; ++k) sim.step(); // samples frames 0, 3, 6
    const std::optional<DiagnosticsSample> s = sim.diagnostics();
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->frame, 6u);
    if (!graph) {
      graph = s->sums;
      continue;
    }
    // The same kernels on the same state in the same order: the same bits (the sums' order is fixed by n).
    EXPECT_EQ(s->sums.total(), graph->total());
    EXPECT_EQ(s->sums.angularMomentum[2], graph->angularMomentum[2]);
  }
}

TEST(DiagnosticsCuda, SamplesOnScheduleAndTheToggleStopsThem) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyCudaBackend sim(sampled("plummer", 512, 4), 0);
  // The node: right after the first forces, togglable, no stage; its row shows the toggle, not this frame's state.
  const std::vector<NodeInfo>& nodes = sim.nodes();
  ASSERT_GE(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].name, "forces");
  EXPECT_EQ(nodes[1].name, kDiagnosticsNodeName);
  EXPECT_TRUE(nodes[1].diagnostics && nodes[1].togglable && nodes[1].enabled);
  EXPECT_EQ(nodes[1].step, -1);

  const UpdateCounters before = sim.counters();
  std::vector<std::uint64_t> seen;
  for (std::uint64_t k = 0; k < 10; ++k) {
    sim.step();
    const std::optional<DiagnosticsSample> s = sim.diagnostics();
    ASSERT_TRUE(s.has_value()) << "frame " << k;
    if (s->frame == k) seen.push_back(k);
  }
  EXPECT_EQ(seen, (std::vector<std::uint64_t>{0, 4, 8}));
  // The schedule's enables and frame updates are not edits: the counters do not move.
  EXPECT_EQ(sim.counters().nodeUpdates, before.nodeUpdates);
  EXPECT_EQ(sim.counters().enableToggles, before.enableToggles);

  sim.setDiagnosticsEnabled(false); // frames 10..13: frame 12 would sample
  EXPECT_FALSE(sim.nodes()[1].enabled);
  for (int k = 0; k < 4; ++k) sim.step();
  EXPECT_EQ(sim.diagnostics()->frame, 8u) << "off: no sample, the last stays readable";
  sim.setDiagnosticsEnabled(true); // frames 14..16: 16 samples
  for (int k = 0; k < 3; ++k) sim.step();
  EXPECT_EQ(sim.diagnostics()->frame, 16u);

  // Paused (dt 0) or forces off: no sample.
  NBodyParams paused = sim.config().params;
  paused.dt = 0.0f;
  sim.setParams(paused);
  for (int k = 0; k < 4; ++k) sim.step(); // 17..20
  EXPECT_EQ(sim.diagnostics()->frame, 16u);

  // A reset starts a series whose first sample is the next frame (21), not the next multiple of 4.
  const std::uint64_t series = sim.diagnostics()->series;
  sim.reset(sampled("plummer", 512, 4));
  EXPECT_FALSE(sim.diagnostics().has_value());
  sim.step();
  ASSERT_TRUE(sim.diagnostics().has_value());
  EXPECT_EQ(sim.diagnostics()->frame, 21u);
  EXPECT_NE(sim.diagnostics()->series, series);
}

TEST(DiagnosticsCuda, IntervalZeroHasNoNodeAndTurningThemOnRebuilds) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyCudaBackend sim(sampled("plummer", 512, 0), 0);
  ASSERT_EQ(sim.nodes().size(), static_cast<std::size_t>(stageInstanceCount(1)) + 1); // + report_blow_up
  for (const NodeInfo& n : sim.nodes()) EXPECT_FALSE(n.diagnostics) << n.name;
  sim.step();
  EXPECT_FALSE(sim.diagnostics().has_value());

  sim.reset(sampled("plummer", 512, 5)); // a node more: another topology, re-instantiated
  EXPECT_EQ(sim.nodes().size(), static_cast<std::size_t>(stageInstanceCount(1)) + 2);
  EXPECT_EQ(sim.counters().reinstantiations, 1u) << sim.counters().lastFallbackReason;
  EXPECT_NE(sim.counters().lastFallbackReason.find("diagnostics on"), std::string::npos)
      << sim.counters().lastFallbackReason;
  sim.step();
  EXPECT_TRUE(sim.diagnostics().has_value());
}

// The host never waits for a sample: launches and diagnostics() return while the GPU still runs the frame that takes
// it (at 131,072 bodies the forces and diagnostics kernels take milliseconds), and the sample appears once that
// frame has completed.
TEST(DiagnosticsCuda, NoFrameWaitsForTheSample) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyCudaBackend sim(sampled("galaxy-pair", 131072, 10), 0);
  const auto t0 = std::chrono::steady_clock::now();
  for (std::uint64_t k = 0; k < 3; ++k) sim.launchFrame(k); // frame 0 samples
  const std::optional<DiagnosticsSample> early = sim.diagnostics();
  const double hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const bool frame0Done = NBodyCudaInstruments::frameGpuMs(sim, 0).has_value();
  std::printf("[ measured ] 3 launches + diagnostics(): %.3f ms of host time; frame 0 %s when it returned\n", hostMs,
              frame0Done ? "had completed" : "still running");
  EXPECT_FALSE(frame0Done) << "the GPU finished three 131072-body frames during their launches?";
  EXPECT_FALSE(early.has_value()) << "a sample before its frame completed";
  NBodyCudaInstruments::waitForFrame(sim, 0);
  ASSERT_TRUE(sim.diagnostics().has_value());
  EXPECT_EQ(sim.diagnostics()->frame, 0u);
  sim.synchronize();
}

// The product path: the interop graph (F = 3) driven as the frame loop drives it. The sample of frame k is in host
// memory once simDone = k + 1 is signalled; the throttle of frame k + F implies that, so the host sees it, without
// any CUDA wait, at the latest when it launches frame k + F.
TEST(DiagnosticsCuda, InteropFramesSeeEachSampleThroughTheThrottle) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  constexpr std::uint32_t kF = 3;
  constexpr std::uint64_t kFrames = 40;
  const NBodyConfig config = sampled("plummer", 4096, 5);
  render::VulkanContext vk(gputest::interopRequest());
  {
    render::ParticleRenderer renderer(vk, gputest::exportedRendererConfig(64, 64, config.bodies, kF));
    const InteropDesc interop = renderer.exportInterop();
    NBodyCudaBackend sim(config, 0, &interop, std::chrono::milliseconds(5000));
    std::vector<std::pair<std::uint64_t, std::uint64_t>> seen; // (sampled frame, launch before which it was seen)
    for (std::uint64_t k = 0; k < kFrames; ++k) {
      renderer.waitForSlot(k);
      const std::optional<DiagnosticsSample> s = sim.diagnostics();
      if (s && (seen.empty() || seen.back().first != s->frame)) seen.emplace_back(s->frame, k);
      sim.launchFrame(k);
      gputest::submitRender(renderer, k, config.bodies);
    }
    renderer.drain();
    sim.synchronize();
    ASSERT_EQ(seen.size(), 8u); // frames 0, 5, ..., 35, none skipped
    for (std::size_t i = 0; i < seen.size(); ++i) {
      const auto [frame, at] = seen[i];
      EXPECT_EQ(frame, 5 * i);
      EXPECT_GT(at, frame);
      EXPECT_LE(at, frame + kF) << "sample of frame " << frame;
    }
    EXPECT_EQ(sim.diagnostics()->frame, 35u);
  }
  EXPECT_EQ(vk.validationMessages(), 0u);
}

// What a sample costs on the GPU (docs/DIAGNOSTICS.md): the diagnostics node's time beside the forces node's, from
// --profile's marks, on frames that sample.
TEST(DiagnosticsCuda, CostBesideTheForces) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  for (std::int64_t n : {4096, 16384, 65536, 131072}) {
    NBodyCudaBackend sim(sampled("galaxy-pair", n, 1), 0);
    ASSERT_TRUE(sim.setProfiling(true));
    for (int k = 0; k < 4; ++k) sim.step();
    double forces = -1, diagnostics = -1;
    for (const NodeInfo& node : sim.nodes()) {
      if (node.name == "forces") forces = node.ms;
      if (node.diagnostics) diagnostics = node.ms;
    }
    std::printf("[ measured ] N = %lld: diagnostics node %.4f ms, forces node %.4f ms\n", static_cast<long long>(n),
                diagnostics, forces);
    EXPECT_GT(diagnostics, 0.0);
    EXPECT_GT(forces, 0.0);
  }
}

} // namespace
} // namespace graphsim
