// Capture: readback contents, the overlay hook, misuse, and PNG encoding written through the output writer.
#include <array>
#include <span>
#include <stdexcept>

#include "app/io/output_file.h"
#include "tests/render/render_test_support.h"

namespace graphsim::render::test {
namespace {

constexpr std::uint32_t kBodies = 200;

TEST_F(RenderTest, CapturesFromDifferentCamerasDifferAndShowBodies) {
  ParticleRenderer& r = makeRenderer(96, 96, kBodies, 2);
  for (std::uint32_t slot = 0; slot < 2; ++slot) {
    writeSpiral(r.mappedBodies(slot), kBodies);
  }
  Camera front;
  front.yawDeg = 0.0f;
  front.pitchDeg = 20.0f;
  front.distance = 7.0f;
  Camera above = front;
  above.yawDeg = 120.0f;
  above.pitchDeg = 75.0f;
  const DrawStyle style{.pointRadius = 0.15f, .colourScale = 1.0f};

  // Both frames in flight at once: each slot has its own readback buffer.
  r.submit({.frame = 0, .bodyCount = kBodies, .camera = front, .style = style, .capture = true});
  r.submit({.frame = 1, .bodyCount = kBodies, .camera = above, .style = style, .capture = true});
  const std::vector<std::uint8_t> first = r.finishCapture(0);
  const std::vector<std::uint8_t> second = r.finishCapture(1);
  // Into a reused buffer (the benchmark's capture pool): every byte is overwritten, whatever it held.
  std::vector<std::uint8_t> reused = first;
  r.finishCapture(1, reused);
  EXPECT_EQ(reused, second);
  std::vector<std::uint8_t> wrongSize(7, 0xab);
  r.finishCapture(0, wrongSize);
  EXPECT_EQ(wrongSize, first);

  const std::size_t pixels = 96 * 96;
  EXPECT_GT(countNonBackground(first), pixels / 50) << "bodies should cover more than 2% of the frame";
  EXPECT_GT(countNonBackground(second), pixels / 50);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < first.size(); i += 4) {
    differing += (first[i] != second[i] || first[i + 1] != second[i + 1] || first[i + 2] != second[i + 2]) ? 1 : 0;
  }
  EXPECT_GT(differing, pixels / 50) << "a different camera must give a different picture";
}

// One slot: every frame reuses the same command buffer, readback buffer and attachments right after the previous
// frame's copy, which is what synchronisation validation checks across submits.
TEST_F(RenderTest, BackToBackCapturesInOneSlotAreHazardFree) {
  ParticleRenderer& r = makeRenderer(48, 48, kBodies, 1);
  std::vector<std::uint8_t> previous;
  for (std::uint64_t k = 0; k < 4; ++k) {
    r.waitForSlot(k);
    writeSpiral(r.mappedBodies(0), kBodies);
    Camera camera;
    camera.yawDeg = 40.0f * static_cast<float>(k);
    r.submit({.frame = k, .bodyCount = kBodies, .camera = camera, .capture = true});
    std::vector<std::uint8_t> pixels = r.finishCapture(k);
    EXPECT_NE(pixels, previous) << "frame " << k;
    previous = std::move(pixels);
  }
}

TEST_F(RenderTest, FinishCaptureOfAFrameNotCapturedThrows) {
  ParticleRenderer& r = makeRenderer(32, 32, 4, 2);
  r.submit({.frame = 0, .bodyCount = 0});
  EXPECT_THROW(r.finishCapture(0), std::logic_error);
  r.drain();
}

// The overlay records inside the render pass after the particles: clear a corner rectangle to pure red there.
class RedCornerOverlay : public OverlayRecorder {
public:
  void cmdDrawOverlay(VkCommandBuffer cmd) override {
    ++calls;
    const VkClearAttachment attachment{VK_IMAGE_ASPECT_COLOR_BIT, 0, {{{1.0f, 0.0f, 0.0f, 1.0f}}}};
    const VkClearRect rect{{{0, 0}, {8, 8}}, 0, 1};
    vkCmdClearAttachments(cmd, 1, &attachment, 1, &rect);
  }
  int calls = 0;
};

TEST_F(RenderTest, OverlayDrawsIntoTheFrameAfterTheParticles) {
  ParticleRenderer& r = makeRenderer(32, 32, 4, 2);
  ASSERT_NE(r.renderPass(), VK_NULL_HANDLE);
  RedCornerOverlay overlay;
  r.submit({.frame = 0, .bodyCount = 0, .capture = true, .overlay = &overlay});
  const std::vector<std::uint8_t> pixels = r.finishCapture(0);
  EXPECT_EQ(overlay.calls, 1);
  const std::array<std::uint8_t, 4> topLeft{pixels[0], pixels[1], pixels[2], pixels[3]};
  EXPECT_EQ(topLeft, (std::array<std::uint8_t, 4>{255, 0, 0, 255}));
  const std::size_t outside = (16 * 32 + 16) * 4; // pixel (16, 16), outside the rectangle
  EXPECT_NE(pixels[outside], 255);
}

// No Vulkan involved, so no context (and no validation count) is needed. The file itself is the application's
// output writer's (tests/cli/output_test.cpp tests its failures); here: the bytes encodePng gives are a PNG.
void writePngFile(const std::filesystem::path& path, const std::vector<std::uint8_t>& rgba, std::uint32_t width,
                  std::uint32_t height) {
  const std::vector<std::uint8_t> png = encodePng(rgba, width, height);
  app::writeOutput(path, std::as_bytes(std::span(png)));
}

TEST(PngOutput, MissingDirectoryThrowsNamingThePathAndTheDirectory) {
  const std::filesystem::path path = "/nonexistent-graphsim-dir/sub/frame.png";
  const std::vector<std::uint8_t> pixels(4 * 4 * 4, 128);
  try {
    writePngFile(path, pixels, 4, 4);
    FAIL() << "expected app::OutputError";
  } catch (const app::OutputError& error) {
    EXPECT_EQ(std::string(error.what()), path.string() + ": directory /nonexistent-graphsim-dir/sub does not exist");
  }
}

TEST(PngOutput, WritesAFileThatLoadsBack) {
  const std::filesystem::path path = testOutputDir() / "roundtrip.png";
  std::vector<std::uint8_t> pixels(3 * 2 * 4);
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    pixels[i] = static_cast<std::uint8_t>(i * 10);
  }
  writePngFile(path, pixels, 3, 2);
  const std::optional<Image> loaded = loadPng(path);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(loaded->width, 3u);
  EXPECT_EQ(loaded->height, 2u);
  EXPECT_EQ(loaded->rgba, pixels);
}

TEST(PngOutput, EncodeRefusesPixelsOfTheWrongSize) {
  EXPECT_THROW(encodePng(std::vector<std::uint8_t>(3 * 2 * 4 - 1), 3, 2), std::invalid_argument);
  EXPECT_THROW(encodePng({}, 0, 0), std::invalid_argument);
}

} // namespace
} // namespace graphsim::render::test
