#include "tests/render/render_test_support.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <span>

#include <vulkan/vulkan.h>

#include "app/io/output_file.h"
#include "render/offscreen_target.h"
#include "render/png.h"

// The test binary's one stb_image implementation (PNG loading for golden comparisons).
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_PNG
#include <stb/stb_image.h>

namespace graphsim::render::test {
namespace {

// Keeps the Vulkan driver loaded for the whole test run. Each VulkanContext loads the ICDs when it creates its
// instance and unloads them when it destroys it; glibc never gives back the static TLS that the NVIDIA driver's
// libnvidia-tls takes on each load, so after a few dozen contexts in one process the next load failed ("cannot
// allocate memory in static TLS block", then "Found no drivers"). One bare instance alive throughout means the
// later loads find the driver already there.
class DriverKeptLoaded : public ::testing::Environment {
public:
  void SetUp() override {
    const VkApplicationInfo app{.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_3};
    const VkInstanceCreateInfo info{.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    if (vkCreateInstance(&info, nullptr, &instance_) != VK_SUCCESS) {
      instance_ = VK_NULL_HANDLE; // no Vulkan at all: the tests themselves say so
    }
  }
  void TearDown() override {
    if (instance_ != VK_NULL_HANDLE) {
      vkDestroyInstance(instance_, nullptr);
      instance_ = VK_NULL_HANDLE;
    }
  }

private:
  VkInstance instance_ = VK_NULL_HANDLE;
};

// gtest owns it; registered before main runs.
[[maybe_unused]] const ::testing::Environment* const kDriverKeptLoaded =
    ::testing::AddGlobalTestEnvironment(new DriverKeptLoaded);

} // namespace

void RenderTest::SetUp() {
  DeviceRequest request;
  request.validation = true;
  context = std::make_unique<VulkanContext>(request);
}

void RenderTest::TearDown() {
  renderer.reset(); // drains; its shutdown must be clean under validation too
  if (context) {
    EXPECT_EQ(context->validationMessages(), 0u) << "validation reported problems (printed above on stderr)";
  }
}

ParticleRenderer& RenderTest::makeRenderer(std::uint32_t width, std::uint32_t height, std::uint32_t maxBodies,
                                           std::uint32_t framesInFlight) {
  renderer.reset();
  RendererConfig config;
  config.width = width;
  config.height = height;
  config.maxBodies = maxBodies;
  config.framesInFlight = framesInFlight;
  config.mode = BodyBufferMode::HostVisible;
  config.waitTimeout = std::chrono::milliseconds(20000); // lavapipe on a busy 2-core CI machine is slow
  renderer = std::make_unique<ParticleRenderer>(*context, config);
  return *renderer;
}

std::optional<Image> loadPng(const std::filesystem::path& path) {
  int width = 0;
  int height = 0;
  int channels = 0;
  stbi_uc* pixels = stbi_load(path.c_str(), &width, &height, &channels, 4);
  if (pixels == nullptr) {
    return std::nullopt;
  }
  Image image;
  image.width = static_cast<std::uint32_t>(width);
  image.height = static_cast<std::uint32_t>(height);
  image.rgba.assign(pixels, pixels + static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4);
  stbi_image_free(pixels);
  return image;
}

void writeSpiral(float* bodies, std::uint32_t count) {
  constexpr float kTwoPi = 2.0f * std::numbers::pi_v<float>;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t arm = i % 2;
    const float t = static_cast<float>(i / 2) / static_cast<float>(std::max<std::uint32_t>(count / 2, 1));
    const float angle = t * 1.6f * kTwoPi + static_cast<float>(arm) * std::numbers::pi_v<float>;
    const float radius = 0.35f + 2.6f * t;
    bodies[4 * i + 0] = radius * std::cos(angle);
    bodies[4 * i + 1] = 0.35f * std::sin(3.0f * angle);
    bodies[4 * i + 2] = radius * std::sin(angle);
    bodies[4 * i + 3] = t;
  }
}

ImageDiff compareImages(const Image& actual, const Image& expected, int channelTolerance) {
  ImageDiff result;
  result.diff.width = actual.width;
  result.diff.height = actual.height;
  result.diff.rgba.resize(actual.rgba.size());
  const std::size_t pixels = actual.rgba.size() / 4;
  std::size_t within = 0;
  double sum = 0.0;
  for (std::size_t p = 0; p < pixels; ++p) {
    int worst = 0;
    for (std::size_t c = 0; c < 4; ++c) {
      const int d = std::abs(int{actual.rgba[4 * p + c]} - int{expected.rgba[4 * p + c]});
      worst = std::max(worst, d);
      sum += d;
      result.diff.rgba[4 * p + c] = c == 3 ? 255 : static_cast<std::uint8_t>(std::min(255, d * 4));
    }
    result.maxAbsDiff = std::max(result.maxAbsDiff, worst);
    within += worst <= channelTolerance ? 1 : 0;
  }
  result.fractionWithin = pixels ? static_cast<double>(within) / static_cast<double>(pixels) : 1.0;
  result.meanAbsDiff = pixels ? sum / static_cast<double>(pixels * 4) : 0.0;
  return result;
}

std::size_t countNonBackground(const std::vector<std::uint8_t>& rgba) {
  const VkClearColorValue background = OffscreenTarget::kBackground;
  std::size_t count = 0;
  for (std::size_t p = 0; p + 3 < rgba.size(); p += 4) {
    for (std::size_t c = 0; c < 3; ++c) {
      const long expected = std::lround(background.float32[c] * 255.0f);
      if (std::abs(long{rgba[p + c]} - expected) > 1) {
        ++count;
        break;
      }
    }
  }
  return count;
}

void writePngFile(const std::filesystem::path& path, const Image& image) {
  const std::vector<std::uint8_t> png = encodePng(image.rgba, image.width, image.height);
  app::writeOutput(path, std::as_bytes(std::span(png)));
}

void expectMatchesGolden(const Image& actual, const std::string& name, const GoldenTolerance& tolerance,
                         const std::string& device) {
  const std::filesystem::path golden = std::filesystem::path(GRAPHSIM_TEST_DATA_DIR) / (name + ".png");
  const char* update = std::getenv("GRAPHSIM_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    writePngFile(golden, actual);
    std::fprintf(stderr, "rewrote the golden image %s\n", golden.c_str());
    return;
  }
  const std::optional<Image> expected = loadPng(golden);
  ASSERT_TRUE(expected.has_value()) << "cannot load " << golden << "; run with GRAPHSIM_UPDATE_GOLDEN=1 to create it";
  ASSERT_EQ(expected->width, actual.width);
  ASSERT_EQ(expected->height, actual.height);

  const ImageDiff diff = compareImages(actual, *expected, tolerance.channel);
  const bool matches =
      diff.fractionWithin >= tolerance.minFractionWithin && diff.meanAbsDiff < tolerance.maxMeanAbsDiff;
  std::fprintf(stderr, "golden comparison of %s on %s: %.3f%% of pixels within %d, mean abs diff %.4f, max %d\n",
               name.c_str(), device.c_str(), diff.fractionWithin * 100.0, tolerance.channel, diff.meanAbsDiff,
               diff.maxAbsDiff);
  if (!matches) {
    const std::filesystem::path actualPath = testOutputDir() / (name + ".actual.png");
    const std::filesystem::path diffPath = testOutputDir() / (name + ".diff.png");
    writePngFile(actualPath, actual);
    writePngFile(diffPath, diff.diff);
    ADD_FAILURE() << "render differs from " << golden << ": " << diff.fractionWithin * 100.0 << "% of pixels within "
                  << tolerance.channel << " (need " << tolerance.minFractionWithin * 100.0 << "%), mean abs diff "
                  << diff.meanAbsDiff << " (need < " << tolerance.maxMeanAbsDiff << "), max " << diff.maxAbsDiff
                  << ". Actual image: " << actualPath << ", diff (x4): " << diffPath;
  }
}

std::filesystem::path testOutputDir() {
  const std::filesystem::path dir = GRAPHSIM_TEST_OUTPUT_DIR;
  std::filesystem::create_directories(dir);
  return dir;
}

} // namespace graphsim::render::test
