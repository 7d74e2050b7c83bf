// The graphsim command line (CLI11): subcommands, flags, validation, help text.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "app/bench/bench_options.h"
#include "app/cli/run_options.h"
#include "app/reliability/soak.h"

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace graphsim::app {

struct ListGpusCommand {};
struct ExitNow { int code; }; // --help, --version or a parse error: already printed

using Command = std::variant<RunOptions, ListGpusCommand, ExitNow, BenchOptions, SoakOptions>;

// Parses and validates everything that can be checked without touching a GPU: flags, the scene preset, the
// --config file, capture paths, body counts. Bad input throws UsageError (exit 2) with a one-line reason.
Command parseCommandLine(int argc, char** argv);

// Shared by the subcommands' parsers (cli.cpp, app/bench/bench_cli.cpp).
//
// Number flags are bound to strings and converted here, not by CLI11: CLI11 2.1 saturates an out-of-range integer to
// INT64_MAX and wraps "-1" for an unsigned type, so its value could not be quoted back. A refusal repeats the text
// as typed, e.g. "--frames: must be 0..1000000000000, got 99999999999999999999" (UsageError, exit 2).
CLI::Option* addIntegerOption(CLI::App& app, const std::string& name, std::string& text, const std::string& help);
std::int64_t parseIntegerFlag(const std::string& flag, const std::string& text, std::int64_t lo, std::int64_t hi);
std::uint64_t parseSeedFlag(const std::string& flag, const std::string& text); // 0..2^64-1
// --interop auto | on | off (InteropMode, app/cli/run_options.h); anything else throws UsageError.
CLI::Option* addInteropOption(CLI::App& app, std::string& text);
InteropMode parseInteropMode(const std::string& text);

} // namespace graphsim::app
