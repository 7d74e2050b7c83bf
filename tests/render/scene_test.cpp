// The fluid scene's render pieces, offscreen: the box's edges and room, the fluid palette, and the sphere impostor
// (its shading and its world-space size). Pixel positions come from the same camera matrices the renderer uses.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <span>
#include <vector>

#include "app/io/output_file.h"
#include "render/offscreen_target.h"
#include "tests/render/render_test_support.h"

namespace graphsim::render::test {
namespace {

struct Rgb {
  int r = 0, g = 0, b = 0;
  int sum() const { return r + g + b; }
};

Rgb pixelAt(const std::vector<std::uint8_t>& rgba, std::uint32_t width, int x, int y) {
  const std::size_t i = (static_cast<std::size_t>(y) * width + static_cast<std::size_t>(x)) * 4;
  return {rgba[i], rgba[i + 1], rgba[i + 2]};
}

// Where a world point lands, in pixels (x right, y down, pixel centres at +0.5) of a width x height frame.
glm::vec2 toPixel(const Camera& camera, std::uint32_t width, std::uint32_t height, glm::vec3 world) {
  const float aspect = static_cast<float>(width) / static_cast<float>(height);
  const glm::vec4 clip = camera.projection(aspect) * camera.view() * glm::vec4(world, 1.0f);
  const glm::vec2 ndc = glm::vec2(clip) / clip.w;
  return {(ndc.x * 0.5f + 0.5f) * static_cast<float>(width), (ndc.y * 0.5f + 0.5f) * static_cast<float>(height)};
}

// Bilinear between the 4 pixel centres around p: the shading is smooth there, so this is the colour at p itself.
glm::vec3 sampleAt(const std::vector<std::uint8_t>& rgba, std::uint32_t width, glm::vec2 p) {
  const glm::vec2 q = p - 0.5f;
  const int x0 = static_cast<int>(std::floor(q.x));
  const int y0 = static_cast<int>(std::floor(q.y));
  const glm::vec2 f = q - glm::vec2(static_cast<float>(x0), static_cast<float>(y0));
  const auto rgb = [&](int x, int y) {
    const Rgb c = pixelAt(rgba, width, x, y);
    return glm::vec3(static_cast<float>(c.r), static_cast<float>(c.g), static_cast<float>(c.b));
  };
  return glm::mix(glm::mix(rgb(x0, y0), rgb(x0 + 1, y0), f.x), glm::mix(rgb(x0, y0 + 1), rgb(x0 + 1, y0 + 1), f.x),
                  f.y);
}

float distanceToSegment(glm::vec2 p, glm::vec2 a, glm::vec2 b) {
  const glm::vec2 ab = b - a;
  const float t = std::clamp(glm::dot(p - a, ab) / std::max(glm::dot(ab, ab), 1e-12f), 0.0f, 1.0f);
  return glm::length(p - (a + t * ab));
}

glm::vec3 corner(const Box& box, int bits) {
  return {(bits & 1) != 0 ? box.max.x : box.min.x, (bits & 2) != 0 ? box.max.y : box.min.y,
          (bits & 4) != 0 ? box.max.z : box.min.z};
}

// The 12 edges as corner pairs (corner bits: 1 = max x, 2 = max y, 4 = max z).
constexpr std::array<std::array<int, 2>, 12> kEdges{
    {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}}};

bool isEdgeColour(Rgb c) {
  const auto near = [](int value, float expected) { return std::abs(value - std::lround(expected * 255.0f)) <= 2; };
  return near(c.r, kBoxEdgeColour[0]) && near(c.g, kBoxEdgeColour[1]) && near(c.b, kBoxEdgeColour[2]);
}

Rgb background() {
  const VkClearColorValue b = OffscreenTarget::kBackground;
  return {static_cast<int>(std::lround(b.float32[0] * 255.0f)), static_cast<int>(std::lround(b.float32[1] * 255.0f)),
          static_cast<int>(std::lround(b.float32[2] * 255.0f))};
}

bool isBackground(Rgb c) {
  const Rgb b = background();
  return std::abs(c.r - b.r) <= 1 && std::abs(c.g - b.g) <= 1 && std::abs(c.b - b.b) <= 1;
}

void savePng(const char* name, const std::vector<std::uint8_t>& rgba, std::uint32_t width, std::uint32_t height) {
  const std::vector<std::uint8_t> png = encodePng(rgba, width, height);
  app::writeOutput(testOutputDir() / name, std::as_bytes(std::span(png)));
}

constexpr std::uint32_t kBoxWidth = 200;
constexpr std::uint32_t kBoxHeight = 140;

TEST_F(RenderTest, BoxEdgesAppearAlongTheirProjectionAndNowhereElse) {
  ParticleRenderer& r = makeRenderer(kBoxWidth, kBoxHeight, 4, 1);
  const Box box{{0.0f, 0.0f, 0.0f}, {1.0f, 0.6f, 0.8f}};
  const Camera camera = frameBox(box, static_cast<float>(kBoxWidth) / kBoxHeight);
  r.submit({.frame = 0, .bodyCount = 0, .camera = camera, .capture = true, .box = box});
  const std::vector<std::uint8_t> pixels = r.finishCapture(0);
  savePng("scene_box.png", pixels, kBoxWidth, kBoxHeight);

  std::vector<std::array<glm::vec2, 2>> projected;
  for (const auto& [a, b] : kEdges) {
    projected.push_back({toPixel(camera, kBoxWidth, kBoxHeight, corner(box, a)),
                         toPixel(camera, kBoxWidth, kBoxHeight, corner(box, b))});
  }
  // Along every edge (away from its ends): a pixel of the edge colour within one pixel of the projected line.
  for (std::size_t e = 0; e < projected.size(); ++e) {
    for (const float t : {0.2f, 0.35f, 0.5f, 0.65f, 0.8f}) {
      const glm::vec2 p = glm::mix(projected[e][0], projected[e][1], t);
      bool found = false;
      for (int dy = -1; dy <= 1 && !found; ++dy) {
        for (int dx = -1; dx <= 1 && !found; ++dx) {
          found = isEdgeColour(pixelAt(pixels, kBoxWidth, static_cast<int>(p.x) + dx, static_cast<int>(p.y) + dy));
        }
      }
      EXPECT_TRUE(found) << "edge " << e << " at t = " << t << ": no edge-coloured pixel near (" << p.x << ", " << p.y
                         << ") (see scene_box.png)";
    }
  }
  // Away from every edge (more than 2.5 pixels): never the edge colour.
  std::size_t stray = 0;
  std::size_t offEdge = 0;
  for (std::uint32_t y = 0; y < kBoxHeight; ++y) {
    for (std::uint32_t x = 0; x < kBoxWidth; ++x) {
      const glm::vec2 centre{static_cast<float>(x) + 0.5f, static_cast<float>(y) + 0.5f};
      float nearest = 1e9f;
      for (const auto& [a, b] : projected) nearest = std::min(nearest, distanceToSegment(centre, a, b));
      if (nearest > 2.5f) {
        ++offEdge;
        stray += isEdgeColour(pixelAt(pixels, kBoxWidth, static_cast<int>(x), static_cast<int>(y))) ? 1 : 0;
      }
    }
  }
  EXPECT_GT(offEdge, kBoxWidth * kBoxHeight / 2);
  EXPECT_EQ(stray, 0u) << "edge-coloured pixels away from the projected edges";

  // The room: inside the floor's projection a tint over the background, lighter than the background but darker than
  // the edges; above the box's top, nothing.
  const glm::vec2 floorCentre = toPixel(camera, kBoxWidth, kBoxHeight, {0.5f, 0.0f, 0.4f});
  const Rgb floor = pixelAt(pixels, kBoxWidth, static_cast<int>(floorCentre.x), static_cast<int>(floorCentre.y));
  EXPECT_FALSE(isBackground(floor)) << "no floor at the floor's centre";
  EXPECT_LT(floor.sum(), 3 * 115) << "the room is a tint, darker than the edges";
  EXPECT_TRUE(isBackground(pixelAt(pixels, kBoxWidth, 2, 2))) << "the frame's corner is outside the box";
}

TEST_F(RenderTest, BoxWithoutFloorAndNoBoxLeaveTheInsideBackground) {
  ParticleRenderer& r = makeRenderer(kBoxWidth, kBoxHeight, 4, 1);
  const Box box{{-2.0f, -1.0f, -2.0f}, {2.0f, 1.0f, 2.0f}};
  const Camera camera = frameBox(box, static_cast<float>(kBoxWidth) / kBoxHeight);
  r.submit({.frame = 0, .bodyCount = 0, .camera = camera, .capture = true, .box = box, .boxFloor = false});
  const std::vector<std::uint8_t> noFloor = r.finishCapture(0);
  const glm::vec2 floorCentre = toPixel(camera, kBoxWidth, kBoxHeight, {0.0f, -1.0f, 0.0f});
  EXPECT_TRUE(
      isBackground(pixelAt(noFloor, kBoxWidth, static_cast<int>(floorCentre.x), static_cast<int>(floorCentre.y))));
  EXPECT_GT(countNonBackground(noFloor), 200u) << "the edges";

  r.submit({.frame = 1, .bodyCount = 0, .camera = camera, .capture = true});
  EXPECT_EQ(countNonBackground(r.finishCapture(1)), 0u) << "no box asked for, none drawn";
}

TEST_F(RenderTest, BoxEdgesAreDepthTestedAgainstParticles) {
  ParticleRenderer& r = makeRenderer(kBoxWidth, kBoxHeight, 4, 1);
  const Box box{{0.0f, 0.0f, 0.0f}, {1.0f, 1.0f, 1.0f}};
  const Camera camera = frameBox(box, static_cast<float>(kBoxWidth) / kBoxHeight);
  // The nearest vertical edge (max x, max z), hidden at its middle by a sphere just in front of it.
  const glm::vec3 edgeMiddle{1.0f, 0.5f, 1.0f};
  const glm::vec3 inFront = edgeMiddle + 0.1f * glm::normalize(camera.eye() - edgeMiddle);
  float* bodies = r.mappedBodies(0);
  bodies[0] = inFront.x;
  bodies[1] = inFront.y;
  bodies[2] = inFront.z;
  bodies[3] = 1.0f;
  r.submit({.frame = 0,
            .bodyCount = 1,
            .camera = camera,
            .style = {.pointRadius = 0.08f, .palette = Palette::Fluid},
            .capture = true,
            .box = box});
  const std::vector<std::uint8_t> pixels = r.finishCapture(0);
  const glm::vec2 p = toPixel(camera, kBoxWidth, kBoxHeight, edgeMiddle);
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      const Rgb c = pixelAt(pixels, kBoxWidth, static_cast<int>(p.x) + dx, static_cast<int>(p.y) + dy);
      EXPECT_FALSE(isEdgeColour(c)) << "the edge shows through the sphere in front of it";
      EXPECT_FALSE(isBackground(c));
    }
  }
}

// Spheres of attribute 0, 0.5 and 1 seen head-on: at each centre the colour is the documented palette colour times
// one shading factor (the centre's ambient + Lambert), the same for all three.
struct PaletteCase {
  Palette palette;
  std::array<std::array<float, 3>, 3> colours; // documented (render/render_types.h) at 0, 0.5, 1
};

void expectPalette(ParticleRenderer& r, std::uint64_t frame, const PaletteCase& expected) {
  constexpr std::uint32_t kSize = 96;
  Camera camera{.yawDeg = 0.0f, .pitchDeg = 0.0f, .distance = 4.0f};
  float* bodies = r.mappedBodies(0);
  const std::array<float, 3> attribute{0.0f, 0.5f, 1.0f};
  for (int i = 0; i < 3; ++i) {
    const float row[4] = {static_cast<float>(i - 1), 0.0f, 0.0f, attribute[i]};
    std::copy(row, row + 4, bodies + 4 * i);
  }
  r.submit({.frame = frame,
            .bodyCount = 3,
            .camera = camera,
            .style = {.pointRadius = 0.3f, .colourScale = 1.0f, .palette = expected.palette},
            .capture = true});
  const std::vector<std::uint8_t> pixels = r.finishCapture(frame);
  savePng(expected.palette == Palette::Fluid ? "scene_palette_fluid.png" : "scene_palette_nbody.png", pixels, kSize,
          kSize);
  float shading = -1.0f;
  for (int i = 0; i < 3; ++i) {
    const glm::vec2 p = toPixel(camera, kSize, kSize, {static_cast<float>(i - 1), 0.0f, 0.0f});
    const glm::vec3 c = sampleAt(pixels, kSize, p);
    const std::array<float, 3> want = expected.colours[i];
    const float wantMax = std::max({want[0], want[1], want[2]});
    const float gotMax = std::max({c.r, c.g, c.b}) / 255.0f;
    if (shading < 0.0f) shading = gotMax / wantMax;
    EXPECT_GT(shading, 0.5f);
    EXPECT_LT(shading, 0.9f) << "the centre of a sphere is lit, not saturated";
    const std::array<float, 3> got{c.r, c.g, c.b};
    for (int ch = 0; ch < 3; ++ch) {
      EXPECT_NEAR(got[ch], want[ch] * shading * 255.0f, 2.5f)
          << "palette " << static_cast<int>(expected.palette) << " attribute " << attribute[i] << " channel " << ch
          << ": got (" << c.r << ", " << c.g << ", " << c.b << ")";
    }
  }
}

TEST_F(RenderTest, FluidPaletteMapsTheAttributeToDeepBlueCyanWhite) {
  ParticleRenderer& r = makeRenderer(96, 96, 3, 1);
  expectPalette(r, 0, {Palette::Fluid, {{{0.02f, 0.10f, 0.45f}, {0.10f, 0.80f, 1.00f}, {1.00f, 1.00f, 1.00f}}}});
}

TEST_F(RenderTest, DefaultPaletteIsStillTheNBodyOne) {
  ParticleRenderer& r = makeRenderer(96, 96, 3, 1);
  EXPECT_EQ(DrawStyle{}.palette, Palette::NBody);
  expectPalette(r, 0, {Palette::NBody, {{{0.22f, 0.45f, 1.00f}, {1.00f, 0.97f, 0.92f}, {1.00f, 0.52f, 0.10f}}}});
}

// One sphere head-on, its quad at exactly `distance` from the eye: its radius in pixels is
// radius / (distance * tan(fovY / 2)) * height / 2.
struct Impostor {
  std::vector<std::uint8_t> pixels;
  float pixelRadius = 0.0f;
};

constexpr std::uint32_t kImpostorSize = 128;

Impostor renderImpostor(ParticleRenderer& r, std::uint64_t frame, float radius, float distance) {
  Camera camera{.yawDeg = 0.0f, .pitchDeg = 0.0f, .distance = distance};
  float* bodies = r.mappedBodies(0);
  const float body[4] = {0.0f, 0.0f, 0.0f, 0.0f}; // fluid attribute 0: deep blue, no channel saturates
  std::copy(body, body + 4, bodies);
  r.submit({.frame = frame,
            .bodyCount = 1,
            .camera = camera,
            .style = {.pointRadius = radius, .palette = Palette::Fluid},
            .capture = true});
  Impostor result{r.finishCapture(frame)};
  result.pixelRadius =
      radius / (distance * std::tan(glm::radians(camera.fovYDeg) * 0.5f)) * static_cast<float>(kImpostorSize) * 0.5f;
  return result;
}

// Half-open run of non-background pixels across the middle row.
int discWidth(const std::vector<std::uint8_t>& pixels) {
  int width = 0;
  for (int x = 0; x < static_cast<int>(kImpostorSize); ++x) {
    width += isBackground(pixelAt(pixels, kImpostorSize, x, kImpostorSize / 2)) ? 0 : 1;
  }
  return width;
}

TEST_F(RenderTest, ImpostorIsBrightestOnItsLitSideDarkerAtItsRimAndCutAtItsRadius) {
  ParticleRenderer& r = makeRenderer(kImpostorSize, kImpostorSize, 1, 1);
  const Impostor sphere = renderImpostor(r, 0, 0.2f, 1.0f);
  savePng("scene_impostor.png", sphere.pixels, kImpostorSize, kImpostorSize);
  const float c = kImpostorSize * 0.5f;
  const float radius = sphere.pixelRadius;
  const auto at = [&](float qx, float qy) { // quad coordinate, +y up
    return pixelAt(sphere.pixels, kImpostorSize, static_cast<int>(c + qx * radius), static_cast<int>(c - qy * radius));
  };
  // The key light comes from the upper left, in front (shaders/particle.frag): its highlight is at the quad
  // coordinate of the light direction's x and y.
  const glm::vec3 light = glm::normalize(glm::vec3(-0.45f, 0.6f, 0.65f));
  const int lit = at(light.x, light.y).sum();
  const int centre = at(0.0f, 0.0f).sum();
  const int darkRim = at(-light.x * 0.9f, -light.y * 0.9f).sum();
  double rimMean = 0.0;
  constexpr int kRimSamples = 24;
  for (int i = 0; i < kRimSamples; ++i) {
    const float angle = 2.0f * 3.14159265f * static_cast<float>(i) / kRimSamples;
    rimMean += at(0.9f * std::cos(angle), 0.9f * std::sin(angle)).sum() / static_cast<double>(kRimSamples);
  }
  std::fprintf(stderr, "impostor of %.1f px: lit %d, centre %d, rim mean %.1f, dark rim %d\n", radius, lit, centre,
               rimMean, darkRim);
  EXPECT_GT(lit, centre + 20);
  EXPECT_GT(lit, rimMean * 1.4) << "the lit side must stand out from the rim";
  EXPECT_GT(lit, darkRim * 2);
  EXPECT_GT(darkRim, 0) << "ambient light keeps the dark side visible";
  // Outside the radius: discarded, background.
  EXPECT_TRUE(isBackground(at(1.15f, 0.0f)));
  EXPECT_TRUE(isBackground(at(0.0f, -1.15f)));
  EXPECT_TRUE(isBackground(at(0.85f, 0.85f))) << "a disc, not the whole quad";
}

TEST_F(RenderTest, ImpostorSizeFollowsTheWorldRadius) {
  ParticleRenderer& r = makeRenderer(kImpostorSize, kImpostorSize, 1, 1);
  // The fluid's particle radius (5 mm) seen from 2.5 cm, then from 5 cm, and a 0.2 m sphere from 1 m.
  const Impostor close = renderImpostor(r, 0, 0.005f, 0.025f);
  const Impostor far = renderImpostor(r, 1, 0.005f, 0.05f);
  const Impostor big = renderImpostor(r, 2, 0.2f, 1.0f);
  EXPECT_NEAR(discWidth(close.pixels), 2.0f * close.pixelRadius, 2.0f);
  EXPECT_NEAR(discWidth(far.pixels), 2.0f * far.pixelRadius, 2.0f);
  EXPECT_NEAR(discWidth(big.pixels), 2.0f * big.pixelRadius, 2.0f);
  EXPECT_GT(discWidth(close.pixels), discWidth(far.pixels) * 3 / 2);
}

} // namespace
} // namespace graphsim::render::test
