// Blow-up detection in a window (docs/FRAME.md): instead of ending the run, the app pauses and shows a red notice
// naming the frame and the stage. Windowed under a display (Xvfb + lavapipe in CI); skipped without one.
#include <gtest/gtest.h>

#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

#include <filesystem>
#include <string>

#include "tests/cli/run_graphsim.h"

namespace {

namespace fs = std::filesystem;

// Pixels of the notice's red text (ImGui colour 1.0, 0.25, 0.2, antialiased) in the band at the top of the window
// where the notice sits.
int noticeRedPixels(const fs::path& png) {
  int width = 0, height = 0, channels = 0;
  stbi_uc* rgba = stbi_load(png.c_str(), &width, &height, &channels, 4);
  if (rgba == nullptr) return -1;
  int count = 0;
  for (int y = 0; y < std::min(height, 60); ++y) {
    for (int x = 0; x < width; ++x) {
      const stbi_uc* p = rgba + 4 * (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + x);
      if (p[0] > 150 && p[1] < 110 && p[2] < 100 && p[0] > 2 * p[1]) ++count;
    }
  }
  stbi_image_free(rgba);
  return count;
}

graphsim::test::ProcessResult windowedRun(const fs::path& capture, const char* inject) {
  std::vector<std::string> args = {"run", "--backend", "cpu",          "--bodies",  "2048",          "--frames",
                                   "30",  "--quiet",   "--validation", "--capture", capture.string()};
  if (inject != nullptr) args.insert(args.end(), {"--inject", inject});
  return graphsim::test::runGraphsim(args, 300);
}

TEST(BlowUpNotice, WindowPausesAndShowsARedNoticeNamingFrameAndStage) {
  GRAPHSIM_REQUIRE_DISPLAY();
  const fs::path dir = fs::path(GRAPHSIM_TEST_TMP) / "blow_up";
  fs::create_directories(dir);
  const auto healthy = windowedRun(dir / "healthy.png", nullptr);
  ASSERT_EQ(healthy.exitCode, 0) << healthy.err;
  const auto blown = windowedRun(dir / "blown.png", "non-finite@5");
  ASSERT_FALSE(blown.timedOut) << blown.err;
  EXPECT_EQ(blown.exitCode, 0) << "a window pauses rather than exits:\n" << blown.err;
  EXPECT_NE(blown.err.find("the simulation blew up in frame 6, stage integrate: non-finite velocity"),
            std::string::npos)
      << blown.err;
  EXPECT_NE(blown.err.find("paused (R resets)"), std::string::npos) << blown.err;
  EXPECT_NE(blown.err.find("validation messages: 0"), std::string::npos) << blown.err;
  const int before = noticeRedPixels(dir / "healthy.png"), after = noticeRedPixels(dir / "blown.png");
  ASSERT_GE(before, 0);
  ASSERT_GE(after, 0);
  EXPECT_GT(after, before + 200) << "no red notice at the top of the captured window (" << before << " red pixels "
                                 << "without the blow-up, " << after << " with it)";
}

} // namespace
