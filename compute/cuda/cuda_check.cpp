// Message formatting of the CUDA error path (cuda_check.h).
#include "compute/cuda/cuda_check.h"

#include <cstdio>
#include <cstring>

namespace graphsim::cuda {
namespace {

// __FILE__ is an absolute path under CMake; the file name is what a reader needs. No allocation: also used by
// the noexcept logger.
const char* shortFile(const char* file) {
  const char* slash = std::strrchr(file, '/');
  return slash != nullptr ? slash + 1 : file;
}

} // namespace

std::string describeCudaError(cudaError_t code) {
  // Both functions return static strings and are safe to call without a driver.
  return std::string(cudaGetErrorName(code)) + " (" + cudaGetErrorString(code) + ")";
}

void throwCudaError(cudaError_t code, const char* expression, const char* file, int line, const std::string& context) {
  std::string message = "CUDA error: ";
  if (!context.empty()) message += context + ": ";
  message += std::string(expression) + " failed at " + std::string(shortFile(file)) + ":" + std::to_string(line) +
             ": " + describeCudaError(code);
  // The runtime also keeps the error as its "last error"; it is reported now, so a library that peeks at the last
  // error later (CUB does) must not see it again. A sticky error (a failed kernel) stays regardless.
  (void)cudaGetLastError();
  throw CudaError(static_cast<int>(code), message);
}

void logCudaError(cudaError_t code, const char* expression, const char* file, int line) noexcept {
  std::fprintf(stderr, "graphsim: %s failed at %s:%d: %s (%s)\n", expression, shortFile(file), line,
               cudaGetErrorName(code), cudaGetErrorString(code));
}

} // namespace graphsim::cuda
