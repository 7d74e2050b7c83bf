// Runs the graphsim executable as a child process with a time limit and captures its exit code and output.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

namespace graphsim::test {

struct ProcessResult {
  int exitCode = -1; // -1: killed by the time limit or a signal
  int signal = 0;    // the signal that ended it, if any
  bool timedOut = false;
  std::string out, err;
};

ProcessResult runGraphsim(const std::vector<std::string>& args, int timeoutSeconds = 120);

// Whether a windowed run can open a window here (GRAPHSIM_REQUIRE_DISPLAY below skips the test otherwise).
inline bool hasDisplay() { return std::getenv("DISPLAY") != nullptr || std::getenv("WAYLAND_DISPLAY") != nullptr; }

} // namespace graphsim::test

// The first line of a gtest test that runs graphsim in a window: without a display it is reported as skipped.
#define GRAPHSIM_REQUIRE_DISPLAY()                                                                                     \
  do {                                                                                                                 \
    if (!::graphsim::test::hasDisplay())                                                                               \
      GTEST_SKIP() << "no display (DISPLAY/WAYLAND_DISPLAY unset): run under xvfb-run, as scripts/test.sh does";       \
  } while (false)
