// Shared pieces of the render tests: a fixture holding a validated VulkanContext, the golden scene, and PNG
// loading/comparison.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "render/particle_renderer.h"
#include "render/vulkan_context.h"

namespace graphsim::render::test {

// A VulkanContext with the Khronos validation layer and synchronisation validation on the default device.
// TearDown destroys the renderer first (its shutdown is validated too), then expects zero validation messages.
class RenderTest : public ::testing::Test {
protected:
  void SetUp() override;
  void TearDown() override;

  // A HostVisible renderer of the given size; replaces any previous one.
  ParticleRenderer& makeRenderer(std::uint32_t width, std::uint32_t height, std::uint32_t maxBodies,
                                 std::uint32_t framesInFlight = 2);

  std::unique_ptr<VulkanContext> context;
  std::unique_ptr<ParticleRenderer> renderer; // declared after context: destroyed first
};

struct Image {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::uint8_t> rgba; // top row first
};

// nullopt when the file is missing or not a PNG.
std::optional<Image> loadPng(const std::filesystem::path& path);

// `count` bodies on a deterministic two-armed spiral with a gentle vertical wave; the attribute runs 0..1 along
// each arm so the whole colour map appears.
void writeSpiral(float* bodies, std::uint32_t count);

struct ImageDiff {
  double fractionWithin = 0.0; // pixels whose every channel differs by <= the tolerance
  double meanAbsDiff = 0.0;    // over all channels of all pixels
  int maxAbsDiff = 0;
  Image diff; // |a - b| per channel, amplified x4, alpha opaque: where the images disagree
};
ImageDiff compareImages(const Image& actual, const Image& expected, int channelTolerance);

// How close an image must be to its reference: every channel within `channel` for at least `minFractionWithin` of
// the pixels, and a mean absolute difference below `maxMeanAbsDiff` (each golden test says why its numbers).
struct GoldenTolerance {
  int channel = 8;
  double minFractionWithin = 0.995;
  double maxMeanAbsDiff = 1.0;
};
// Compares `actual` with tests/data/<name>.png, or rewrites that file when GRAPHSIM_UPDATE_GOLDEN=1 (then look at it
// before committing). A mismatch writes <name>.actual.png and <name>.diff.png (x4) to testOutputDir() and fails
// naming them; `device` is printed with the figures.
void expectMatchesGolden(const Image& actual, const std::string& name, const GoldenTolerance& tolerance,
                         const std::string& device);
void writePngFile(const std::filesystem::path& path, const Image& image);

// How many pixels differ from the background clear colour by more than 1 in some channel.
std::size_t countNonBackground(const std::vector<std::uint8_t>& rgba);

std::filesystem::path testOutputDir(); // in the build tree, created on demand

} // namespace graphsim::render::test
