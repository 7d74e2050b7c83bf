// The resize storm (issue 6): 200 rapid window resizes, one per loop iteration, with degenerate sizes (1x1, 1xH, Wx1)
// and zero-size framebuffers (minimised, resized while minimised, restored), on whatever display there is (Xvfb +
// lavapipe in CI). No crash, no validation message, and the run ends at the storm's last size.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "app/ui/resize_storm.h"
#include "tests/cli/run_graphsim.h"
#include "tests/ui/ui_test_support.h"

namespace {

namespace fs = std::filesystem;

TEST(ResizeStorm, TwoHundredResizesIncludingZeroSizeWithoutValidationMessages) {
  GRAPHSIM_REQUIRE_DISPLAY();
  const std::string script = graphsim::app::resizeStormScript(200, 1);
  // The storm's last size: the last "resize=WxH" of the script.
  const std::size_t last = script.rfind("resize=");
  unsigned width = 0, height = 0;
  ASSERT_EQ(std::sscanf(script.c_str() + last, "resize=%ux%u", &width, &height), 2);
  EXPECT_NE(script.find("resize=1x1"), std::string::npos);
  EXPECT_NE(script.find("minimise"), std::string::npos);

  const fs::path dir = fs::path(GRAPHSIM_TEST_TMP) / "storm";
  fs::create_directories(dir);
  const fs::path capture = dir / "storm.png";
  fs::remove(capture);
  // 300 frames outlast the storm's ~240 loop iterations (minimised iterations render nothing).
  const auto r =
      graphsim::test::runGraphsim({"run", "--backend", "cpu", "--bodies", "1024", "--frames", "300", "--validation",
                                   "--quiet", "--capture", capture.string(), "--window-script", "storm=200"},
                                  600);
  ASSERT_FALSE(r.timedOut) << r.err;
  ASSERT_EQ(r.signal, 0) << "crashed:\n" << r.err;
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("300 frames"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("validation messages: 0"), std::string::npos) << r.err;
  // The last frame was rendered at the storm's last size: the resizes reached the swapchain and the renderer.
  unsigned capturedWidth = 0, capturedHeight = 0;
  ASSERT_NO_FATAL_FAILURE(graphsim::test::readPngSize(capture, capturedWidth, capturedHeight));
  EXPECT_EQ(capturedWidth, width);
  EXPECT_EQ(capturedHeight, height);
}

TEST(ResizeStorm, ScriptHasTheRequestedResizesInAscendingTicks) {
  const std::string script = graphsim::app::resizeStormScript(200, 7);
  std::size_t resizes = 0, minimises = 0;
  for (std::size_t at = script.find("resize="); at != std::string::npos; at = script.find("resize=", at + 1)) ++resizes;
  for (std::size_t at = script.find("minimise"); at != std::string::npos; at = script.find("minimise", at + 1))
    ++minimises;
  // 200 resizes, every tenth of them while minimised (20 minimise/restore pairs).
  EXPECT_EQ(resizes, 200u);
  EXPECT_EQ(minimises, 20u);
}

} // namespace
