#include "render/throttle_wait.h"

#include <algorithm>
#include <thread>

#include "render/timeline_semaphore.h"

namespace graphsim::render {

std::string_view throttleWaitName(ThrottleWait wait) {
  switch (wait) {
  case ThrottleWait::Block: return "block";
  case ThrottleWait::Poll: return "poll";
  case ThrottleWait::Spin: return "spin";
  case ThrottleWait::Hybrid: return "hybrid";
  }
  return "?";
}

std::optional<ThrottleWait> throttleWaitFromName(std::string_view name) {
  for (ThrottleWait w : kThrottleWaits) {
    if (throttleWaitName(w) == name) return w;
  }
  return std::nullopt;
}

namespace {

using Clock = std::chrono::steady_clock;

// Reads the counter until it reaches value or the deadline passes; pause: between reads (zero: yield).
bool pollCounter(const TimelineSemaphore& s, std::uint64_t value, Clock::time_point deadline,
                 std::chrono::microseconds pause) {
  for (;;) {
    if (s.value() >= value) return true;
    if (Clock::now() >= deadline) return s.value() >= value;
    if (pause.count() > 0) {
      std::this_thread::sleep_for(pause);
    } else {
      std::this_thread::yield();
    }
  }
}

} // namespace

bool ThrottleWaiter::wait(const TimelineSemaphore& semaphore, std::uint64_t value, std::chrono::nanoseconds timeout) {
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline = start + timeout;
  bool done = false;
  switch (strategy_) {
  case ThrottleWait::Block: done = semaphore.hostWait(value, timeout); break;
  case ThrottleWait::Poll: done = pollCounter(semaphore, value, deadline, std::chrono::microseconds(50)); break;
  case ThrottleWait::Spin: done = pollCounter(semaphore, value, deadline, std::chrono::microseconds(0)); break;
  case ThrottleWait::Hybrid: {
    // Sleep in the driver until kSpinMargin before the predicted signal (no prediction yet: not at all), then spin.
    if (lastReturn_ && interval_ > kSpinMargin) {
      const Clock::time_point wake = std::min(*lastReturn_ + interval_ - kSpinMargin, deadline);
      if (wake > start) done = semaphore.hostWait(value, wake - start);
    }
    if (!done) done = pollCounter(semaphore, value, deadline, std::chrono::microseconds(0));
    break;
  }
  }
  if (!done) return false;
  const Clock::time_point now = Clock::now();
  if (lastReturn_) interval_ = now - *lastReturn_;
  lastReturn_ = now;
  return true;
}

} // namespace graphsim::render
