// Golden image: a fixed small scene rendered headless must match tests/data/golden_spiral.png.
// GRAPHSIM_UPDATE_GOLDEN=1 rewrites the reference instead (then look at it before committing).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "app/io/output_file.h"
#include "render/offscreen_target.h"
#include "tests/render/render_test_support.h"

namespace graphsim::render::test {
namespace {

constexpr std::uint32_t kSize = 256;
constexpr std::uint32_t kBodies = 200;

// Tolerance. The reference is rendered by lavapipe, which is also what CI uses, so a match is normally exact. The
// slack is for other rasterisers of the same scene (a GPU driver, another LLVM/Mesa): they may round the
// interpolated quad coordinate differently where a pixel centre sits on a sphere's silhouette (discard at
// r^2 = 1) or where two spheres meet in depth, flipping a few hundred edge pixels, and may shade the interior a
// few LSBs apart (pow/sqrt precision). So: every channel within 8 for >= 99.5% of pixels (a whole misplaced or
// miscoloured sphere of ~200 px already breaks that), and a mean absolute difference below 1.0 (a global shift in
// colour map or lighting of ~1 LSB everywhere breaks that even if no single pixel is far off).
constexpr GoldenTolerance kTolerance{.channel = 8, .minFractionWithin = 0.995, .maxMeanAbsDiff = 1.0};

Camera goldenCamera() { return {.yawDeg = 25.0f, .pitchDeg = 40.0f, .distance = 7.5f, .fovYDeg = 45.0f}; }

TEST_F(RenderTest, GoldenSpiralMatchesReference) {
  ParticleRenderer& r = makeRenderer(kSize, kSize, kBodies, 1);
  writeSpiral(r.mappedBodies(0), kBodies);
  r.submit({.frame = 0,
            .bodyCount = kBodies,
            .camera = goldenCamera(),
            .style = {.pointRadius = 0.16f, .colourScale = 1.0f},
            .capture = true});
  const Image actual{kSize, kSize, r.finishCapture(0)};
  expectMatchesGolden(actual, "golden_spiral", kTolerance, context->info().name);
}

TEST_F(RenderTest, ZeroBodiesRendersOnlyTheBackground) {
  ParticleRenderer& r = makeRenderer(64, 48, 16, 2);
  r.submit({.frame = 0, .bodyCount = 0, .capture = true});
  const std::vector<std::uint8_t> pixels = r.finishCapture(0);
  ASSERT_EQ(pixels.size(), 64u * 48u * 4u);

  const VkClearColorValue background = OffscreenTarget::kBackground;
  // Float -> UNORM conversion may round either way by one LSB (Vulkan spec, fixed-point conversion).
  for (std::size_t p = 0; p < pixels.size(); p += 4) {
    for (std::size_t c = 0; c < 4; ++c) {
      const long expected = std::lround(background.float32[c] * 255.0f);
      ASSERT_LE(std::abs(long{pixels[p + c]} - expected), 1)
          << "pixel " << p / 4 << " channel " << c << " is " << int{pixels[p + c]} << ", background " << expected;
    }
  }
}

} // namespace
} // namespace graphsim::render::test
