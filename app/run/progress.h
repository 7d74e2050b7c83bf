// Progress lines for long runs on stderr ("frame k/N, fps"), at most a few per second.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace graphsim::app {

class Progress {
public:
  Progress(std::uint64_t total, bool quiet) : total_(total), quiet_(quiet) {}

  void frameDone(std::uint64_t framesDone) {
    const auto now = Clock::now();
    if (quiet_ || now - lastPrint_ < std::chrono::milliseconds(400)) return;
    const double seconds = std::chrono::duration<double>(now - lastPrint_).count();
    std::fprintf(stderr, "graphsim: frame %llu/%llu, %.1f fps\n", static_cast<unsigned long long>(framesDone),
                 static_cast<unsigned long long>(total_), static_cast<double>(framesDone - lastFrames_) / seconds);
    lastPrint_ = now;
    lastFrames_ = framesDone;
  }

private:
  using Clock = std::chrono::steady_clock;
  std::uint64_t total_;
  bool quiet_;
  Clock::time_point lastPrint_ = Clock::now();
  std::uint64_t lastFrames_ = 0;
};

} // namespace graphsim::app
