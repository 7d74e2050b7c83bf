#include "app/base/output_paths.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <system_error>

#include "app/base/errors.h"

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;

// The longest file name the file system of dir takes (NAME_MAX where it does not say).
std::size_t nameLimit(const fs::path& dir) {
  const long limit = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  return limit > 0 ? static_cast<std::size_t>(limit) : static_cast<std::size_t>(NAME_MAX);
}

// The existing thing at path, when it is something no output can be written to (a directory, a symlink loop).
std::string problemAtPath(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return errno == ELOOP ? pathFailure(path, ELOOP) : std::string();
  return S_ISDIR(st.st_mode) ? "is a directory" : std::string();
}

// A character device or FIFO already at path: written directly (app/io/output_file.h), not replaced.
bool isStream(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
}

} // namespace

fs::path checkOutputPath(const std::string& flag, const std::string& value, std::size_t extraNameLength) {
  if (value.empty()) throw UsageError(flag + ": empty path (name a file, or leave " + flag + " out)");
  const std::string what = flag + " " + shownText(value, kShownPathLimit) + ": ";
  fs::path path(value); // not const: returned by move
  const std::string name = path.filename().string();
  if (name.empty() || name == "." || name == "..") throw UsageError(what + "names a directory, not a file");
  if (value.size() >= PATH_MAX)
    throw UsageError(what + "the path is " + std::to_string(value.size()) +
                     " characters, over this system's limit of " + std::to_string(PATH_MAX - 1));
  if (isStream(path)) return path; // /dev/stdout, a FIFO: no temporary beside it, so no directory to write
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (const std::string problem = directoryProblem(dir); !problem.empty()) throw UsageError(what + problem);
  if (::access(dir.c_str(), W_OK) != 0) throw UsageError(what + "directory " + dir.string() + " is not writable");
  if (const std::size_t limit = nameLimit(dir); name.size() + extraNameLength > limit) {
    const std::string added = extraNameLength > 0 ? " with the frame number" : "";
    throw UsageError(what + "the file name" + added + " is " + std::to_string(name.size() + extraNameLength) +
                     " characters, over this file system's limit of " + std::to_string(limit));
  }
  if (const std::string problem = problemAtPath(path); !problem.empty()) throw UsageError(what + problem);
  return path;
}

void checkDistinctOutputs(const std::vector<std::pair<std::string, fs::path>>& outputs) {
  const auto same = [](const fs::path& a, const fs::path& b) {
    if (isStream(a) && isStream(b)) return false; // two reports into one pipe or /dev/null: appended, not lost
    std::error_code ea, eb;
    if (fs::weakly_canonical(fs::absolute(a), ea) == fs::weakly_canonical(fs::absolute(b), eb) && !ea && !eb)
      return true;
    struct stat sa {
    }, sb{};
    return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
  };
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t j = i + 1; j < outputs.size(); ++j)
      if (same(outputs[i].second, outputs[j].second))
        throw UsageError(outputs[i].first + " " + shownText(outputs[i].second.string(), kShownPathLimit) + " and " +
                         outputs[j].first + " " + shownText(outputs[j].second.string(), kShownPathLimit) +
                         " name the same file; give each output its own");
}

} // namespace graphsim::app
