// The graphsim command line (CLI11): subcommands, flags, validation, help text.
#pragma once

#include <variant>

#include "app/bench/bench_options.h"
#include "app/cli/run_options.h"
#include "app/reliability/soak.h"

namespace graphsim::app {

struct ListGpusCommand {};
struct ExitNow { int code; }; // --help, --version or a parse error: already printed

using Command = std::variant<RunOptions, ListGpusCommand, ExitNow, BenchOptions, SoakOptions>;

// Parses and validates everything that can be checked without touching a GPU: flags, the scene preset, the
// --config file, capture paths, body counts. Bad input throws UsageError (exit 2) with a one-line reason.
Command parseCommandLine(int argc, char** argv);

} // namespace graphsim::app
