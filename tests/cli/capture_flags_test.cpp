// What a run tells the user about its output, run as a user would: --capture-every takes K >= 1 and says when its
// period outlasted the run; progress lines to a pipe stay few (the policy itself: tests/unit/progress_test.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "run_graphsim.h"

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;

fs::path freshDir(const std::string& name) {
  const fs::path d = fs::path(GRAPHSIM_TEST_TMP) / "capture-flags" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::vector<std::string> linesStartingWith(const std::string& text, const std::string& prefix) {
  std::vector<std::string> found;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) found.push_back(line);
  return found;
}

TEST(CaptureEvery, ZeroIsRefusedWithTheWayToSayIt) {
  const fs::path dir = freshDir("zero");
  const ProcessResult r =
      runGraphsim({"run", "--headless", "--capture", (dir / "c.png").string(), "--capture-every", "0"});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(r.err, "graphsim: error: --capture-every: must be >= 1 (omit it to capture only the last frame), got 0\n");
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST(CaptureEvery, NegativeIsRefusedQuotingTheText) {
  const ProcessResult r = runGraphsim({"run", "--capture-every", "-7"});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(r.err, "graphsim: error: --capture-every: must be >= 1 (omit it to capture only the last frame), got -7\n");
}

TEST(CaptureEvery, HelpSaysKAtLeastOne) {
  const ProcessResult r = runGraphsim({"run", "--help"});
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("K >= 1"), std::string::npos) << r.out;
}

TEST(CaptureEvery, PeriodLongerThanTheRunSaysNothingWasCaptured) {
  const fs::path dir = freshDir("longer");
  const ProcessResult r = runGraphsim({"run", "--headless", "--backend", "cpu", "--bodies", "64", "--frames", "5",
                                       "--capture", (dir / "c.png").string(), "--capture-every", "100", "--quiet"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(
      r.err.find(
          "graphsim: --capture-every 100: the run ended after 5 frames, before frame 100; nothing was captured\n"),
      std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST(CaptureEvery, PeriodWithinTheRunSaysNothingExtra) {
  const fs::path dir = freshDir("within");
  const ProcessResult r = runGraphsim({"run", "--headless", "--backend", "cpu", "--bodies", "64", "--frames", "5",
                                       "--capture", (dir / "c.png").string(), "--capture-every", "5", "--quiet"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "c_000005.png"));
  EXPECT_EQ(r.err.find("nothing was captured"), std::string::npos) << r.err;
}

// runGraphsim reads stderr through a pipe: the sparse style, at most one line per 10 % of the frames (the run is far
// shorter than the 10 s period), then the summary.
TEST(Progress, ToAPipeAtMostTenLinesThenTheSummary) {
  const ProcessResult r = runGraphsim({"run", "--headless", "--backend", "cpu", "--bodies", "16", "--frames", "300"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::vector<std::string> progress = linesStartingWith(r.err, "graphsim: frame ");
  EXPECT_GE(progress.size(), 1u) << r.err;
  EXPECT_LE(progress.size(), 10u) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << "no terminal redraws into a pipe";
  EXPECT_EQ(r.err.find("\x1b["), std::string::npos) << "no escape sequences into a pipe";
  EXPECT_EQ(linesStartingWith(r.err, "graphsim: 300 frames of 16 bodies").size(), 1u) << r.err;
}

TEST(Progress, QuietPrintsNone) {
  const ProcessResult r =
      runGraphsim({"run", "--headless", "--backend", "cpu", "--bodies", "16", "--frames", "300", "--quiet"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(linesStartingWith(r.err, "graphsim: frame ").empty()) << r.err;
}

} // namespace
} // namespace graphsim::test
