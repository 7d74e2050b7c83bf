#include "app/io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <random>
#include <string_view>

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;

// Owns one file descriptor. close() is the checked close of the success path; the destructor only cleans up after
// a failure that is already being reported.
class FileDescriptor {
public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return fd_; }
  // 0 or the errno of a failed close. NFS and some FUSE file systems report a failed write-back only here. No retry
  // on EINTR: Linux has released the descriptor either way.
  int close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0 ? 0 : errno;
  }

private:
  int fd_;
};

// The temporary beside the target, named relative to the directory's descriptor: removed when this goes out of
// scope, unless it was renamed into place.
class Temporary {
public:
  Temporary(int dirFd, std::string name) : dirFd_(dirFd), name_(std::move(name)) {}
  ~Temporary() {
    if (!name_.empty()) ::unlinkat(dirFd_, name_.c_str(), 0);
  }
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;

  const std::string& name() const { return name_; }
  void renamedIntoPlace() { name_.clear(); }

private:
  int dirFd_;
  std::string name_;
};

// While alive, a write to a pipe whose reader has gone fails with EPIPE instead of raising SIGPIPE, whose default
// action would end the process before it could say which output failed. Per thread: capture workers write too.
class SigpipeAsError {
public:
  SigpipeAsError() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    alreadyPending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &previous_);
  }
  ~SigpipeAsError() {
    // Consume the SIGPIPE our own write raised, so that unblocking does not deliver it after all.
    sigset_t pending;
    sigpending(&pending);
    if (!alreadyPending_ && sigismember(&pending, SIGPIPE) == 1) {
      const timespec noWait{};
      sigtimedwait(&pipe_, nullptr, &noWait);
    }
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  SigpipeAsError(const SigpipeAsError&) = delete;
  SigpipeAsError& operator=(const SigpipeAsError&) = delete;

private:
  sigset_t pipe_{};
  sigset_t previous_{};
  bool alreadyPending_ = false;
};

std::string errorText(int error) { return std::strerror(error); }

// 0 or the errno of the failed write. write() may write less than asked (a signal, a pipe's capacity, a file system
// filling up): loop until everything is written or the kernel says why not.
int writeAll(int fd, std::span<const std::byte> bytes) {
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO; // no progress and no reason: do not spin
    written += static_cast<std::size_t>(n);
  }
  return 0;
}

} // namespace

std::string creationFailure(int error, const fs::path& dir) {
  if (std::string problem = directoryProblem(dir); !problem.empty()) return problem;
  return "cannot create a file in directory " + dir.string() + ": " + errorText(error);
}

std::string temporaryName(std::size_t targetLength) {
  constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 random(std::random_device{}() ^ static_cast<std::uint64_t>(::getpid()));
  const std::size_t length = std::clamp<std::size_t>(targetLength, 6, 12);
  std::string name = ".gs";
  while (name.size() < length) name += kAlphabet[random() % kAlphabet.size()];
  return name;
}

namespace {

// Creates a fresh temporary in the directory (O_EXCL: never writes through something already there, a planted
// symlink or another writer's temporary; a name taken is drawn again). The descriptor, or throws.
int createTemporary(int dirFd, const fs::path& path, const fs::path& dir, std::size_t targetLength, std::string& name) {
  constexpr int kCreate = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
  for (int attempt = 0; attempt < 100; ++attempt) {
    name = temporaryName(targetLength);
    const int fd = ::openat(dirFd, name.c_str(), kCreate, 0666);
    if (fd >= 0) return fd;
    if (errno != EEXIST) break;
  }
  throw OutputError(path, creationFailure(errno, dir));
}

// target is where the bytes go (a symlink's file); path is what the user named, for the message.
void writeReplacing(const fs::path& path, const fs::path& target, std::span<const std::byte> bytes) {
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // O_PATH: a directory the user may write but not list (mode 0300) still serves as the base of openat/renameat.
  const FileDescriptor dirFd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (dirFd.get() < 0) throw OutputError(path, creationFailure(errno, dir));
  const std::string targetName = target.filename().string();
  std::string name;
  FileDescriptor fd(createTemporary(dirFd.get(), path, dir, targetName.size(), name));
  Temporary temporary(dirFd.get(), name);
  if (const int error = writeAll(fd.get(), bytes)) throw OutputError(path, errorText(error));
  // Before the rename: a crash after it must find the new content under the name, not an empty file.
  if (::fsync(fd.get()) != 0) throw OutputError(path, errorText(errno));
  if (const int error = fd.close()) throw OutputError(path, errorText(error));
  if (::renameat(dirFd.get(), name.c_str(), dirFd.get(), targetName.c_str()) != 0)
    throw OutputError(path, errorText(errno));
  temporary.renamedIntoPlace();
  // The rename is only durable once the directory is synced. Best effort and unchecked: PATH already holds the
  // complete new file, so a failure here can lose the rename on a power cut but never leave a partial file.
  if (const int syncFd = ::openat(dirFd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); syncFd >= 0) {
    ::fsync(syncFd);
    ::close(syncFd);
  }
}

// A character device or a FIFO: no temporary (it cannot be renamed over a device), every write still checked.
void writeDirectly(const fs::path& path, bool fifo, std::span<const std::byte> bytes) {
  // O_NONBLOCK so that opening a FIFO nobody reads fails at once (ENXIO) instead of waiting for a reader for ever.
  FileDescriptor fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | (fifo ? O_NONBLOCK : 0)));
  if (fd.get() < 0) {
    const int error = errno;
    throw OutputError(path, fifo && error == ENXIO ? "FIFO has no reader" : errorText(error));
  }
  if (fifo) { // blocking writes from here on: a slow reader slows the writer, it does not fail it (EAGAIN)
    const int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) throw OutputError(path, errorText(errno));
  }
  {
    const SigpipeAsError sigpipe;
    if (const int error = writeAll(fd.get(), bytes)) {
      throw OutputError(path, error == EPIPE ? "the reader went away (" + errorText(error) + ")" : errorText(error));
    }
  }
  // No fsync: a device or pipe has no storage behind it to flush (fsync fails there with EINVAL).
  if (const int error = fd.close()) throw OutputError(path, errorText(error));
}

std::string refusedType(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISSOCK(mode)) return "is a socket (graphsim writes regular files, character devices and FIFOs)";
  if (S_ISBLK(mode)) return "is a block device (graphsim writes regular files, character devices and FIFOs)";
  return "is not a regular file, character device or FIFO";
}

} // namespace

std::string pathFailure(const fs::path& path, int error) {
  switch (error) {
  case ENOENT: return path.string() + " does not exist";
  case ENOTDIR: {
    // A parent that is not a directory: name the first one.
    fs::path prefix;
    for (const fs::path& part : path.parent_path()) {
      prefix /= part;
      struct stat st {};
      if (::stat(prefix.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
        return prefix.string() + " is a file, not a directory";
    }
    return "a parent of " + path.string() + " is not a directory";
  }
  case ELOOP: return path.string() + ": too many levels of symbolic links (a symlink loop)";
  case ENAMETOOLONG: {
    const long nameMax = NAME_MAX;
    for (const fs::path& part : path)
      if (static_cast<long>(part.string().size()) > nameMax)
        return "a name in the path is " + std::to_string(part.string().size()) + " characters, over the limit of " +
               std::to_string(nameMax);
    return "the path is " + std::to_string(path.string().size()) + " characters, over this system's limit of " +
           std::to_string(PATH_MAX - 1);
  }
  case EACCES: return path.string() + " cannot be reached: " + errorText(error) + " (a directory on the way?)";
  default: return path.string() + ": " + errorText(error);
  }
}

std::string directoryProblem(const fs::path& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    const int error = errno;
    return error == ENOENT ? "directory " + dir.string() + " does not exist" : pathFailure(dir, error);
  }
  if (!S_ISDIR(st.st_mode)) return dir.string() + " is a file, not a directory";
  return {};
}

void writeOutput(const fs::path& path, std::span<const std::byte> bytes) {
  if (!path.has_filename()) throw OutputError(path, "names a directory, not a file");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    // Most often ENOENT, a new file (a missing directory the creation of the temporary reports with the
    // directory's name). A symlink loop, a parent that is a file or a path too long are said as what they are.
    const int error = errno;
    if (error == ELOOP || error == ENOTDIR || error == ENAMETOOLONG) throw OutputError(path, pathFailure(path, error));
    writeReplacing(path, path, bytes);
    return;
  }
  if (S_ISREG(st.st_mode)) {
    // A symlink to a file: replace the file it points to and keep the link.
    std::error_code ec;
    const fs::path target = fs::is_symlink(fs::symlink_status(path, ec)) ? fs::canonical(path, ec) : path;
    writeReplacing(path, ec ? path : target, bytes);
  } else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
    writeDirectly(path, S_ISFIFO(st.st_mode), bytes);
  } else {
    throw OutputError(path, refusedType(st.st_mode));
  }
}

void writeOutput(const fs::path& path, std::string_view text) {
  writeOutput(path, std::as_bytes(std::span(text.data(), text.size())));
}

} // namespace graphsim::app
