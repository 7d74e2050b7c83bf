// `graphsim replay FILE`: its flags and their validation (app/cli/cli.cpp registers it beside run, bench and soak).
#pragma once

#include <string>

#include "app/cli/cli.h"

namespace graphsim::app {

// `graphsim replay FILE` (app/record, docs/RECORDING.md): a run whose scene, settings, frame count and every change
// come from a recording made with `run --record`; the outputs (captures, video) and the machine (backend, GPU) are
// the flags'. Its options are a RunOptions with `replay` set.
class ReplayCommandLine {
public:
  explicit ReplayCommandLine(CLI::App& app);
  CLI::App* subcommand() const { return replay_; }
  bool parsed() const;
  RunOptions options() const; // after a successful parse; bad input throws UsageError (exit 2)

private:
  CLI::App* replay_ = nullptr;
  SharedFlags shared_{{BackendKind::Auto, BackendKind::Cpu, BackendKind::Cuda}, BackendKind::Auto};
  std::string file_, scene_, capture_, captureEvery_, tolerance_ = "1e-5";
  bool headless_ = false;
};

} // namespace graphsim::app
