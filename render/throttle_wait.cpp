#include "render/throttle_wait.h"

#include <algorithm>

#include "compute/poll.h"
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
  for (ThrottleWait w : kThrottleWaits)
    if (throttleWaitName(w) == name) return w;
  return std::nullopt;
}

namespace {

using Clock = std::chrono::steady_clock;

// Reads the counter until it reaches value or the deadline passes.
bool pollCounter(const TimelineSemaphore& s, std::uint64_t value, Clock::time_point deadline, PollPace pace) {
  return pollUntil([&] { return s.value() >= value; }, deadline, pace);
}

constexpr PollPace kPollPace{std::chrono::microseconds(0), std::chrono::microseconds(50)}; // sleep from the start
constexpr PollPace kSpinPace{std::chrono::hours(1), std::chrono::microseconds(0)};         // never sleep

} // namespace

bool ThrottleWaiter::wait(const TimelineSemaphore& semaphore, std::uint64_t value, std::chrono::nanoseconds timeout) {
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline = start + timeout;
  bool done = false;
  switch (strategy_) {
  case ThrottleWait::Block: done = semaphore.hostWait(value, timeout); break;
  case ThrottleWait::Poll: done = pollCounter(semaphore, value, deadline, kPollPace); break;
  case ThrottleWait::Spin: done = pollCounter(semaphore, value, deadline, kSpinPace); break;
  case ThrottleWait::Hybrid: {
    // Sleep in the driver until kSpinMargin before the predicted signal (no prediction yet: not at all), then spin.
    if (lastReturn_ && interval_ > kSpinMargin) {
      const Clock::time_point wake = std::min(*lastReturn_ + interval_ - kSpinMargin, deadline);
      if (wake > start) done = semaphore.hostWait(value, wake - start);
    }
    if (!done) done = pollCounter(semaphore, value, deadline, kSpinPace);
    break;
  }
  }
  if (!done) return false;
  if (strategy_ == ThrottleWait::Hybrid) { // the prediction: the interval between the last two returns
    const Clock::time_point now = Clock::now();
    if (lastReturn_) interval_ = now - *lastReturn_;
    lastReturn_ = now;
  }
  return true;
}

} // namespace graphsim::render
