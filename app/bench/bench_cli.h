// The `graphsim bench` subcommand: its flags (registered on the CLI11 app by cli.cpp) and their validation.
#pragma once

#include <cstdint>
#include <string>

#include "app/bench/bench_options.h"

namespace CLI {
class App;
}

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
  std::string scene_ = "nbody", backend_ = "cuda", variants_ = "all", json_, csv_, frameLog_, captureDir_;
  std::int64_t bodies_ = 0, frames_ = 1000, warmup_ = -1, framesInFlight_ = 3, captureEvery_ = 0;
  std::int64_t waitTimeoutMs_ = 5000;
  int gpu_ = -1;
  bool simOnly_ = false, validation_ = false, quiet_ = false;
};

} // namespace graphsim::app
