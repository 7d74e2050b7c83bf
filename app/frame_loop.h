// The headless frame loop: simulation backend + offscreen renderer, frames in flight, captures, a summary.
#pragma once

#include <cstdint>

#include "app/run_options.h"

namespace graphsim::app {

struct RunSummary {
  std::uint64_t frames = 0;
  double wallSeconds = 0;
  double simMsPerFrame = 0;    // CPU: wall time of step(); CUDA: graph GPU time (events)
  double renderGpuMs = -1;     // last frame's render GPU time (timestamps), negative when unsupported
  std::uint64_t validationMessages = 0;
  std::uint64_t captures = 0;
};

// Runs options.frames frames on the resolved backend (Cpu or Cuda, never Auto) and returns what happened.
// Throws UsageError, render::MissingCapability / NoCudaDevice (environment), render::TimeoutError, or other errors.
RunSummary runHeadless(const RunOptions& options, BackendKind backend);

} // namespace graphsim::app
