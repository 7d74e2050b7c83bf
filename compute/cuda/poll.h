// Bounded host waits on the GPU: CUDA queries polled through pollUntil (compute/poll.h).
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>

#include "compute/cuda/cuda_check.h"
#include "compute/poll.h"

namespace graphsim::cuda {

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
