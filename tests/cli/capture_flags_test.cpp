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

// Issue 31: every output is registered before any work, numbered names included: a named output that is one of the
// captures' generated names (also through a symlink to a file not yet there) exits 2 naming both, and nothing runs.
TEST(OutputRegistry, ANamedOutputAmongTheGeneratedNamesIsRefusedNamingBoth) {
  const fs::path dir = freshDir("registry");
  const std::vector<std::string> run = {"run",
                                        "--headless",
                                        "--backend",
                                        "cpu",
                                        "--bodies",
                                        "64",
                                        "--frames",
                                        "10",
                                        "--quiet",
                                        "--capture",
                                        (dir / "f.png").string(),
                                        "--capture-every",
                                        "5"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = run;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const std::string numbered = (fs::weakly_canonical(dir) / "f_NNNNNN.png").string();
  ProcessResult r = runGraphsim(with({"--save-state", (dir / "f_000005.png").string()}));
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("--save-state " + (dir / "f_000005.png").string() + " and --capture-every's images " + numbered +
                       " (one of them) name the same file"),
            std::string::npos)
      << r.err;
  fs::create_symlink("f_000010.png", dir / "link.json");
  r = runGraphsim(with({"--record", (dir / "link.json").string()}));
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("--record " + (dir / "link.json").string() + " and --capture-every's images"), std::string::npos)
      << r.err;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1) << "a refused run wrote files";

  // A name the captures will not write (frame 3 of every 5th; frame 15 of 10) is the user's to choose.
  r = runGraphsim(with({"--save-state", (dir / "f_000003.png").string()}));
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "f_000003.png"));
  EXPECT_TRUE(fs::exists(dir / "f_000010.png"));

  // bench's capture directory: frame_NNNNNN.png and .json.
  const ProcessResult b =
      runGraphsim({"bench", "--backend", "cpu", "--bodies", "64", "--frames", "2", "--capture-dir", dir.string(),
                   "--capture-every", "1", "--json", (dir / "frame_000002.json").string()});
  EXPECT_EQ(b.exitCode, 2) << b.err;
  EXPECT_NE(b.err.find("and --capture-dir's files"), std::string::npos) << b.err;
}

} // namespace
} // namespace graphsim::test
