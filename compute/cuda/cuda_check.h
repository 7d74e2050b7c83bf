// One error path for the CUDA runtime: CUDA_CHECK turns any result other than cudaSuccess into a CudaError
// (compute/errors.h) carrying the expression, file, line, the error's name and its string. Destructors use
// CUDA_LOG instead: they must not throw, so a failure there is printed and otherwise ignored.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "compute/errors.h"

namespace graphsim::cuda {

// "cudaErrorIllegalAddress (an illegal memory access was encountered)"
std::string describeCudaError(cudaError_t code);

// context names what was being done when it is more useful than the expression (a graph node, a stage, a frame).
[[noreturn]] void throwCudaError(cudaError_t code, const char* expression, const char* file, int line,
                                 const std::string& context = {});

// Prints "graphsim: <expression> failed at file:line: <error>" to stderr. For destructors and shutdown paths.
void logCudaError(cudaError_t code, const char* expression, const char* file, int line) noexcept;

} // namespace graphsim::cuda

#define CUDA_CHECK(expr)                                                                                               \
  do {                                                                                                                 \
    const cudaError_t cudaCheckResult_ = (expr);                                                                       \
    if (cudaCheckResult_ != cudaSuccess)                                                                               \
      ::graphsim::cuda::throwCudaError(cudaCheckResult_, #expr, __FILE__, __LINE__);                                   \
  } while (false)

// The same, with a context string (e.g. the graph node a parameter update was for) in the message.
#define CUDA_CHECK_CTX(expr, context)                                                                                  \
  do {                                                                                                                 \
    const cudaError_t cudaCheckResult_ = (expr);                                                                       \
    if (cudaCheckResult_ != cudaSuccess)                                                                               \
      ::graphsim::cuda::throwCudaError(cudaCheckResult_, #expr, __FILE__, __LINE__, (context));                        \
  } while (false)

#define CUDA_LOG(expr)                                                                                                 \
  do {                                                                                                                 \
    const cudaError_t cudaCheckResult_ = (expr);                                                                       \
    if (cudaCheckResult_ != cudaSuccess) ::graphsim::cuda::logCudaError(cudaCheckResult_, #expr, __FILE__, __LINE__);  \
  } while (false)
