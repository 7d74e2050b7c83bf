// Frames in flight: the throttle, timeline values, timeouts and the timestamps.
#include <cstdio>

#include "tests/render/render_test_support.h"

namespace graphsim::render::test {
namespace {

TEST_F(RenderTest, SixtyFramesWithThreeInFlightReachRenderDoneSixty) {
  constexpr std::uint32_t kBodies = 64;
  ParticleRenderer& r = makeRenderer(64, 64, kBodies, 3);
  for (std::uint64_t k = 0; k < 60; ++k) {
    r.waitForSlot(k); // the slot's previous frame (k - 3) is done: its buffer may be rewritten
    float* bodies = r.mappedBodies(r.slotOf(k));
    writeSpiral(bodies, kBodies);
    bodies[0] = static_cast<float>(k) * 0.01f; // each frame's buffer differs
    Camera camera;
    camera.yawDeg = static_cast<float>(k) * 3.0f;
    // Two captures in flight among ordinary frames: their slots keep the pixels until captured again.
    const bool capture = k == 30 || k == 59;
    ASSERT_NO_THROW(r.submit({.frame = k, .bodyCount = kBodies, .camera = camera, .capture = capture}));
  }
  r.waitRenderDone(60);
  EXPECT_EQ(r.renderDoneValue(), 60u);
  EXPECT_THROW(r.waitRenderDone(61), std::logic_error); // no submitted frame signals 61
  EXPECT_NE(r.finishCapture(30), r.finishCapture(59));
  // lavapipe and the NVIDIA driver both have timestamps on the graphics queue.
  const double gpuMs = r.lastRenderGpuMs();
  EXPECT_GE(gpuMs, 0.0);
  std::fprintf(stderr, "last frame's render pass: %.4f ms GPU time\n", gpuMs);
}

TEST_F(RenderTest, FramesInFlightOutsideOneToFourAreRejected) {
  EXPECT_THROW(makeRenderer(32, 32, 4, 0), std::invalid_argument);
  EXPECT_THROW(makeRenderer(32, 32, 4, 5), std::invalid_argument);
  EXPECT_NO_THROW(makeRenderer(32, 32, 4, 4));
}

TEST_F(RenderTest, SubmitRejectsTooManyBodiesAndFramesOutOfOrder) {
  ParticleRenderer& r = makeRenderer(32, 32, 8, 2);
  EXPECT_THROW(r.submit({.frame = 0, .bodyCount = 9}), std::invalid_argument);
  r.submit({.frame = 0, .bodyCount = 0});
  EXPECT_THROW(r.submit({.frame = 0, .bodyCount = 0}), std::invalid_argument); // renderDone values only grow
  r.drain();
}

// A producer that never signals simDone: the host wait runs out with a message naming side, semaphore, value
// and frame, and the renderer still shuts down cleanly (its destructor releases the queue).
TEST_F(RenderTest, StalledProducerTimesOutWithAMessageAndShutsDownCleanly) {
  RendererConfig config;
  config.width = 32;
  config.height = 32;
  config.maxBodies = 8;
  config.framesInFlight = 2;
  config.waitTimeout = std::chrono::milliseconds(200);
  renderer = std::make_unique<ParticleRenderer>(*context, config);
  renderer->submit({.frame = 0, .bodyCount = 0, .waitSimDone = 1});
  try {
    renderer->waitRenderDone(1);
    FAIL() << "expected TimeoutError";
  } catch (const TimeoutError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("sim side stalled"), std::string::npos) << message;
    EXPECT_NE(message.find("renderDone did not reach 1 for frame 0 within 200 ms"), std::string::npos) << message;
    EXPECT_NE(message.find("simDone is at 0: the simulation has not signalled frame 0's simDone = 1"),
              std::string::npos)
        << message;
  }
  EXPECT_THROW(renderer->waitForSlot(2), TimeoutError);
  renderer.reset(); // must neither hang nor throw
}

} // namespace
} // namespace graphsim::render::test
