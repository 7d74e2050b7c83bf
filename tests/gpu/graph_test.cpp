// GPU tests (label "gpu"): the CUDA backend, its frame graph and the Vulkan<->CUDA interop, on a real device.
//
// README — running them
//   On a machine with an NVIDIA GPU, driver and Vulkan ICD (the H100/H200 machine), from the repository root:
//       source .devrt/env.sh && build/bin/gpu_tests
//   (or `ctest --test-dir build -L gpu --output-on-failure`). Every test first asks listCudaDevices(); without a
//   CUDA device (CI, laptops) it is reported as SKIPPED with the reason ("no CUDA driver ...", "no CUDA device").
//   The interop tests also need the Khronos validation layer (they run with validation on and require zero
//   messages) and a Vulkan device whose UUID equals CUDA device 0's.
//   Lines starting with "[ measured ]" are the figures the tolerances in reference_test.cpp were set from.
//   Sanitizers (issue 3 test 7): `compute-sanitizer --tool memcheck build/bin/gpu_tests` and `--tool synccheck` run
//   the whole binary in about a minute each; racecheck instruments every shared-memory access of the forces tiles
//   and takes minutes per test, so give it a filter, e.g.
//   --gtest_filter='NBodyFrameGraph.*:Interop.*:Toggles.DisablingAttractorMatchesTheCpuBackendWithoutForces'.
//
// This file: issue 3 test 2 (graph shape), the DOT dump, compute-only stepping without leaks, and two checks that
// also run without a GPU (device listing, fd ownership on a failed construction).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compute/cuda_device.h"
#include "compute/nbody/nbody_cuda_backend.h"
#include "render/particle_renderer.h"
#include "tests/gpu/gpu_test_support.h"

namespace graphsim {
namespace {

// The stages that run once per substep, in execution order: the stage table's first rows (nbody.h).
constexpr auto kSubstepStages = [] {
  std::array<NBodyStage, kSubstepStageCount> stages{};
  for (std::size_t i = 0; i < stages.size(); ++i) stages[i] = kNBodyStages[i].stage;
  return stages;
}();

// Runs on every machine: the listing never throws and explains an empty list.
TEST(CudaDevices, ListingNeverThrowsAndExplainsAnEmptyList) {
  const CudaDeviceList list = listCudaDevices();
  std::printf("[ measured ] CUDA driver %d, runtime %d, %zu device(s)%s%s\n", list.driverVersion, list.runtimeVersion,
              list.devices.size(), list.devices.empty() ? ": " : "", list.whyNone.c_str());
  EXPECT_GT(list.runtimeVersion, 0);
  if (list.devices.empty()) {
    EXPECT_FALSE(list.whyNone.empty());
    return;
  }
  for (const CudaDeviceInfo& d : list.devices) {
    EXPECT_FALSE(d.name.empty());
    EXPECT_NE(d.uuid, (std::array<std::uint8_t, 16>{})) << d.name << " has an all-zero UUID";
    EXPECT_GT(d.multiprocessors, 0);
  }
}

// Runs on every machine: the constructor owns the interop fds, so every one is closed when it throws —
// EnvironmentError without a GPU, std::invalid_argument (5 frames in flight) with one.
TEST(CudaBackendSetup, ClosesEveryInteropFdWhenConstructionFails) {
  InteropDesc interop;
  std::vector<int> fds;
  for (int i = 0; i < 7; ++i) fds.push_back(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  for (int i = 0; i < 5; ++i) interop.renderBuffers.push_back({fds[i], 4096, 0, 4096, false});
  interop.simDoneFd = fds[5];
  interop.renderDoneFd = fds[6];
  EXPECT_ANY_THROW(NBodyCudaBackend(gputest::scene("plummer", 64), 0, &interop));
  for (int fd : fds) EXPECT_EQ(::fcntl(fd, F_GETFD), -1) << "fd " << fd << " was left open";
}

TEST(NBodyFrameGraph, ComputeOnlyGraphIsTheStageChainWithoutSemaphoreNodes) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = gputest::scene("plummer", 1000);
  config.substeps = 2;
  NBodyCudaBackend sim(config, 0);
  const std::vector<NodeInfo> nodes = sim.nodes();
  ASSERT_EQ(nodes.size(), 2u * 5u + 2u + 1u);
  for (const NodeInfo& n : nodes) EXPECT_EQ(n.type, "kernel") << n.name;
  EXPECT_EQ(nodes.front().name, "forces");
  EXPECT_EQ(nodes[5].name, "forces#1");
  EXPECT_EQ(nodes[nodes.size() - 2].name, "write_render");
  // Blow-up detection's report node closes the chain; it is no stage and cannot be disabled.
  EXPECT_EQ(nodes.back().name, "report_blow_up");
  EXPECT_FALSE(nodes.back().togglable);
  EXPECT_TRUE(nodes.back().enabled);
  EXPECT_NE(nodes.back().whyNotTogglable.find("blow-up"), std::string::npos) << nodes.back().whyNotTogglable;
  // Enable states as configured (attractor and damping off by default), read back from the exec.
  for (int s = 0; s < kStageCount; ++s) {
    for (const NodeInfo& n : gputest::stageInstances(nodes, static_cast<NBodyStage>(s))) {
      EXPECT_EQ(n.enabled, config.enabled[s]) << n.name;
    }
  }
}

// NodeInfo carries the stage and substep of every stage instance, in the stage table's execution order; the report
// node and the timing marks carry none. The list is one cached vector: reading it again, after a toggle or after a
// profiled frame reuses its storage, with the exec's read-back enable states.
TEST(NBodyFrameGraph, NodesCarryStageAndSubstepFromOneCachedList) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = gputest::scene("plummer", 256);
  config.substeps = 3;
  NBodyCudaBackend sim(config, 0);
  const std::vector<NodeInfo>& nodes = sim.nodes();
  ASSERT_EQ(nodes.size(), static_cast<std::size_t>(stageInstanceCount(3)) + 1); // + report_blow_up
  std::size_t i = 0;
  forEachStageInstance(3, [&](NBodyStage stage, int substep) {
    const NodeInfo& n = nodes[i++];
    EXPECT_EQ(stageOf(n), stage) << n.name;
    EXPECT_EQ(n.substep, substep) << n.name;
    EXPECT_EQ(n.name, stageInstanceName(stage, substep));
    EXPECT_EQ(n.togglable, stageInfo(stage).togglable()) << n.name;
  });
  EXPECT_EQ(nodes.back().name, "report_blow_up");
  EXPECT_EQ(nodes.back().step, -1);

  const NodeInfo* storage = nodes.data();
  EXPECT_EQ(&sim.nodes(), &nodes);
  EXPECT_EQ(sim.nodes().data(), storage);
  const bool attractor = sim.stageEnabled(NBodyStage::Attractor);
  sim.setStageEnabled(NBodyStage::Attractor, !attractor);
  EXPECT_EQ(sim.nodes().data(), storage);
  for (const NodeInfo& n : gputest::stageInstances(nodes, NBodyStage::Attractor))
    EXPECT_NE(n.enabled, attractor) << n.name;
  sim.step();
  EXPECT_EQ(sim.nodes().data(), storage);

  ASSERT_TRUE(sim.setProfiling(true)); // a structural change: marks between the kernels
  for (int k = 0; k < 3; ++k) sim.step();
  std::size_t marks = 0;
  for (const NodeInfo& n : sim.nodes()) {
    if (n.type != "event record") continue;
    ++marks;
    EXPECT_FALSE(stageOf(n).has_value()) << n.name;
  }
  EXPECT_EQ(marks, static_cast<std::size_t>(stageInstanceCount(3)) + 2);
  EXPECT_EQ(gputest::stageInstances(sim.nodes(), NBodyStage::Forces).size(), 3u);
}

TEST(NBodyFrameGraph, InteropGraphStartsWithTheWaitAndEndsWithTheSignal) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = gputest::scene("plummer", 512);
  config.substeps = 3;
  render::VulkanContext vk(gputest::interopRequest());
  {
    render::ParticleRenderer renderer(vk, gputest::exportedRendererConfig(64, 64, 512, 2));
    const InteropDesc interop = renderer.exportInterop();
    NBodyCudaBackend sim(config, 0, &interop);

    const std::vector<NodeInfo> nodes = sim.nodes();
    ASSERT_EQ(nodes.size(), 1u + 3u * 5u + 2u + 1u + 1u);
    EXPECT_EQ(nodes.front().name, "wait_render_done");
    EXPECT_EQ(nodes.front().type, "semaphore wait");
    EXPECT_EQ(nodes.back().name, "signal_sim_done");
    EXPECT_EQ(nodes.back().type, "semaphore signal");
    for (const NodeInfo* n : {&nodes.front(), &nodes.back()}) {
      EXPECT_FALSE(n->togglable) << n->name;
      EXPECT_TRUE(n->enabled) << n->name;
      EXPECT_NE(n->whyNotTogglable.find("semaphore"), std::string::npos) << n->whyNotTogglable;
      EXPECT_EQ(n->step, -1) << n->name;
    }
    // Each substep stage once per substep, in order; colour, write_render and report_blow_up once, right before the
    // signal (so the report is in host memory when simDone is signalled).
    for (int s = 0; s < 3; ++s) {
      for (int k = 0; k < 5; ++k) {
        const NodeInfo& n = nodes[1 + static_cast<std::size_t>(s * 5 + k)];
        EXPECT_EQ(n.name, stageInstanceName(kSubstepStages[k], s));
        EXPECT_EQ(stageOf(n), kSubstepStages[k]) << n.name;
        EXPECT_EQ(n.substep, s) << n.name;
        EXPECT_EQ(n.type, "kernel");
        EXPECT_TRUE(n.togglable) << n.name;
      }
    }
    for (NBodyStage stage : kSubstepStages) EXPECT_EQ(gputest::stageInstances(nodes, stage).size(), 3u);
    const NodeInfo& colour = nodes[nodes.size() - 4];
    const NodeInfo& write = nodes[nodes.size() - 3];
    const NodeInfo& report = nodes[nodes.size() - 2];
    EXPECT_EQ(colour.name, "colour");
    EXPECT_EQ(write.name, "write_render");
    EXPECT_EQ(report.name, "report_blow_up");
    EXPECT_EQ(report.type, "kernel");
    EXPECT_FALSE(report.togglable);
    EXPECT_FALSE(write.togglable);
    EXPECT_EQ(write.whyNotTogglable, std::string(whyNotTogglable(NBodyStage::WriteRender)));
    EXPECT_THROW(sim.setStageEnabled(NBodyStage::WriteRender, false), std::invalid_argument);
  }
  EXPECT_EQ(vk.validationMessages(), 0u);
}

TEST(NBodyFrameGraph, DumpsTheGraphAsDot) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyCudaBackend sim(gputest::scene("plummer", 256), 0);
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "graphsim_gpu_test_graph.dot";
  std::filesystem::remove(path);
  sim.dumpGraphDot(path);
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("digraph"), std::string::npos);
  std::filesystem::remove(path);
  // A path that cannot be written is an error that names it, not a silent no-op.
  EXPECT_THROW(sim.dumpGraphDot("/nonexistent-dir/graph.dot"), std::runtime_error);
}

std::size_t freeDeviceMemory() {
  std::size_t freeBytes = 0, total = 0;
  EXPECT_EQ(cudaMemGetInfo(&freeBytes, &total), cudaSuccess);
  return freeBytes;
}

TEST(NBodyCudaBackend, ComputeOnlySteppingAllocatesNothingAndBackendsFreeEverything) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  const NBodyConfig config = gputest::scene("galaxy-pair", 16384);
  { NBodyCudaBackend warmup(config, 0); } // context, modules and graph machinery set up once, outside the measurement
  const std::size_t baseline = freeDeviceMemory();
  {
    NBodyCudaBackend sim(config, 0);
    sim.step(); // the first launch uploads the exec; measure from there
    const UpdateCounters before = sim.counters();
    const std::size_t afterFirst = freeDeviceMemory();
    for (int k = 0; k < 300; ++k) sim.step();
    EXPECT_EQ(freeDeviceMemory(), afterFirst) << "stepping allocated device memory";
    const UpdateCounters after = sim.counters();
    // Nothing changed between frames: no node was updated, toggled, or rebuilt.
    EXPECT_EQ(after.nodeUpdates, before.nodeUpdates);
    EXPECT_EQ(after.enableToggles, before.enableToggles);
    EXPECT_EQ(after.wholeGraphUpdates, 0u);
    EXPECT_EQ(after.reinstantiations, 0u);
    EXPECT_TRUE(after.lastFallbackReason.empty());
    EXPECT_GE(sim.lastSimGpuMs(), 0.0);
    std::printf("[ measured ] N=16384 compute-only frame: %.3f ms GPU, %.2f us host node updates\n", sim.lastSimGpuMs(),
                sim.lastUpdateHostUs());
  }
  for (int i = 0; i < 5; ++i) {
    NBodyCudaBackend sim(config, 0);
    sim.step();
  }
  // Six backends of 16384 bodies (~1.6 MB of arrays each) came and went: a leaked array or graph would show.
  const std::size_t slack = std::size_t{4} << 20; // the allocator's 2 MiB granularity
  EXPECT_GE(freeDeviceMemory() + slack, baseline) << "device memory was not returned";
}

} // namespace
} // namespace graphsim
