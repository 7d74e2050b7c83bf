#include "app/video/video_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <system_error>

extern "C" {
#include <libavformat/avio.h>
#include <libavutil/error.h>
}

#include "app/io/output_file.h"

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;

// Where the bytes go: the path itself, or the regular file a symlink names (the link stays). Anything that is not
// a regular file or absent is refused.
fs::path targetOf(const fs::path& path) {
  if (!path.has_filename()) throw OutputError(path, "names a directory, not a file");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int error = errno;
    if (error == ELOOP || error == ENOTDIR || error == ENAMETOOLONG) throw OutputError(path, pathFailure(path, error));
    return path; // a new file (a missing directory is reported when the temporary cannot be created)
  }
  if (S_ISDIR(st.st_mode)) throw OutputError(path, "is a directory");
  if (!S_ISREG(st.st_mode))
    throw OutputError(path, "is not a regular file (a video needs a seekable file: the muxer writes its index last)");
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(path, ec))) return path;
  const fs::path target = fs::canonical(path, ec);
  return ec ? path : target;
}

} // namespace

VideoFile::VideoFile(fs::path path) : path_(std::move(path)) {
  const fs::path target = targetOf(path_);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // O_PATH: a directory the user may write but not list still serves as the base of openat/renameat.
  dirFd_ = ::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dirFd_ < 0) throw OutputError(path_, creationFailure(errno, dir));
  targetName_ = target.filename().string();
  // O_EXCL: never writes through something already there (a planted symlink, another writer's temporary).
  for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
    temporaryName_ = temporaryName(targetName_.size());
    fd_ = ::openat(dirFd_, temporaryName_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  if (fd_ < 0) {
    const int error = errno;
    temporaryName_.clear();
    ::close(dirFd_);
    throw OutputError(path_, creationFailure(error, dir));
  }
}

VideoFile::~VideoFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temporaryName_.empty()) ::unlinkat(dirFd_, temporaryName_.c_str(), 0);
  ::close(dirFd_);
}

int VideoFile::write(const std::uint8_t* data, int size) noexcept {
  int written = 0;
  while (written < size) {
    const ssize_t n = ::write(fd_, data + written, static_cast<std::size_t>(size - written));
    if (n < 0 && errno == EINTR) continue;
    const int error = n < 0 ? errno : EIO; // n == 0: no progress and no reason; do not spin
    if (n <= 0) {
      if (firstError_.empty()) firstError_ = std::strerror(error);
      return AVERROR(error);
    }
    written += static_cast<int>(n);
  }
  return written;
}

std::int64_t VideoFile::seek(std::int64_t offset, int whence) noexcept {
  if (whence == AVSEEK_SIZE) { // libavformat asks for the size: optional, but cheap
    struct stat st {};
    return ::fstat(fd_, &st) == 0 ? static_cast<std::int64_t>(st.st_size) : AVERROR(errno);
  }
  whence &= ~AVSEEK_FORCE;
  const off_t at = ::lseek(fd_, static_cast<off_t>(offset), whence);
  if (at < 0) {
    const int error = errno;
    if (firstError_.empty()) firstError_ = std::strerror(error);
    return AVERROR(error);
  }
  return at;
}

void VideoFile::commit() {
  if (!firstError_.empty()) throw OutputError(path_, firstError_);
  // Before the rename: a crash after it must find the whole video under the name, not an empty file.
  if (::fsync(fd_) != 0) throw OutputError(path_, std::strerror(errno));
  const int fd = fd_;
  fd_ = -1;
  // No retry on EINTR: Linux has released the descriptor either way. NFS reports a failed write-back here.
  if (::close(fd) != 0) throw OutputError(path_, std::strerror(errno));
  if (::renameat(dirFd_, temporaryName_.c_str(), dirFd_, targetName_.c_str()) != 0)
    throw OutputError(path_, std::strerror(errno));
  temporaryName_.clear();
  // Best effort: the target already holds the complete video; a failure here can only lose the rename on a power cut.
  if (const int syncFd = ::openat(dirFd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); syncFd >= 0) {
    ::fsync(syncFd);
    ::close(syncFd);
  }
}

} // namespace graphsim::app
