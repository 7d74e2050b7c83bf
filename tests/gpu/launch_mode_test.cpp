// Issue 5: what `graphsim bench` compares must compute the same thing. The four launch modes (graph with node
// updates, stream, whole-graph update, re-instantiation) run the same kernels on the same state in the same order,
// so their states agree bit for bit, with interop and without; the host-copy path's output is the state; and the
// GPU's a(0) starts the leapfrog as the host's double-precision reference does, up to float rounding.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "compute/nbody/nbody_cuda_backend.h"
#include "compute/nbody/nbody_cuda_instruments.h"
#include "tests/gpu/gpu_test_support.h"

namespace graphsim {
namespace {

using gputest::download;

constexpr LaunchMode kModes[] = {LaunchMode::Graph, LaunchMode::Stream, LaunchMode::WholeUpdate,
                                 LaunchMode::Reinstantiate};

// Largest velocity difference between two states of the same bodies, and their RMS speed.
struct VelocityDiff {
  double maxAbs = 0, rmsSpeed = 0;
};
VelocityDiff compareVelocities(const BodyState& a, const BodyState& b) {
  VelocityDiff d;
  double sum2 = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Float4 u = a.vel[i], v = b.vel[i];
    const double dx = double(u.x) - v.x, dy = double(u.y) - v.y, dz = double(u.z) - v.z;
    d.maxAbs = std::max(d.maxAbs, std::sqrt(dx * dx + dy * dy + dz * dz));
    sum2 += double(u.x) * u.x + double(u.y) * u.y + double(u.z) * u.z;
  }
  d.rmsSpeed = a.size() > 0 ? std::sqrt(sum2 / double(a.size())) : 0.0;
  return d;
}

TEST(LeapfrogStart, DeviceStartMatchesTheHostDoublePrecisionStart) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  for (const char* initial : {"galaxy-pair", "plummer"}) {
    const NBodyConfig config = gputest::scene(initial, 4096, 21);
    NBodyCudaBackend device(config, 0, nullptr, std::chrono::milliseconds(5000), LeapfrogStart::Device);
    NBodyCudaBackend host(config, 0, nullptr, std::chrono::milliseconds(5000), LeapfrogStart::Host);
    const BodyState d = download(device), h = download(host);
    EXPECT_EQ(compareStates(d, h).maxAbs, 0.0) << initial << ": the bodies themselves come from the host";
    const VelocityDiff v = compareVelocities(d, h);
    std::printf(
        "[ measured ] %s N=4096 leapfrog start, GPU float a(0) vs host double: max |dv| = %.3e, "
        "rms speed = %.3f, ratio = %.3e\n",
        initial, v.maxAbs, v.rmsSpeed, v.rmsSpeed > 0 ? v.maxAbs / v.rmsSpeed : 0.0);
    // a(0) in float is good to ~1e-6 relative; the half kick scales it by dt/2, so dv is far below 1e-5 of |v|.
    EXPECT_LT(v.maxAbs, 1e-5 * v.rmsSpeed) << initial;
  }
}

TEST(LeapfrogStart, QuarterMillionBodiesStartWithoutTheHostSum) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  const NBodyConfig config = gputest::scene("galaxy-pair", 1 << 18, 3);
  const auto t0 = std::chrono::steady_clock::now();
  NBodyCudaBackend sim(config, 0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "[ measured ] N=262144 NBodyCudaBackend construction (initial conditions on the host, a(0) on the GPU): "
      "%.3f s\n",
      seconds);
  // The host double sum alone takes ~6 s here at this size (N^2 / 16 cores); the GPU's is milliseconds and the rest
  // is the O(N) initial conditions.
  EXPECT_LT(seconds, 3.0);
  const BodyState s = download(sim);
  for (std::size_t i = 0; i < s.size(); i += 997) {
    ASSERT_TRUE(std::isfinite(s.vel[i].x) && std::isfinite(s.vel[i].y) && std::isfinite(s.vel[i].z)) << i;
  }
}

// Compute-only: every mode, with a parameter change and a toggle on the way, ends in the same state bit for bit.
TEST(LaunchModes, ComputeOnlyModesAgreeBitForBit) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = gputest::scene("plummer", 2048, 13);
  config.substeps = 2;
  config.enabled[static_cast<int>(NBodyStage::Attractor)] = true;
  config.enabled[static_cast<int>(NBodyStage::Damping)] = true;
  std::vector<BodyState> results;
  for (LaunchMode mode : kModes) {
    NBodyCudaBackend sim(config, 0);
    NBodyCudaInstruments::setLaunchMode(sim, mode);
    EXPECT_EQ(NBodyCudaInstruments::launchMode(sim), mode);
    for (int k = 0; k < 12; ++k) {
      if (k == 4) {
        NBodyParams p = config.params;
        p.dt *= 0.5f;
        p.attractorPos[0] = 1.5f;
        sim.setParams(p);
      }
      if (k == 8) sim.setStageEnabled(NBodyStage::Attractor, false);
      sim.step();
    }
    for (const NodeInfo& n : gputest::stageInstances(sim.nodes(), NBodyStage::Attractor)) {
      EXPECT_FALSE(n.enabled) << launchModeName(mode) << ": " << n.name;
    }
    const UpdateCounters c = sim.counters();
    if (mode == LaunchMode::WholeUpdate) {
      EXPECT_EQ(c.wholeGraphUpdates, 12u);
    }
    if (mode == LaunchMode::Reinstantiate) {
      EXPECT_EQ(c.reinstantiations, 12u);
    }
    const LaunchHostTiming t = NBodyCudaInstruments::lastLaunchHostTiming(sim);
    std::printf("[ measured ] %-13s compute-only, 2 substeps: host %.2f us set-up + %.2f us launch (last frame)\n",
                std::string(launchModeName(mode)).c_str(), t.nodeUpdatesUs, t.launchUs);
    results.push_back(download(sim));
  }
  for (std::size_t i = 1; i < results.size(); ++i) {
    EXPECT_TRUE(compareStates(results[i], results[0]).bitIdentical)
        << launchModeName(kModes[i]) << " differs from graph";
  }
}

// Issue 14: programmatic dependent launch between the graph's kernels (the `pdl` bench variant) computes what the
// ordinary graph does, bit for bit, also with stages toggled between programmatically joined kernels, a parameter
// change, two substeps, and a count at which forces uses the symmetric-pair kernel.
TEST(LaunchModes, ProgrammaticLaunchMatchesTheGraphBitForBit) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = gputest::scene("plummer", 40000, 19);
  config.substeps = 2;
  config.enabled[static_cast<int>(NBodyStage::Attractor)] = true;
  std::vector<BodyState> results;
  for (const bool pdl : {false, true}) {
    NBodyCudaBackend sim(config, 0);
    NBodyCudaInstruments::setLaunchMode(sim, pdl ? LaunchMode::Programmatic : LaunchMode::Graph);
    for (int k = 0; k < 12; ++k) {
      if (k == 3) sim.setStageEnabled(NBodyStage::Damping, true);
      if (k == 5) {
        NBodyParams p = config.params;
        p.dt *= 0.5f;
        sim.setParams(p);
      }
      if (k == 7) sim.setStageEnabled(NBodyStage::Attractor, false);
      if (k == 9) sim.setStageEnabled(NBodyStage::Damping, false);
      sim.step();
    }
    if (pdl) {
      EXPECT_GE(sim.counters().wholeGraphUpdates + sim.counters().reinstantiations, 1u) << "the edges changed";
    }
    results.push_back(download(sim));
  }
  EXPECT_TRUE(compareStates(results[1], results[0]).bitIdentical) << "programmatic launch differs from the graph";
}

// With interop, F = 2: the semaphore wait/signal of every mode keeps the frame protocol (no timeout, every
// renderDone value reached) and the state after 64 frames is the compute-only graph's, bit for bit.
TEST(LaunchModes, InteropFrameLoopRunsInEveryModeAndMatchesComputeOnly) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  constexpr std::uint32_t kF = 2;
  constexpr std::uint64_t kFrames = 64;
  const NBodyConfig config = gputest::scene("galaxy-pair", 4096, 17);
  BodyState reference;
  {
    NBodyCudaBackend sim(config, 0);
    for (std::uint64_t k = 0; k < kFrames; ++k) sim.step();
    reference = download(sim);
  }
  render::VulkanContext context(gputest::interopRequest());
  for (LaunchMode mode : kModes) {
    render::ParticleRenderer renderer(context, gputest::exportedRendererConfig(64, 64, config.bodies, kF));
    const InteropDesc interop = renderer.exportInterop();
    NBodyCudaBackend sim(config, 0, &interop, std::chrono::milliseconds(5000));
    NBodyCudaInstruments::setLaunchMode(sim, mode);
    for (std::uint64_t k = 0; k < kFrames; ++k) {
      renderer.waitForSlot(k);
      sim.launchFrame(k);
      gputest::submitRender(renderer, k, config.bodies);
    }
    NBodyCudaInstruments::waitForFrame(sim, kFrames - 1);
    EXPECT_TRUE(NBodyCudaInstruments::frameGpuMs(sim, kFrames - 1).has_value()) << launchModeName(mode);
    renderer.drain();
    sim.synchronize();
    EXPECT_EQ(renderer.renderDoneValue(), kFrames) << launchModeName(mode);
    EXPECT_TRUE(compareStates(download(sim), reference).bitIdentical)
        << launchModeName(mode) << " with interop differs from the compute-only graph";
  }
  EXPECT_EQ(context.validationMessages(), 0u);
}

TEST(HostCopy, CopyRenderOutputIsTheLastFramesPositionsAndColour) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  const NBodyConfig config = gputest::scene("plummer", 3000, 5);
  NBodyCudaBackend sim(config, 0);
  std::vector<Float4> out(3000);
  for (std::uint64_t k = 0; k < 3; ++k) {
    sim.launchFrame(k);
    sim.copyRenderOutput(out.data());
  }
  BodyState state;
  std::vector<float> colour;
  sim.download(state, colour);
  for (std::size_t i = 0; i < out.size(); ++i) {
    ASSERT_EQ(out[i].x, state.posMass[i].x) << i;
    ASSERT_EQ(out[i].y, state.posMass[i].y) << i;
    ASSERT_EQ(out[i].z, state.posMass[i].z) << i;
    ASSERT_EQ(out[i].w, colour[i]) << i;
  }
}

} // namespace
} // namespace graphsim
