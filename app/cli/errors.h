// Exit codes and the error a user can fix (bad flag, file, key or value).
#pragma once

#include <stdexcept>

namespace graphsim::app {

enum ExitCode : int {
  kExitOk = 0,
  kExitInternal = 1,    // a bug, a failed API call, a timeout
  kExitUsage = 2,       // bad usage or bad input: the message names the flag/file/key and what is allowed
  kExitEnvironment = 3, // the machine lacks what was asked for (Vulkan device, CUDA device, extension)
  kExitInterrupted = 130,
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A file the run writes (a capture) could not be written, e.g. its directory became unwritable: exit 1, and
// nothing half-written is left under the file's name.
struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace graphsim::app
