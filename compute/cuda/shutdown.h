// The destructor of a CUDA backend: wait (bounded) for its work, then let its members free everything.
#pragma once

#include <cstdio>
#include <exception>
#include <memory>

#include "compute/errors.h"

namespace graphsim::cuda {

// impl->synchronize() (bounded). Still running after the timeout (a semaphore wait that nobody signals): destroying
// the semaphores or memory would be undefined behaviour, so the resources are retired for good instead of freed.
// Failed (a sticky CUDA error): the work is over, freeing is safe and reports its own errors.
template <typename Impl>
void finishOrRetire(std::unique_ptr<Impl>& impl, const char* what) noexcept {
  try {
    impl->synchronize();
  } catch (const TimeoutError& e) {
    std::fprintf(stderr, "graphsim: %s; leaving its CUDA resources allocated\n", e.what());
    (void)impl.release();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "graphsim: %s shutdown: %s\n", what, e.what());
  }
}

} // namespace graphsim::cuda
