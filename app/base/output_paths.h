// The checks every output path gets before any work (run --capture, --dump-graph; bench --json, --csv,
// --frame-log, --capture-dir), so that a typo, an impossible name or two outputs of one name fail in milliseconds
// with exit 2, not after a run: UsageError naming the flag and the value as typed (app/io/user_text.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace graphsim::app {

// An output file FLAG VALUE must be creatable now: not empty ("--json: empty path"), naming a file, its directory
// a writable directory (a parent that is a file, a symlink loop, a path too long said as what they are), its name
// within the file system's limit (`extraNameLength`: characters added to the name later, a capture's frame number)
// and the whole path within PATH_MAX, and the path itself not a directory or a symlink loop. Returns the path.
std::filesystem::path checkOutputPath(const std::string& flag, const std::string& value,
                                      std::size_t extraNameLength = 0);

// The name of a numbered output: STEM_NNNNNN.EXT, N the 1-based frame number in at least 6 digits ("frame_000012.png").
// Captures every K frames, F12 captures, F5 snapshots and bench's capture directory are named so.
std::string numberedName(std::string_view stem, std::uint64_t number, std::string_view extension);
// DIR/STEM.EXT -> DIR/STEM_NNNNNN.EXT
std::filesystem::path numberedPath(const std::filesystem::path& pattern, std::uint64_t number);

// Every output of a run, registered before any work: named files (--json, --record, ...) and numbered files
// (DIR/STEM_NNNNNN.EXT for every `every`-th N of 1..last; last 0: as long as a window stays open). check() refuses two
// that would write one file: the same path, two names of one file (`./`, a symlink, also one not yet pointing at an
// existing file), a named file among another's numbered names, or two numbered outputs sharing DIR, STEM and EXT:
// "--json out.x and --csv ./out.x name the same file; give each output its own".
class OutputRegistry {
public:
  void add(std::string flag, std::filesystem::path path);
  // pattern: DIR/STEM.EXT, as --capture is typed; what: how the message names these files ("F12's captures").
  void addNumbered(std::string what, const std::filesystem::path& pattern, std::uint64_t every, std::uint64_t last);
  void check() const;

private:
  struct Numbered {
    std::string what;
    std::filesystem::path dir; // resolved
    std::string stem, extension;
    std::uint64_t every = 1, last = 0;
    bool names(const std::filesystem::path& resolved) const;
    std::string shown() const; // DIR/STEM_NNNNNN.EXT
  };
  std::vector<std::pair<std::string, std::filesystem::path>> named_;
  std::vector<Numbered> numbered_;
};

} // namespace graphsim::app
