// The progress policy (app/base/progress.h) with a fake clock: how many lines a run prints where, and what a terminal's
// line looks like. tests/cli/capture_flags_test.cpp checks the real executable to a pipe.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "app/base/progress.h"

namespace graphsim::app {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

Clock::time_point gNow;
Clock::time_point fakeNow() { return gNow; }

// Runs `frames` frames of `total` (0: unknown), `perFrame` apart on the fake clock, then finish(); returns the output.
std::string simulate(ProgressMode mode, std::uint64_t total, std::uint64_t frames, Clock::duration perFrame) {
  std::FILE* out = std::tmpfile();
  EXPECT_NE(out, nullptr);
  gNow = Clock::time_point{} + 1h;
  {
    Progress progress(total, mode, out, &fakeNow);
    for (std::uint64_t k = 1; k <= frames; ++k) {
      gNow += perFrame;
      progress.frameDone(k);
    }
    progress.finish();
  }
  std::string text(static_cast<std::size_t>(std::ftell(out)), '\0');
  std::rewind(out);
  EXPECT_EQ(std::fread(text.data(), 1, text.size(), out), text.size());
  std::fclose(out);
  return text;
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

TEST(Progress, ModeFollowsQuietAndTerminal) {
  EXPECT_EQ(progressModeFor(true, true), ProgressMode::Off);
  EXPECT_EQ(progressModeFor(true, false), ProgressMode::Off);
  EXPECT_EQ(progressModeFor(false, true), ProgressMode::Terminal);
  EXPECT_EQ(progressModeFor(false, false), ProgressMode::Log);
}

TEST(Progress, LogPrintsOnEachTenPercentBoundaryButNotAtTheEnd) {
  const std::string out = simulate(ProgressMode::Log, 1000, 1000,
                                   1ms); // 1 s in all: no time-driven line
  EXPECT_EQ(lines(out), 9) << out;
  EXPECT_NE(out.find("graphsim: frame 100/1000 (10%)"), std::string::npos) << out;
  EXPECT_NE(out.find("graphsim: frame 900/1000 (90%)"), std::string::npos) << out;
  EXPECT_EQ(out.find("1000/1000"), std::string::npos) << "the summary reports the end:\n" << out;
  EXPECT_EQ(out.find('\r'), std::string::npos);
}

TEST(Progress, LogWithFewerFramesThanTenPrintsAtMostOnePerFrame) {
  const std::string out = simulate(ProgressMode::Log, 5, 5, 1ms);
  EXPECT_EQ(lines(out), 4) << out; // 20 %, 40 %, 60 %, 80 %
}

TEST(Progress, LogPrintsEveryTenSecondsWhenFramesAreSlow) {
  // 1,000,000 frames at 1 s each for 100 frames: 10 % is far away, so a line every 10 s.
  const std::string out = simulate(ProgressMode::Log, 1'000'000, 100, 1s);
  EXPECT_EQ(lines(out), 10) << out;
  EXPECT_NE(out.find("frame 10/1000000 (0%), 1.0 fps"), std::string::npos) << out;
}

TEST(Progress, LogWithUnknownTotalPrintsEveryTenSeconds) {
  const std::string out = simulate(ProgressMode::Log, 0, 6000, 10ms); // 60 s
  EXPECT_EQ(lines(out), 6) << out;
  EXPECT_NE(out.find("graphsim: frame 1000, 100.0 fps\n"), std::string::npos) << out;
}

TEST(Progress, LogIsBoundedWhateverTheTotal) {
  for (std::uint64_t total : {1ull, 2ull, 3ull, 7ull, 10ull, 11ull, 99ull, 101ull, 12345ull}) {
    const std::string out = simulate(ProgressMode::Log, total, total, 1us);
    EXPECT_LE(lines(out), 9) << "total " << total << ":\n" << out;
  }
}

TEST(Progress, TerminalRedrawsOneLineAndEndsItOnce) {
  const std::string out = simulate(ProgressMode::Terminal, 1000, 1000, 1ms); // redrawn every 250 ms
  EXPECT_EQ(lines(out), 1) << "one line, ended by finish()";
  EXPECT_EQ(out.back(), '\n');
  EXPECT_NE(out.find("\rgraphsim: frame 250/1000 (25%)"), std::string::npos) << out;
  EXPECT_NE(out.find("\x1b[K"), std::string::npos) << "clear to end of line";
  // finish() shows where the run ended even between redraws.
  EXPECT_NE(out.find("\rgraphsim: frame 1000/1000 (100%)"), std::string::npos) << out;
}

TEST(Progress, TerminalShortRunPrintsNothing) { EXPECT_EQ(simulate(ProgressMode::Terminal, 10, 10, 1ms), ""); }

TEST(Progress, QuietPrintsNothing) {
  EXPECT_EQ(simulate(ProgressMode::Off, 1000, 1000, 100ms), "");
  EXPECT_EQ(simulate(ProgressMode::Off, 0, 1000, 100ms), "");
}

TEST(Progress, DueIsAPureFunctionOfCountsAndTime) {
  EXPECT_FALSE(progressLineDue(ProgressMode::Log, 100, 9, 0, 1s));
  EXPECT_TRUE(progressLineDue(ProgressMode::Log, 100, 10, 0, 1s));
  EXPECT_TRUE(progressLineDue(ProgressMode::Log, 100, 5, 0, 10s));
  EXPECT_FALSE(progressLineDue(ProgressMode::Log, 100, 100, 90, 20s)) << "no line at 100 %";
  EXPECT_FALSE(progressLineDue(ProgressMode::Log, 100, 50, 50, 20s)) << "nothing new to say";
  EXPECT_FALSE(progressLineDue(ProgressMode::Terminal, 100, 5, 4, 249ms));
  EXPECT_TRUE(progressLineDue(ProgressMode::Terminal, 100, 5, 4, 250ms));
  EXPECT_FALSE(progressLineDue(ProgressMode::Off, 100, 50, 0, 1h));
}

} // namespace
} // namespace graphsim::app
