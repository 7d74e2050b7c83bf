// Staged body buffers (the benchmark's host-copy path): the bodies written to a slot's staging buffer reach the
// vertex buffer by the frame's own copy, so a staged frame is pixel-identical to a host-visible one, frame after
// frame in every slot, without validation (synchronisation validation included) finding a hazard.
#include <cmath>

#include "tests/render/render_test_support.h"

namespace graphsim::render::test {
namespace {

constexpr std::uint32_t kBodies = 300;
constexpr std::uint32_t kSize = 64;

std::vector<std::vector<std::uint8_t>> renderFrames(VulkanContext& context, BodyBufferMode mode,
                                                    std::uint32_t framesInFlight) {
  RendererConfig config;
  config.width = kSize;
  config.height = kSize;
  config.maxBodies = kBodies;
  config.framesInFlight = framesInFlight;
  config.mode = mode;
  config.waitTimeout = std::chrono::milliseconds(20000);
  ParticleRenderer r(context, config);
  std::vector<std::vector<std::uint8_t>> frames;
  std::vector<float> bodies(kBodies * 4);
  for (std::uint64_t k = 0; k < 6; ++k) {
    r.waitForSlot(k);
    if (k >= framesInFlight) frames.push_back(r.finishCapture(k - framesInFlight));
    // A different picture every frame: the spiral turned by k * 30 degrees.
    writeSpiral(bodies.data(), kBodies);
    const float angle = 0.5236f * static_cast<float>(k);
    float* dst = r.mappedBodies(r.slotOf(k));
    for (std::uint32_t i = 0; i < kBodies; ++i) {
      const float x = bodies[4 * i], y = bodies[4 * i + 1];
      dst[4 * i] = std::cos(angle) * x - std::sin(angle) * y;
      dst[4 * i + 1] = std::sin(angle) * x + std::cos(angle) * y;
      dst[4 * i + 2] = bodies[4 * i + 2];
      dst[4 * i + 3] = bodies[4 * i + 3];
    }
    Camera camera;
    camera.pitchDeg = 50.0f;
    camera.distance = 7.0f;
    r.submit({.frame = k, .bodyCount = kBodies, .camera = camera, .style = {.pointRadius = 0.12f}, .capture = true});
  }
  for (std::uint64_t k = 6 - framesInFlight; k < 6; ++k) frames.push_back(r.finishCapture(k));
  return frames;
}

TEST_F(RenderTest, StagedUploadDrawsWhatHostVisibleDraws) {
  for (std::uint32_t f : {1u, 3u}) {
    const auto reference = renderFrames(*context, BodyBufferMode::HostVisible, f);
    const auto staged = renderFrames(*context, BodyBufferMode::Staged, f);
    ASSERT_EQ(staged.size(), reference.size());
    for (std::size_t k = 0; k < staged.size(); ++k) {
      EXPECT_GT(countNonBackground(staged[k]), std::size_t{kSize * kSize / 50}) << "F " << f << " frame " << k;
      EXPECT_EQ(staged[k], reference[k]) << "F " << f << " frame " << k;
    }
    EXPECT_NE(staged.front(), staged.back()) << "the frames should differ";
  }
}

} // namespace
} // namespace graphsim::render::test
