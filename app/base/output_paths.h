// The checks every output path gets before any work (run --capture, --dump-graph; bench --json, --csv,
// --frame-log, --capture-dir), so that a typo or an impossible name fails in milliseconds with exit 2, not after a
// run: UsageError naming the flag and the value as typed (app/io/user_text.h).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace graphsim::app {

// An output file FLAG VALUE must be creatable now: not empty ("--json: empty path"), naming a file, its directory
// a writable directory (a parent that is a file, a symlink loop, a path too long said as what they are), its name
// within the file system's limit (`extraNameLength`: characters added to the name later, a capture's frame number)
// and the whole path within PATH_MAX, and the path itself not a directory or a symlink loop. Returns the path.
std::filesystem::path checkOutputPath(const std::string& flag, const std::string& value,
                                      std::size_t extraNameLength = 0);

// Two outputs naming the same file (the same path, or two names of one existing file) would overwrite each other:
// "--json out.x and --csv ./out.x name the same file; give each output its own". Each entry: the flag, the path.
void checkDistinctOutputs(const std::vector<std::pair<std::string, std::filesystem::path>>& outputs);

} // namespace graphsim::app
