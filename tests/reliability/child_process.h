// A graphsim child process the test can signal while it runs: output goes to files (no pipe to drain), the exit
// is waited for with a deadline. For blocking runs tests/cli/run_graphsim.h is simpler.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "tests/cli/run_graphsim.h"

namespace graphsim::test {

// How the child starts, beyond its arguments (issue 19's exits).
struct ChildSetup {
  // stdout and stderr both go to a pipe whose reader has already gone (`graphsim … 2>&1 | head -0`): every write
  // to them meets EPIPE, or SIGPIPE where not ignored. The files in logDir then stay empty.
  bool outputToBrokenPipe = false;
  std::optional<std::uint64_t> fileSizeLimit; // RLIMIT_FSIZE in bytes (`ulimit -f`): SIGXFSZ past it
};

class ChildProcess {
public:
  // Starts GRAPHSIM_EXE with args; stdout and stderr go to files in logDir (created).
  ChildProcess(const std::vector<std::string>& args, const std::filesystem::path& logDir, const ChildSetup& setup = {});
  ~ChildProcess(); // kills (SIGKILL) and reaps a child still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  void signal(int sig) const;
  // Waits up to `timeout` for the exit; result.timedOut when it did not come (the child is then killed).
  ProcessResult wait(std::chrono::milliseconds timeout);
  // The output so far (the files are read whole).
  std::string err() const;

private:
  pid_t pid_ = -1;
  std::filesystem::path out_, err_;
};

// Every entry of dir is a complete PNG (signature and IEND trailer) whose name matches stem_NNNNNN.png: nothing
// half-written, no temporary left behind. Returns a description of the first offender, or empty.
std::string findPartialFiles(const std::filesystem::path& dir, const std::string& stem);

} // namespace graphsim::test
