// Bounded host waits on the GPU: poll a condition until it holds or a deadline passes.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <thread>

#include "compute/cuda/cuda_check.h"

namespace graphsim::cuda {

// Polls `done` until it returns true or the deadline passes (then returns false). Spins (yielding) for the first
// 2 ms, so that short waits (a frame of a small scene) return within microseconds, then sleeps 50 us per poll.
template <typename Done>
bool pollUntil(const Done& done, std::chrono::steady_clock::time_point deadline) {
  using Clock = std::chrono::steady_clock;
  const auto spinUntil = Clock::now() + std::chrono::milliseconds(2);
  for (;;) {
    if (done()) return true;
    const auto now = Clock::now();
    if (now >= deadline) return false;
    if (now < spinUntil) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
}

// Polls query() (a cudaStreamQuery or cudaEventQuery) until it returns cudaSuccess (true) or the deadline passes
// (false). Any other result means the work failed: throws CudaError naming `expression` and context() (called only
// then, so a wait builds no strings).
template <typename Query, typename Context>
bool pollCudaUntilDone(const Query& query, const char* expression, const Context& context,
                       std::chrono::steady_clock::time_point deadline) {
  return pollUntil(
      [&] {
        const cudaError_t e = query();
        if (e == cudaSuccess) return true;
        if (e != cudaErrorNotReady) throwCudaError(e, expression, __FILE__, __LINE__, context());
        return false;
      },
      deadline);
}

} // namespace graphsim::cuda
