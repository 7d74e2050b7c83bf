// The one way graphsim writes an output file (captures, bench JSON/CSV, frame logs, the frame graph as DOT).
//
// Guarantees, whichever output it is:
//   * every write, fsync and close is checked; a failure throws OutputError whose what() is "PATH: REASON", which
//     main prints as `graphsim: cannot write output: PATH: REASON` and exits 1;
//   * a regular file (or a path that does not exist yet) is written to a temporary beside it, `.<name>.tmp<pid>`,
//     fsynced, closed and renamed over PATH: PATH holds the old file or the complete new one, never a partial one,
//     and the temporary is removed on any failure;
//   * a character device or a FIFO that already exists at PATH (/dev/stdout, a pipe a reader is waiting on) is
//     written directly, checked like a file: /dev/full fails with "No space left on device", a FIFO without a
//     reader fails at once with "FIFO has no reader" instead of blocking, a reader that leaves mid-write is an
//     error, not a SIGPIPE;
//   * anything else at PATH (a directory, a socket, a block device) is refused without touching it.
// One writer per path at a time: two threads writing the same PATH at once would share the temporary's name.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace graphsim::app {

// An output file could not be written: exit 1, earlier outputs intact, nothing half-written under the file's name.
struct OutputError : std::runtime_error {
  OutputError(const std::filesystem::path& path, const std::string& reason)
      : std::runtime_error(path.string() + ": " + reason) {}
};

void writeOutput(const std::filesystem::path& path, std::span<const std::byte> bytes);
void writeOutput(const std::filesystem::path& path, std::string_view text);

} // namespace graphsim::app
