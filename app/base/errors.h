// Exit codes and the error a user can fix (bad flag, file, key or value).
#pragma once

#include <stdexcept>

#include "app/io/output_file.h" // OutputError: an output file could not be written, exit 1
#include "app/io/user_text.h"
#include "compute/errors.h" // EnvironmentError (exit 3), TimeoutError and ApiError (exit 1)

namespace graphsim::app {

enum ExitCode : int {
  kExitOk = 0,
  kExitInternal = 1,    // a bug, a failed API call, a timeout
  kExitUsage = 2,       // bad usage or bad input: the message names the flag/file/key and what is allowed
  kExitEnvironment = 3, // the machine lacks what was asked for (Vulkan device, CUDA device, extension)
  kExitInterrupted = 130,
};

// The message is made one line whatever it quotes (app/io/user_text.h): a value typed with a newline or an ESC
// sequence, or 100,000 characters long, reaches the terminal escaped and clipped, whichever file threw it.
struct UsageError : std::runtime_error {
  explicit UsageError(const std::string& message) : std::runtime_error(oneLineMessage(message)) {}
};

// A headless run's simulation produced a non-finite position, velocity or acceleration: exit 1. (In a window the
// run pauses with a notice instead.) The message names the frame and the stage.
struct SimulationBlowUp : Error {
  using Error::Error;
};

} // namespace graphsim::app
