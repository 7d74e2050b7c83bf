// The one way graphsim writes an output file (captures, bench JSON/CSV, frame logs, the frame graph as DOT).
//
// Guarantees, whichever output it is:
//   * every write, fsync and close is checked; a failure throws OutputError whose what() is "PATH: REASON", which
//     main prints as `graphsim: cannot write output: PATH: REASON` and exits 1;
//   * a regular file (or a path that does not exist yet) is written to a temporary beside it, `.gs<random>` and
//     never longer-named than PATH's name from 6 characters up (6..12 characters), fsynced, closed and renamed over
//     PATH: PATH holds the old file or the complete new one, never a partial one, and the temporary is removed on any
//     failure;
//   * a character device or a FIFO that already exists at PATH (/dev/stdout, a pipe a reader is waiting on) is
//     written directly, checked like a file: /dev/full fails with "No space left on device", a FIFO without a
//     reader fails at once with "FIFO has no reader" instead of blocking, a reader that leaves mid-write is an
//     error, not a SIGPIPE;
//   * anything else at PATH (a directory, a socket, a block device) is refused without touching it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "app/io/user_text.h"

namespace graphsim::app {

// An output file could not be written: exit 1, earlier outputs intact, nothing half-written under the file's name.
struct OutputError : std::runtime_error {
  OutputError(const std::filesystem::path& path, const std::string& reason)
      : std::runtime_error(oneLineMessage(path.string() + ": " + reason)) {}
};

void writeOutput(const std::filesystem::path& path, std::span<const std::byte> bytes);

// Why stat(path) failed with `error`, as what it is: "P does not exist", "P is a file, not a directory" (naming the
// parent that is a file), "P: too many levels of symbolic links (a symlink loop)", "the path is N characters, over
// this system's limit of 4095", "a name in the path is N characters, over the limit of 255", ...
std::string pathFailure(const std::filesystem::path& path, int error);
// Empty when dir is a directory that stat can reach, else what is wrong with it ("directory D does not exist", or
// pathFailure's words).
std::string directoryProblem(const std::filesystem::path& dir);
void writeOutput(const std::filesystem::path& path, std::string_view text);

// For writers that stream into a temporary themselves (app/video): the same rules.
// A name for the temporary: ".gs" and random letters and digits, as long as the target's name within 6..12
// characters. Never longer than the target's name from 6 characters up, so that a name the file system takes for
// the target it takes for the temporary (the issue-19 bug: `.<name>.tmp<pid>`, 10-11 characters longer, failed a
// legal 250-character name after the whole run); a shorter target gets 6, which every file system takes. The path
// length does not count: the temporary is opened and renamed relative to the directory's descriptor.
std::string temporaryName(std::size_t targetLength);
// Why a file could not be created in dir (errno `error`), in the words a user can act on.
std::string creationFailure(int error, const std::filesystem::path& dir);

} // namespace graphsim::app
