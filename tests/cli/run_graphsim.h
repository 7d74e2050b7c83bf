// Runs the graphsim executable as a child process with a time limit and captures its exit code and output.
#pragma once

#include <string>
#include <vector>

namespace graphsim::test {

struct ProcessResult {
  int exitCode = -1;     // -1: killed by the time limit or a signal
  int signal = 0;        // the signal that ended it, if any
  bool timedOut = false;
  std::string out, err;
};

ProcessResult runGraphsim(const std::vector<std::string>& args, int timeoutSeconds = 120);

} // namespace graphsim::test
