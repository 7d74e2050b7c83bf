// `graphsim bench`: runs the product path and the variants it is compared with on the same scene, seed and frame
// count, and reports frame times, GPU times, host overhead and interaction rates (docs/PERFORMANCE.md).
#pragma once

#include "app/bench/bench_options.h"

namespace graphsim::app {

struct BenchReport; // app/bench/bench_report.h

// Runs everything the options ask for. Throws EnvironmentError (exit 3), UsageError,
// TimeoutError, CudaError or other errors as runHeadless does.
BenchReport runBench(const BenchOptions& options);

// The subcommand: runBench, the table on stdout, --json / --csv written (atomically). Returns the exit code
// (1 when validation reported anything).
int runBenchCommand(const BenchOptions& options);

} // namespace graphsim::app
