// Runs the graphsim executable as a child process with a time limit and captures its exit code and output.
#pragma once

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace graphsim::test {

struct ProcessResult {
  int exitCode = -1; // -1: killed by the time limit or a signal
  int signal = 0;    // the signal that ended it, if any
  bool timedOut = false;
  std::string out, err;
};

// How the child's stdout is set up, and what it gets in its environment.
struct RunSettings {
  enum class Stdout { Pipe, Closed, File } stdoutTo = Stdout::Pipe; // Closed: `>&-`; File: `> stdoutPath`
  std::string stdoutPath;
  std::vector<std::pair<std::string, std::string>> environment; // set in the child (e.g. VK_ICD_FILENAMES)
  std::string exe; // the executable to run; empty: graphsim (tests of test-only scenes run graphsim_test_scenes)
};

ProcessResult runGraphsim(const std::vector<std::string>& args, int timeoutSeconds = 120);
ProcessResult runGraphsim(const std::vector<std::string>& args, int timeoutSeconds, const RunSettings& settings);

// Whether a windowed run can open a window here (GRAPHSIM_REQUIRE_DISPLAY below skips the test otherwise).
inline bool hasDisplay() { return std::getenv("DISPLAY") != nullptr || std::getenv("WAYLAND_DISPLAY") != nullptr; }

} // namespace graphsim::test

// The first line of a gtest test that runs graphsim in a window: without a display it is reported as skipped.
#define GRAPHSIM_REQUIRE_DISPLAY()                                                                                     \
  do {                                                                                                                 \
    if (!::graphsim::test::hasDisplay())                                                                               \
      GTEST_SKIP() << "no display (DISPLAY/WAYLAND_DISPLAY unset): run under xvfb-run, as scripts/test.sh does";       \
  } while (false)
