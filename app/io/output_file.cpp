#include "app/io/output_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>

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

// The temporary beside the target: removed when this goes out of scope, unless it was renamed into place.
class Temporary {
public:
  explicit Temporary(fs::path path) : path_(std::move(path)) {}
  ~Temporary() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;

  const fs::path& path() const { return path_; }
  void renamedIntoPlace() { path_.clear(); }

private:
  fs::path path_;
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

// Why a file could not be created in dir, in the words a user can act on.
std::string creationFailure(int error, const fs::path& dir) {
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (!fs::exists(status)) return "directory " + dir.string() + " does not exist";
  if (!fs::is_directory(status)) return dir.string() + " is not a directory";
  return "cannot create a file in directory " + dir.string() + ": " + errorText(error);
}

// `.<name>.tmp<pid>`, or a shorter name where that would pass NAME_MAX (a long target name must not fail for its
// temporary's sake). The counter keeps the short names of one process apart.
fs::path temporaryBeside(const fs::path& target) {
  static std::atomic<unsigned> shortNames{0};
  const std::string pid = std::to_string(static_cast<long long>(::getpid()));
  std::string name = "." + target.filename().string() + ".tmp" + pid;
  if (name.size() > NAME_MAX) name = ".graphsim.tmp" + pid + "." + std::to_string(shortNames++);
  return target.parent_path() / name;
}

// target is where the bytes go (a symlink's file); path is what the user named, for the message.
void writeReplacing(const fs::path& path, const fs::path& target, std::span<const std::byte> bytes) {
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  Temporary temporary(temporaryBeside(target));
  // O_EXCL: never write through something already at the temporary's name (a planted symlink). What can be there
  // is the leftover of an earlier, killed process that had the same pid: remove it and try once more.
  constexpr int kCreate = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
  int raw = ::open(temporary.path().c_str(), kCreate, 0666);
  if (raw < 0 && errno == EEXIST && ::unlink(temporary.path().c_str()) == 0) {
    raw = ::open(temporary.path().c_str(), kCreate, 0666);
  }
  if (raw < 0) throw OutputError(path, creationFailure(errno, dir));
  FileDescriptor fd(raw);
  if (const int error = writeAll(fd.get(), bytes)) throw OutputError(path, errorText(error));
  // Before the rename: a crash after it must find the new content under the name, not an empty file.
  if (::fsync(fd.get()) != 0) throw OutputError(path, errorText(errno));
  if (const int error = fd.close()) throw OutputError(path, errorText(error));
  if (::rename(temporary.path().c_str(), target.c_str()) != 0) throw OutputError(path, errorText(errno));
  temporary.renamedIntoPlace();
  // The rename is only durable once the directory is synced. Best effort and unchecked: PATH already holds the
  // complete new file, so a failure here can lose the rename on a power cut but never leave a partial file.
  if (const int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dirFd >= 0) {
    ::fsync(dirFd);
    ::close(dirFd);
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

void writeOutput(const fs::path& path, std::span<const std::byte> bytes) {
  if (!path.has_filename()) throw OutputError(path, "names a directory, not a file");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    // Most often ENOENT, a new file. Anything else (a missing or unsearchable directory) the creation of the
    // temporary reports with the directory's name.
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
