#include "app/base/output_paths.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <system_error>
#include <utility>

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

// The file a write to `path` reaches: absolute, its symlinks followed, also one pointing at a file not yet there (a
// later output would create it), `.` and `..` gone. A symlink loop is left as it is (checkOutputPath refuses it).
fs::path resolved(const fs::path& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  for (int hops = 0; hops < 40 && fs::is_symlink(p, ec); ++hops) {
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  fs::path out = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : out;
}

// A character device or FIFO already at path: written directly (app/io/output_file.h), not replaced.
bool isStream(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
}

// Two paths of one file: the same resolved path, or one existing file (a hard link).
bool sameFile(const fs::path& a, const fs::path& b) {
  if (isStream(a) && isStream(b)) return false; // two reports into one pipe or /dev/null: appended, not lost
  if (resolved(a) == resolved(b)) return true;
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

} // namespace

fs::path checkOutputPath(const std::string& flag, const std::string& value, std::size_t extraNameLength) {
  if (value.empty()) throw UsageError(flag + ": empty path (name a file, or leave " + flag + " out)");
  const std::string what = fileNamedBy(flag, value) + ": ";
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

std::string numberedName(std::string_view stem, std::uint64_t number, std::string_view extension) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "_%06llu", static_cast<unsigned long long>(number));
  return std::string(stem) + digits + std::string(extension);
}

fs::path numberedPath(const fs::path& pattern, std::uint64_t number) {
  return pattern.parent_path() / numberedName(pattern.stem().string(), number, pattern.extension().string());
}

void OutputRegistry::add(std::string flag, fs::path path) { named_.emplace_back(std::move(flag), std::move(path)); }

void OutputRegistry::addNumbered(std::string what, const fs::path& pattern, std::uint64_t every, std::uint64_t last) {
  const fs::path dir = pattern.parent_path().empty() ? fs::path(".") : pattern.parent_path();
  numbered_.push_back({std::move(what), resolved(dir), pattern.stem().string(), pattern.extension().string(),
                       std::max<std::uint64_t>(every, 1), last});
}

bool OutputRegistry::Numbered::names(const fs::path& file) const {
  const std::string name = file.filename().string();
  if (file.parent_path() != dir || name.size() <= stem.size() + extension.size() + 1) return false;
  if (name.compare(0, stem.size() + 1, stem + "_") != 0 ||
      name.compare(name.size() - extension.size(), extension.size(), extension) != 0)
    return false;
  const std::string digits = name.substr(stem.size() + 1, name.size() - stem.size() - 1 - extension.size());
  if (digits.size() > 19 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
  const std::uint64_t n = std::stoull(digits);
  return n > 0 && numberedName(stem, n, extension) == name && n % every == 0 && (last == 0 || n <= last);
}

std::string OutputRegistry::Numbered::shown() const {
  return what + " " + shownText((dir / (stem + "_NNNNNN" + extension)).string(), kShownPathLimit);
}

void OutputRegistry::check() const {
  const auto refuse = [](const std::string& a, const std::string& b) {
    throw UsageError(a + " and " + b + " name the same file; give each output its own");
  };
  for (std::size_t i = 0; i < named_.size(); ++i) {
    const auto& [flag, path] = named_[i];
    for (std::size_t j = i + 1; j < named_.size(); ++j)
      if (sameFile(path, named_[j].second))
        refuse(fileNamedBy(flag, path.string()), fileNamedBy(named_[j].first, named_[j].second.string()));
    if (isStream(path)) continue;
    const fs::path file = resolved(path);
    for (const Numbered& n : numbered_)
      if (n.names(file)) refuse(fileNamedBy(flag, path.string()), n.shown() + " (one of them)");
  }
  for (std::size_t i = 0; i < numbered_.size(); ++i)
    for (std::size_t j = i + 1; j < numbered_.size(); ++j) {
      const Numbered &a = numbered_[i], &b = numbered_[j];
      if (a.dir == b.dir && a.stem == b.stem && a.extension == b.extension) refuse(a.shown(), b.shown());
    }
}

} // namespace graphsim::app
