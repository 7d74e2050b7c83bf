// The windowed app for real: GLFW window, swapchain, panel, on whatever display there is (Xvfb + lavapipe in CI,
// see scripts/test.sh). Skipped without a display.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/cli/run_graphsim.h"
#include "tests/ui/ui_test_support.h"

namespace {

namespace fs = std::filesystem;

fs::path tmpDir() {
  const fs::path d = fs::path(GRAPHSIM_TEST_TMP) / "window";
  fs::create_directories(d);
  return d;
}

// 120 frames; resized twice, minimised and restored; the last frame captured with the panel; zero validation messages.
TEST(WindowSmoke, ResizeMinimiseRestoreCaptureWithPanel) {
  GRAPHSIM_REQUIRE_DISPLAY();
  const fs::path capture = tmpDir() / "windowed.png";
  fs::remove(capture);
  const auto r = graphsim::test::runGraphsim(
      {"run", "--backend", "cpu", "--bodies", "2048", "--frames", "120", "--validation", "--quiet", "--capture",
       capture.string(), "--window-script", "20:resize=900x600,45:resize=1100x700,70:minimise,80:restore"},
      300);
  ASSERT_FALSE(r.timedOut) << r.err;
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("120 frames"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("validation messages: 0"), std::string::npos) << r.err;
  ASSERT_TRUE(fs::exists(capture));
  // The capture has the window's last size (1100x700 in screen units; the framebuffer is the same without HiDPI).
  unsigned width = 0, height = 0;
  ASSERT_NO_FATAL_FAILURE(graphsim::test::readPngSize(capture, width, height));
  EXPECT_EQ(width, 1100u);
  EXPECT_EQ(height, 700u);
}

TEST(WindowSmoke, PresentModeFallsBackWithANotice) {
  GRAPHSIM_REQUIRE_DISPLAY();
  const auto r = graphsim::test::runGraphsim({"run", "--backend", "cpu", "--bodies", "256", "--frames", "10",
                                              "--present", "mailbox", "--validation", "--quiet"},
                                             120);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // Either mailbox is supported or the notice names the fallback; never silently something else.
  const bool fellBack = r.err.find("present mode mailbox is not supported") != std::string::npos;
  EXPECT_TRUE(fellBack || r.err.find("not supported") == std::string::npos) << r.err;
  EXPECT_NE(r.err.find("validation messages: 0"), std::string::npos) << r.err;
}

} // namespace
