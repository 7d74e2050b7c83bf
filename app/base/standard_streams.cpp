#include "app/base/standard_streams.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace graphsim::app {
namespace {

bool wasClosed = false; // stdout was closed at start (held by holdClosedStandardDescriptors)
int earlierError = 0;   // errno of the first flush that failed before exit (flushStandardOutput)

void checkAtExit() {
  // A write that failed earlier set the stream's error flag; its errno is gone, the flush below may say it again.
  const bool failedBefore = std::ferror(stdout) != 0;
  const bool pending = std::fflush(stdout) != 0;
  const int flushError = errno;
  errno = 0;
  const bool closeFailed = std::fclose(stdout) != 0;
  const int closeError = errno;
  // EBADF on close with nothing written: stdout was closed (`>&-`) and the command printed nothing there.
  if (failedBefore || pending || (closeFailed && closeError != EBADF)) {
    const int error = earlierError != 0 ? earlierError
                      : pending         ? flushError
                      : closeFailed     ? closeError
                      : wasClosed       ? EBADF
                                        : 0;
    std::fprintf(stderr, "graphsim: cannot write to standard output: %s\n",
                 error != 0 ? std::strerror(error) : "a write failed");
    std::fflush(stderr);
    ::_exit(1);
  }
}

// A standard descriptor that was closed (`>&-`) would be taken by the next file opened, and what graphsim prints
// would go into that file (a capture, a driver's). Hold each with /dev/null opened for the other direction
// instead, so that it stays taken and every write to it fails (EBADF), which the check at exit reports.
void holdClosedStandardDescriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int held = ::open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
    if (held >= 0 && held != fd) ::close(held); // a lower one was free after all; leave it
    if (fd == 1) wasClosed = true;
  }
}

} // namespace

void flushStandardOutput() {
  errno = 0;
  if (std::fflush(stdout) != 0 && earlierError == 0) earlierError = errno;
}

void checkStandardStreamsAtExit() {
  static const bool registered = [] {
    holdClosedStandardDescriptors();
    // Into a file or pipe, everything graphsim prints (a device list, a report, a table: well under 1 MiB) is
    // written by the flush at exit, whose errno names the failure ("No space left on device"); a write that fails
    // earlier is reported without its reason.
    static char buffer[std::size_t{1} << 20]; // glibc ignores the size asked for without a buffer of our own
    if (::isatty(STDOUT_FILENO) == 0) std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    return std::atexit(checkAtExit) == 0;
  }();
  (void)registered;
}

} // namespace graphsim::app
