// Issue 3, test 6: the pipelined frame protocol end to end on a real GPU — F = 3 frames in flight, 1000 frames,
// every simDone/renderDone value reached in order, no timeout, and the picture moves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "compute/cuda_device.h"
#include "compute/nbody/nbody_cuda_backend.h"
#include "gpu_test_support.h"
#include "render/particle_renderer.h"

namespace graphsim {
namespace {

TEST(FrameLoop, ThreeFramesInFlightThousandFrames) {
  const CudaDeviceList cuda = listCudaDevices();
  if (cuda.devices.empty()) GTEST_SKIP() << "no CUDA device: " << cuda.whyNone;

  constexpr std::uint32_t kF = 3;
  constexpr std::uint64_t kFrames = 1000;
  NBodyConfig scene;
  scene.bodies = 8192;

  render::VulkanContext context(gputest::interopRequest());
  const render::RendererConfig config = gputest::exportedRendererConfig(320, 240, scene.bodies, kF);
  std::vector<std::uint8_t> first, last;
  {
    render::ParticleRenderer renderer(context, config);
    const InteropDesc interop = renderer.exportInterop();
    NBodyCudaBackend sim(scene, 0, &interop, config.waitTimeout);

    std::uint64_t maxAhead = 0;
    for (std::uint64_t k = 0; k < kFrames; ++k) {
      renderer.waitForSlot(k);
      // The throttle guarantees the frame that last used this slot is done; it never lets the host run more than
      // F frames ahead of the renderer.
      const std::uint64_t done = renderer.renderDoneValue();
      if (k >= kF) {
        ASSERT_GE(done, k - kF + 1) << "frame " << k;
      }
      maxAhead = std::max(maxAhead, k - std::min(k, done));
      sim.launchFrame(k);
      render::FrameSubmit submit;
      submit.frame = k;
      submit.bodyCount = static_cast<std::uint32_t>(scene.bodies);
      submit.waitSimDone = k + 1;
      submit.capture = k == 0 || k == kFrames - 1;
      renderer.submit(submit);
      if (k == 0) first = renderer.finishCapture(k);
      if (k == kFrames - 1) last = renderer.finishCapture(k);
    }
    renderer.drain();
    sim.synchronize();
    EXPECT_EQ(renderer.renderDoneValue(), kFrames);
    EXPECT_LE(maxAhead, kF);
    EXPECT_EQ(sim.counters().reinstantiations, 0u);
    EXPECT_GE(sim.lastSimGpuMs(), 0.0);
  }
  ASSERT_EQ(first.size(), last.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < first.size(); ++i) differing += first[i] != last[i];
  EXPECT_GT(differing, first.size() / 1000) << "captures of frames 1 and 1000 are (nearly) identical";
  EXPECT_EQ(context.validationMessages(), 0u);
}

} // namespace
} // namespace graphsim
