// Blow-up detection on the CUDA backend (issue 12): the stage kernels flag a non-finite value in a device word, the
// graph's report_blow_up node hands the first bad frame to mapped pinned host memory, and blowUp() reads it without
// waiting. Each case is checked against the CPU backend's report of the same run (frame, stage, substep).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <string>

#include "compute/nbody/nbody_cpu_backend.h"
#include "compute/nbody/nbody_cuda_backend.h"
#include "compute/nbody/nbody_cuda_instruments.h"
#include "render/particle_renderer.h"
#include "render/vulkan_context.h"
#include "tests/gpu/gpu_test_support.h"
#include "tests/support/blow_up_checks.h"

namespace graphsim {
namespace {

using test::expectBlowUp;
using test::explodingParams;

void expectSameReport(const std::optional<NBodyBlowUp>& cuda, const std::optional<NBodyBlowUp>& cpu) {
  ASSERT_TRUE(cuda.has_value() && cpu.has_value());
  std::printf("[ measured ] CUDA: %s | CPU: %s\n", describe(*cuda).c_str(), describe(*cpu).c_str());
  EXPECT_EQ(cuda->frame, cpu->frame);
  EXPECT_EQ(cuda->stage, cpu->stage);
  EXPECT_EQ(cuda->substep, cpu->substep);
}

NBodyConfig allStagesOn(const char* initial, std::int64_t bodies) {
  NBodyConfig config = gputest::scene(initial, bodies);
  config.enabled.fill(true);
  return config;
}

TEST(BlowUpCuda, HealthyRunOfManyFramesReportsNothing) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = allStagesOn("galaxy-pair", 8192);
  config.substeps = 2;
  NBodyCudaBackend sim(config, 0);
  // Three frames queued at a time, as the frame loop runs them; blowUp() polled every frame as the app will.
  constexpr std::uint64_t kFrames = 1000;
  for (std::uint64_t k = 0; k < kFrames; ++k) {
    if (k >= 3) NBodyCudaInstruments::waitForFrame(sim, k - 3);
    sim.launchFrame(k);
    ASSERT_FALSE(sim.blowUp().has_value()) << describe(*sim.blowUp());
  }
  sim.synchronize();
  EXPECT_FALSE(sim.blowUp().has_value()) << describe(*sim.blowUp());
  const BodyState state = gputest::download(sim);
  for (const Float4& p : state.posMass) ASSERT_TRUE(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z));
}

TEST(BlowUpCuda, TinySofteningIsReportedInFrameZeroByForcesLikeTheCpu) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  // Below the scene files' bound, set directly: eps^2 = 1e-30 makes a body's weight on itself m / eps^3 = inf and
  // d * w = 0 * inf = NaN, on both backends. Every later stage writes NaN too; forces is the earliest.
  NBodyConfig config = gputest::scene("plummer", 256);
  config.params.softening = 1e-15f;
  NBodyCudaBackend cuda(config, 0);
  NBodyCpuBackend cpu(config);
  cuda.step();
  cpu.step();
  expectBlowUp(cuda.blowUp(), 0, NBodyStage::Forces, 0, "non-finite acceleration");
  expectSameReport(cuda.blowUp(), cpu.blowUp());
}

TEST(BlowUpCuda, EarliestStageInstanceWinsAcrossSubstepsLikeTheCpu) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  // damping#0 writes inf first; forces#1 and integrate#1 (earlier stages, later in the frame) follow. A per-stage
  // flag would blame forces; the report must name damping#0, in frame 4, as the CPU does.
  NBodyConfig config = gputest::scene("plummer", 1024);
  config.enabled[static_cast<int>(NBodyStage::Damping)] = true;
  config.substeps = 3;
  NBodyCudaBackend cuda(config, 0);
  NBodyCpuBackend cpu(config);
  for (int k = 0; k < 4; ++k) {
    cuda.step();
    cpu.step();
  }
  EXPECT_FALSE(cuda.blowUp().has_value());
  cuda.setParams(explodingParams(config.params));
  cpu.setParams(explodingParams(config.params));
  cuda.step();
  cpu.step();
  expectBlowUp(cuda.blowUp(), 4, NBodyStage::Damping, 0, "non-finite velocity");
  expectSameReport(cuda.blowUp(), cpu.blowUp());
  // First blow-up wins: later frames are NaN everywhere and change nothing.
  for (int k = 0; k < 3; ++k) cuda.step();
  expectBlowUp(cuda.blowUp(), 4, NBodyStage::Damping, 0, "velocity");
}

TEST(BlowUpCuda, DisabledStagesAndEveryLaunchModeStillReport) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  for (LaunchMode mode : {LaunchMode::Graph, LaunchMode::Stream, LaunchMode::WholeUpdate, LaunchMode::Reinstantiate}) {
    SCOPED_TRACE(std::string(launchModeName(mode)));
    NBodyConfig config = gputest::scene("plummer", 512);
    config.enabled[static_cast<int>(NBodyStage::Damping)] = true;
    config.substeps = 2;
    NBodyCudaBackend sim(config, 0);
    NBodyCudaInstruments::setLaunchMode(sim, mode);
    // Forces, integrate and boundary disabled (cudaGraphNodeSetEnabled on every instance): damping is the first stage
    // that runs; the report node still runs after it.
    for (NBodyStage s : {NBodyStage::Forces, NBodyStage::Integrate, NBodyStage::Boundary})
      sim.setStageEnabled(s, false);
    sim.step();
    sim.step();
    EXPECT_FALSE(sim.blowUp().has_value());
    sim.setParams(explodingParams(config.params));
    sim.step();
    expectBlowUp(sim.blowUp(), 2, NBodyStage::Damping, 0, "non-finite velocity");
  }
}

TEST(BlowUpCuda, ResetClearsTheReportAndFramesKeepTheirNumbers) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = gputest::scene("plummer", 512);
  config.enabled[static_cast<int>(NBodyStage::Damping)] = true;
  NBodyCudaBackend sim(config, 0);
  const NBodyParams exploding = explodingParams(config.params);
  sim.setParams(exploding);
  sim.step(); // frame 0
  expectBlowUp(sim.blowUp(), 0, NBodyStage::Damping, 0, "velocity");

  sim.reset(config); // healthy parameters again; step() numbers frames on (1, 2, ...)
  EXPECT_FALSE(sim.blowUp().has_value()) << "reset starts a new state";
  for (int k = 0; k < 5; ++k) sim.step(); // frames 1..5
  EXPECT_FALSE(sim.blowUp().has_value()) << describe(*sim.blowUp());
  sim.setParams(exploding);
  sim.step(); // frame 6
  expectBlowUp(sim.blowUp(), 6, NBodyStage::Damping, 0, "velocity");
}

// The product path: the interop graph (wait node, signal node, F = 3) driven as the frame loop drives it. The report
// of frame k must be readable once the throttle of frame k+F has passed, with no CUDA wait on the host.
TEST(BlowUpCuda, InteropFramesSeeTheReportThroughTheThrottleWithoutWaiting) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  constexpr std::uint32_t kF = 3;
  constexpr std::uint64_t kBadFrame = 5, kFrames = 12;
  NBodyConfig config = gputest::scene("plummer", 1024);
  config.enabled[static_cast<int>(NBodyStage::Damping)] = true;
  render::VulkanContext vk(gputest::interopRequest());
  {
    render::ParticleRenderer renderer(vk, gputest::exportedRendererConfig(64, 64, config.bodies, kF));
    const InteropDesc interop = renderer.exportInterop();
    NBodyCudaBackend sim(config, 0, &interop, std::chrono::milliseconds(5000));
    std::optional<std::uint64_t> seenAt;
    for (std::uint64_t k = 0; k < kFrames; ++k) {
      renderer.waitForSlot(k); // renderDone >= k-F+1: sim frame k-F has completed
      if (k == kBadFrame) sim.setParams(explodingParams(config.params));
      if (!seenAt && sim.blowUp()) seenAt = k;
      sim.launchFrame(k);
      gputest::submitRender(renderer, k, config.bodies);
    }
    renderer.drain();
    sim.synchronize();
    ASSERT_TRUE(seenAt.has_value()) << "never reported";
    std::printf("[ measured ] blow-up of frame %llu seen by the host before launching frame %llu (F = %u)\n",
                static_cast<unsigned long long>(kBadFrame), static_cast<unsigned long long>(*seenAt), kF);
    EXPECT_GT(*seenAt, kBadFrame);
    EXPECT_LE(*seenAt, kBadFrame + kF) << "the throttle of frame k+F implies frame k completed";
    expectBlowUp(sim.blowUp(), kBadFrame, NBodyStage::Damping, 0, "non-finite velocity");
  }
  EXPECT_EQ(vk.validationMessages(), 0u);
}

} // namespace
} // namespace graphsim
