// How the host waits in the frames-in-flight throttle (renderDone >= the slot's last value), the one wait of every
// frame (docs/FRAME.md). The strategy decides how warm the frame loop's thread is when the wait returns, and so how
// long the node updates, graph launch and vkQueueSubmit that follow take: docs/PERFORMANCE.md ("Host cost") has the
// measurements that chose the default, with the CPU time each strategy burns.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

namespace graphsim::render {

class TimelineSemaphore;

enum class ThrottleWait {
  Block,  // vkWaitSemaphores for the whole wait: the thread sleeps in the driver until the signal
  Poll,   // vkGetSemaphoreCounterValue every 50 us, sleeping in between (the CUDA waits' long-wait mode)
  Spin,   // vkGetSemaphoreCounterValue in a loop, yielding: a core busy for the whole wait
  Hybrid, // vkWaitSemaphores until shortly before the signal is expected (the recent throttle interval), then Spin
};
inline constexpr ThrottleWait kThrottleWaits[] = {ThrottleWait::Block, ThrottleWait::Poll, ThrottleWait::Spin,
                                                  ThrottleWait::Hybrid};
std::string_view throttleWaitName(ThrottleWait wait);
std::optional<ThrottleWait> throttleWaitFromName(std::string_view name);

// One throttle's waits (the renderer holds one). Hybrid predicts the next signal from the interval between the last
// two waits' returns; the other strategies keep no state.
class ThrottleWaiter {
public:
  explicit ThrottleWaiter(ThrottleWait strategy) : strategy_(strategy) {}
  ThrottleWait strategy() const { return strategy_; }

  // semaphore >= value within timeout: true; false on timeout.
  bool wait(const TimelineSemaphore& semaphore, std::uint64_t value, std::chrono::nanoseconds timeout);

private:
  using Clock = std::chrono::steady_clock;
  // Hybrid: the sleeping part ends this long before the predicted signal.
  static constexpr std::chrono::microseconds kSpinMargin{150};

  ThrottleWait strategy_;
  std::optional<Clock::time_point> lastReturn_;
  Clock::duration interval_{};
};

} // namespace graphsim::render
