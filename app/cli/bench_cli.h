// The `graphsim bench` subcommand: its flags (registered on the CLI11 app by cli.cpp) and their validation.
#pragma once

#include <string>

#include "app/bench/bench_options.h"
#include "app/cli/cli.h" // SharedFlags

namespace graphsim::app {

class BenchCommandLine {
public:
  // Adds the "bench" subcommand and its flags to app; the values land in this object, which must outlive parsing.
  explicit BenchCommandLine(CLI::App& app);

  CLI::App* subcommand() const { return bench_; }
  bool parsed() const;
  // After a successful parse: validates everything that needs no GPU and returns the options. Bad input throws
  // UsageError naming the flag (exit 2).
  BenchOptions options(int argc, char** argv) const;

private:
  CLI::App* bench_ = nullptr;
  SharedFlags shared_{{BackendKind::Cpu, BackendKind::Cuda}, BackendKind::Cuda}; // --backend, --gpu, --quiet, ...
  std::string scene_ = defaultSceneName(), config_, variants_ = "all", json_, csv_, frameLog_, captureDir_;
  // Number flags as typed, converted by parseIntegerFlag (app/cli/cli.h) so that a refusal quotes them.
  std::string frames_ = "1000", warmup_, framesInFlight_ = "3", captureEvery_;
  // --diagnostics-every (issue 15), as typed.
  std::string diagnosticsEvery_;
  CountFlags counts_; // --bodies, --particles
  bool simOnly_ = false;
};

} // namespace graphsim::app
