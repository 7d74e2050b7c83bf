// The screen-space liquid surface (RenderMode::Surface) and the scenery around it, offscreen on whatever device
// exists (lavapipe on CI), validation and synchronisation validation on: golden images of a tank at rest and of a
// splash, and what each stage must do — no liquid shows the scene exactly as particle mode draws it, absorption
// tints by channel, smoothing flattens the spheres' bumps, the obstacle is drawn depth-correct, each pass is timed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/render/render_test_support.h"

namespace graphsim::render::test {
namespace {

constexpr std::uint32_t kWidth = 256;
constexpr std::uint32_t kHeight = 192;
constexpr float kSpacing = 0.01f; // as the fluid's default particle spacing: draw radius 0.005
const Box kTank{{0.0f, 0.0f, 0.0f}, {0.4f, 0.25f, 0.3f}};
const Sphere kObstacle{{0.28f, 0.06f, 0.15f}, 0.05f};

// Bodies on a lattice filling [lo, hi) except inside `hole`; returns how many were written (at most capacity).
std::uint32_t fillBlock(float* bodies, std::uint32_t at, std::uint32_t capacity, glm::vec3 lo, glm::vec3 hi,
                        const Sphere& hole) {
  std::uint32_t n = at;
  for (float y = lo.y + kSpacing / 2; y < hi.y; y += kSpacing)
    for (float z = lo.z + kSpacing / 2; z < hi.z; z += kSpacing)
      for (float x = lo.x + kSpacing / 2; x < hi.x; x += kSpacing) {
        const glm::vec3 p{x, y, z};
        if (glm::distance(p, hole.centre) < hole.radius + kSpacing / 2 || n == capacity) continue;
        float* b = bodies + 4 * static_cast<std::size_t>(n++);
        b[0] = p.x;
        b[1] = p.y;
        b[2] = p.z;
        b[3] = 0.0f;
      }
  return n;
}

constexpr std::uint32_t kCapacity = 40000;

// A tank 0.1 m deep around the half-submerged obstacle.
std::uint32_t tankAtRest(float* bodies) {
  return fillBlock(bodies, 0, kCapacity, kTank.min, {0.4f, 0.1f, 0.3f}, kObstacle);
}

// A shallower pool with a ball of liquid falling into it and a column thrown up at the far wall.
std::uint32_t splash(float* bodies) {
  std::uint32_t n = fillBlock(bodies, 0, kCapacity, kTank.min, {0.4f, 0.04f, 0.3f}, kObstacle);
  const Sphere none{{-1.0f, -1.0f, -1.0f}, 0.0f};
  n = fillBlock(bodies, n, kCapacity, {0.02f, 0.04f, 0.02f}, {0.08f, 0.16f, 0.08f}, none);
  for (int i = 0; i < 400 && n < kCapacity; ++i, ++n) { // the ball: a deterministic spiral of points in a sphere
    const float t = (static_cast<float>(i) + 0.5f) / 400.0f;
    const float r = 0.045f * std::cbrt(t), phi = 2.39996f * static_cast<float>(i), cosTheta = 1.0f - 2.0f * t;
    const float sinTheta = std::sqrt(1.0f - cosTheta * cosTheta);
    float* b = bodies + 4 * static_cast<std::size_t>(n);
    b[0] = 0.15f + r * sinTheta * std::cos(phi);
    b[1] = 0.15f + r * cosTheta;
    b[2] = 0.15f + r * sinTheta * std::sin(phi);
    b[3] = 0.5f;
  }
  return n;
}

Camera tankCamera() { return frameBox(kTank, static_cast<float>(kWidth) / kHeight); }

FrameSubmit tankFrame(std::uint64_t frame, std::uint32_t bodies, RenderMode mode) {
  return {.frame = frame,
          .bodyCount = bodies,
          .camera = tankCamera(),
          .style = {.pointRadius = kSpacing / 2, .colourScale = 1.0f, .palette = Palette::Fluid},
          .capture = true,
          .box = kTank,
          .obstacle = kObstacle,
          .mode = mode};
}

glm::ivec2 pixelOf(glm::vec3 world) {
  const float aspect = static_cast<float>(kWidth) / static_cast<float>(kHeight);
  const Camera camera = tankCamera();
  const glm::vec4 clip = camera.projection(aspect) * camera.view() * glm::vec4(world, 1.0f);
  const glm::vec2 ndc = glm::vec2(clip) / clip.w;
  return {static_cast<int>((ndc.x * 0.5f + 0.5f) * kWidth), static_cast<int>((ndc.y * 0.5f + 0.5f) * kHeight)};
}

glm::ivec3 rgbAt(const std::vector<std::uint8_t>& rgba, glm::ivec2 p) {
  const std::size_t i = (static_cast<std::size_t>(p.y) * kWidth + static_cast<std::size_t>(p.x)) * 4;
  return {rgba[i], rgba[i + 1], rgba[i + 2]};
}

// Mean of |pixel - right neighbour| + |pixel - lower neighbour| over a square around p: how bumpy the shading is.
double roughness(const std::vector<std::uint8_t>& rgba, glm::ivec2 p, int half) {
  double sum = 0.0;
  int count = 0;
  for (int y = p.y - half; y < p.y + half; ++y)
    for (int x = p.x - half; x < p.x + half; ++x) {
      const glm::ivec3 c = rgbAt(rgba, {x, y}), right = rgbAt(rgba, {x + 1, y}), down = rgbAt(rgba, {x, y + 1});
      for (int k = 0; k < 3; ++k) sum += std::abs(c[k] - right[k]) + std::abs(c[k] - down[k]);
      ++count;
    }
  return sum / count;
}

// Tolerance of the surface's golden images. The references are lavapipe's, as CI's, so a match is normally exact.
// Another rasteriser differs more than for plain impostors: the sphere depths it rounds differently feed the
// depth filter and then normals from depth differences, which amplify a 1-ulp depth change on a silhouette into
// a visibly different normal there. So a wider channel tolerance (16) over 98 % of the pixels, and a mean absolute
// difference below 2: a misplaced obstacle (~1,500 px), a wrong absorption colour or a missing smoothing pass (the
// whole liquid's shading changes) each break it.
constexpr GoldenTolerance kSurfaceTolerance{.channel = 16, .minFractionWithin = 0.98, .maxMeanAbsDiff = 2.0};

class SurfaceGolden : public RenderTest {
protected:
  // The bodies `fill` writes, drawn in surface mode, against tests/data/<name>.png.
  void expectGolden(std::uint32_t (*fill)(float*), const std::string& name) {
    ParticleRenderer& r = makeRenderer(kWidth, kHeight, kCapacity, 1);
    r.submit(tankFrame(0, fill(r.mappedBodies(0)), RenderMode::Surface));
    expectMatchesGolden({kWidth, kHeight, r.finishCapture(0)}, name, kSurfaceTolerance, context->info().name);
  }
};

TEST_F(SurfaceGolden, TankAtRestMatchesReference) { expectGolden(tankAtRest, "golden_surface_rest"); }
TEST_F(SurfaceGolden, SplashMatchesReference) { expectGolden(splash, "golden_surface_splash"); }

TEST_F(RenderTest, SurfaceWithoutLiquidShowsTheSceneExactlyAsParticleModeDrawsIt) {
  ParticleRenderer& r = makeRenderer(kWidth, kHeight, 16, 2);
  r.submit(tankFrame(0, 0, RenderMode::Particles));
  const std::vector<std::uint8_t> particles = r.finishCapture(0);
  r.submit(tankFrame(1, 0, RenderMode::Surface));
  const std::vector<std::uint8_t> surface = r.finishCapture(1);
  EXPECT_GT(countNonBackground(surface), kWidth * kHeight / 4) << "the room, box and obstacle";
  EXPECT_TRUE(particles == surface) << "the shading pass must copy the scene image where there is no liquid";
}

TEST_F(RenderTest, SurfaceAbsorptionDimsEachChannelByItsOwnCoefficient) {
  ParticleRenderer& r = makeRenderer(kWidth, kHeight, kCapacity, 1);
  // A shallow pool (2 cm): the floor seen through it, away from the obstacle, keeps enough light to be tinted.
  const std::uint32_t n = fillBlock(r.mappedBodies(0), 0, kCapacity, kTank.min, {0.4f, 0.02f, 0.3f}, kObstacle);
  const glm::ivec2 p = pixelOf({0.1f, 0.0f, 0.2f});
  std::vector<glm::ivec3> seen;
  for (const glm::vec3 absorption : {glm::vec3(0.0f), glm::vec3(40.0f, 0.0f, 0.0f), glm::vec3(40.0f)}) {
    FrameSubmit frame = tankFrame(seen.size(), n, RenderMode::Surface);
    frame.surface.absorption = absorption;
    r.submit(frame);
    seen.push_back(rgbAt(r.finishCapture(frame.frame), p));
  }
  const glm::ivec3 clear = seen[0], red = seen[1], all = seen[2];
  std::fprintf(stderr, "floor through the pool: clear (%d, %d, %d), red absorbed (%d, %d, %d), all (%d, %d, %d)\n",
               clear.r, clear.g, clear.b, red.r, red.g, red.b, all.r, all.g, all.b);
  EXPECT_LT(red.r, clear.r - 6) << "red absorbed";
  EXPECT_NEAR(red.g, clear.g, 1) << "green untouched";
  EXPECT_NEAR(red.b, clear.b, 1) << "blue untouched";
  EXPECT_LT(all.g, clear.g - 6);
  EXPECT_LT(all.b, clear.b - 6);
}

// Foam: fast liquid (attribute 1) turns white where foam is on, and changes nothing where it is off.
TEST_F(RenderTest, SurfaceFoamWhitensFastLiquidOnly) {
  ParticleRenderer& r = makeRenderer(kWidth, kHeight, kCapacity, 1);
  const std::uint32_t n = tankAtRest(r.mappedBodies(0));
  const glm::ivec2 top = pixelOf({0.12f, 0.1f, 0.15f});
  std::vector<std::vector<std::uint8_t>> images;
  for (const auto& [attribute, foam] : {std::pair{0.0f, 1.0f}, {1.0f, 0.0f}, {1.0f, 1.0f}}) {
    float* b = r.mappedBodies(0);
    for (std::uint32_t i = 0; i < n; ++i) b[4 * i + 3] = attribute;
    FrameSubmit frame = tankFrame(images.size(), n, RenderMode::Surface);
    frame.surface.foam = foam;
    r.submit(frame);
    images.push_back(r.finishCapture(frame.frame));
  }
  EXPECT_TRUE(images[0] == images[1]) << "slow liquid, or foam off: the same picture";
  const glm::ivec3 calm = rgbAt(images[0], top), foamy = rgbAt(images[2], top);
  EXPECT_GT(foamy.r, calm.r + 60) << "foam is white: red rises most";
  EXPECT_LT(foamy.b - foamy.r, calm.b - calm.r) << "and the blue tint fades";
}

TEST_F(RenderTest, SurfaceSmoothingFlattensTheSpheresBumps) {
  ParticleRenderer& r = makeRenderer(kWidth, kHeight, kCapacity, 1);
  const std::uint32_t n = tankAtRest(r.mappedBodies(0));
  const glm::ivec2 top = pixelOf({0.12f, 0.1f, 0.15f}); // the liquid's flat top, away from walls and obstacle
  std::vector<double> bumps;
  for (const int iterations : {0, 3}) {
    FrameSubmit frame = tankFrame(bumps.size(), n, RenderMode::Surface);
    frame.surface.smoothingIterations = iterations;
    r.submit(frame);
    bumps.push_back(roughness(r.finishCapture(frame.frame), top, 6));
  }
  EXPECT_LT(bumps[1], 0.6 * bumps[0]) << "unsmoothed " << bumps[0] << ", smoothed " << bumps[1];
}

TEST_F(RenderTest, ObstacleIsDrawnDepthCorrectInBothModes) {
  ParticleRenderer& r = makeRenderer(kWidth, kHeight, 4, 1);
  // One particle just behind the obstacle's centre (hidden), one just in front of its near side (shown).
  const Camera camera = tankCamera();
  const glm::vec3 towardsEye = glm::normalize(camera.eye() - kObstacle.centre);
  const glm::vec3 behind = kObstacle.centre - towardsEye * (kObstacle.radius + 0.02f);
  const glm::vec3 before = kObstacle.centre + towardsEye * (kObstacle.radius + 0.02f);
  float* b = r.mappedBodies(0);
  for (int k = 0; k < 3; ++k) b[k] = behind[k];
  b[3] = 1.0f;                                                                    // white in the fluid palette
  for (int k = 0; k < 3; ++k) b[4 + k] = before[k] + camera.view()[k][0] * 0.03f; // beside the centre, in front
  b[7] = 1.0f;
  FrameSubmit frame = tankFrame(0, 2, RenderMode::Particles);
  frame.style.pointRadius = 0.01f;
  r.submit(frame);
  const std::vector<std::uint8_t> pixels = r.finishCapture(0);
  const glm::ivec3 centre = rgbAt(pixels, pixelOf(kObstacle.centre));
  EXPECT_GT(centre.r, centre.b + 20) << "the obstacle's sand colour at its centre, not the white particle behind it";
  const glm::ivec3 front = rgbAt(pixels, pixelOf(glm::vec3(b[4], b[5], b[6])));
  EXPECT_GT(std::min({front.r, front.g, front.b}), 150) << "the white particle in front of the obstacle";
}

TEST_F(RenderTest, EveryPassIsTimedAndParticleModeSpendsNothingOnTheSurface) {
  ParticleRenderer& r = makeRenderer(kWidth, kHeight, kCapacity, 1);
  const std::uint32_t n = tankAtRest(r.mappedBodies(0));
  r.submit(tankFrame(0, n, RenderMode::Surface));
  r.finishCapture(0);
  const RenderPassTimes surface = r.lastRenderPassTimes();
  if (surface.total < 0.0) GTEST_SKIP() << "this device's queue has no timestamps";
  for (const double t : {surface.scene, surface.thickness, surface.depth, surface.smoothing, surface.shading})
    EXPECT_GE(t, 0.0);
  EXPECT_GT(surface.thickness + surface.depth + surface.smoothing, 0.0);
  EXPECT_NEAR(surface.total, surface.scene + surface.thickness + surface.depth + surface.smoothing + surface.shading,
              1e-6);
  EXPECT_DOUBLE_EQ(r.lastRenderGpuMs(), surface.total);

  r.submit(tankFrame(1, n, RenderMode::Particles));
  r.finishCapture(1);
  const RenderPassTimes particles = r.lastRenderPassTimes();
  EXPECT_GT(particles.scene, 0.0);
  EXPECT_EQ(particles.scene, particles.total);
  EXPECT_EQ(particles.thickness, 0.0);
  EXPECT_EQ(particles.depth, 0.0);
  EXPECT_EQ(particles.smoothing, 0.0);
}

TEST_F(RenderTest, SurfaceModeSurvivesAResize) {
  ParticleRenderer& r = makeRenderer(kWidth, kHeight, kCapacity, 2);
  const std::uint32_t n = tankAtRest(r.mappedBodies(0));
  tankAtRest(r.mappedBodies(1));
  r.submit(tankFrame(0, n, RenderMode::Surface));
  r.finishCapture(0);
  r.resize(kWidth / 2, kHeight / 2);
  r.submit(tankFrame(1, n, RenderMode::Surface));
  const std::vector<std::uint8_t> small = r.finishCapture(1);
  EXPECT_EQ(small.size(), std::size_t{kWidth / 2} * (kHeight / 2) * 4);
  EXPECT_GT(countNonBackground(small), std::size_t{kWidth / 2} * (kHeight / 2) / 4);
}

} // namespace
} // namespace graphsim::render::test
