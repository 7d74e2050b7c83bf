#include "tests/reliability/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;

std::string readAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& args, const fs::path& logDir, const ChildSetup& setup) {
  fs::create_directories(logDir);
  out_ = logDir / "stdout.txt";
  err_ = logDir / "stderr.txt";
  const int outFd = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int errFd = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (outFd < 0 || errFd < 0) throw std::runtime_error("cannot create the log files in " + logDir.string());
  std::vector<std::string> argv0 = {GRAPHSIM_EXE};
  argv0.insert(argv0.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv0) argv.push_back(a.data());
  argv.push_back(nullptr);
  int brokenPipe[2] = {-1, -1};
  if (setup.outputToBrokenPipe) {
    if (::pipe2(brokenPipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    ::close(brokenPipe[0]); // the reader is gone before the child writes anything
  }
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::signal(SIGPIPE, SIG_DFL); // as a shell starts it: the default action, which graphsim must override itself
    ::signal(SIGXFSZ, SIG_DFL);
    if (setup.fileSizeLimit) {
      const rlimit limit{*setup.fileSizeLimit, *setup.fileSizeLimit};
      ::setrlimit(RLIMIT_FSIZE, &limit);
    }
    ::dup2(setup.outputToBrokenPipe ? brokenPipe[1] : outFd, 1); // dup2 clears O_CLOEXEC on the new descriptors
    ::dup2(setup.outputToBrokenPipe ? brokenPipe[1] : errFd, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  if (brokenPipe[1] >= 0) ::close(brokenPipe[1]);
  ::close(outFd);
  ::close(errFd);
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

void ChildProcess::signal(int sig) const {
  if (pid_ > 0) ::kill(pid_, sig);
}

ProcessResult ChildProcess::wait(std::chrono::milliseconds timeout) {
  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      result.timedOut = true;
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  pid_ = -1;
  if (!result.timedOut && WIFEXITED(status)) result.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.out = readAll(out_);
  result.err = readAll(err_);
  return result;
}

std::string ChildProcess::err() const { return readAll(err_); }

std::string findPartialFiles(const fs::path& dir, const std::string& stem) {
  static const unsigned char kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  static const unsigned char kTrailer[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
  const std::regex name(stem + "_[0-9]{6}\\.png");
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    const std::string file = e.path().filename().string();
    if (!std::regex_match(file, name)) return file + ": unexpected file (a temporary or partial write?)";
    const std::string bytes = readAll(e.path());
    if (bytes.size() < sizeof kSignature + sizeof kTrailer ||
        bytes.compare(0, sizeof kSignature, reinterpret_cast<const char*>(kSignature), sizeof kSignature) != 0 ||
        bytes.compare(bytes.size() - sizeof kTrailer, sizeof kTrailer, reinterpret_cast<const char*>(kTrailer),
                      sizeof kTrailer) != 0) {
      return file + ": not a complete PNG (" + std::to_string(bytes.size()) + " bytes)";
    }
  }
  return {};
}

} // namespace graphsim::test
