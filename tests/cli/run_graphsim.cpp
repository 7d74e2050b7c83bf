#include "run_graphsim.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

namespace graphsim::test {

ProcessResult runGraphsim(const std::vector<std::string>& args, int timeoutSeconds) {
  return runGraphsim(args, timeoutSeconds, RunSettings{});
}

ProcessResult runGraphsim(const std::vector<std::string>& args, int timeoutSeconds, const RunSettings& settings) {
  int outPipe[2], errPipe[2];
  if (::pipe(outPipe) != 0 || ::pipe(errPipe) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (settings.stdoutTo == RunSettings::Stdout::Pipe) {
      ::dup2(outPipe[1], 1);
    } else if (settings.stdoutTo == RunSettings::Stdout::Closed) {
      ::close(1);
    } else {
      const int fd = ::open(settings.stdoutPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
      if (fd < 0) ::_exit(126);
      ::dup2(fd, 1);
      ::close(fd);
    }
    for (const auto& [name, value] : settings.environment) ::setenv(name.c_str(), value.c_str(), 1);
    ::dup2(errPipe[1], 2);
    ::close(outPipe[0]);
    ::close(errPipe[0]);
    ::close(outPipe[1]);
    std::vector<char*> argv;
    std::string exe = settings.exe.empty() ? std::string(GRAPHSIM_EXE) : settings.exe;
    argv.push_back(exe.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(outPipe[1]);
  ::close(errPipe[1]);
  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
  pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
  int open = 2;
  while (open > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timedOut = true;
      ::kill(pid, SIGKILL);
      break;
    }
    if (::poll(fds, 2, static_cast<int>(left.count())) <= 0) continue;
    for (auto& f : fds) {
      if (f.fd < 0 || !(f.revents & (POLLIN | POLLHUP))) continue;
      char buffer[4096];
      const ssize_t n = ::read(f.fd, buffer, sizeof buffer);
      if (n <= 0) {
        ::close(f.fd);
        f.fd = -1;
        --open;
      } else {
        (f.fd == outPipe[0] ? result.out : result.err).append(buffer, static_cast<std::size_t>(n));
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

} // namespace graphsim::test
