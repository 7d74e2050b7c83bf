// Bounded host waits: poll a condition until it holds or a deadline passes. No CUDA or Vulkan here: the CUDA waits
// (compute/cuda/poll.h) and the renderer's throttle (render/throttle_wait.h) both poll through it.
#pragma once

#include <chrono>
#include <thread>

namespace graphsim {

// How a poll paces itself: it yields between polls for the first `spinFor`, then sleeps `sleep` per poll.
struct PollPace {
  std::chrono::microseconds spinFor{2000};
  std::chrono::microseconds sleep{50};
};

// Polls `done` until it returns true (then true) or the deadline passes (then false, after one last poll). The
// default pace spins for 2 ms, so that short waits (a frame of a small scene) return within microseconds, then sleeps
// 50 us per poll.
template <typename Done>
bool pollUntil(const Done& done, std::chrono::steady_clock::time_point deadline, PollPace pace = {}) {
  using Clock = std::chrono::steady_clock;
  const auto spinUntil = Clock::now() + pace.spinFor;
  for (;;) {
    if (done()) return true;
    const auto now = Clock::now();
    if (now >= deadline) return done();
    if (now < spinUntil) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(pace.sleep);
    }
  }
}

} // namespace graphsim
