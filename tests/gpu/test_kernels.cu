#include "tests/gpu/test_kernels.h"

namespace graphsim::gputest {
namespace {

__global__ void verifyThenWrite(std::uint32_t* words, std::uint32_t count, unsigned* mismatches) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  if (words[i] != vulkanPattern(i)) atomicAdd(mismatches, 1u);
  words[i] = cudaPattern(i);
}

} // namespace

cudaError_t launchVerifyThenWrite(std::uint32_t* words, std::uint32_t count, unsigned* mismatches,
                                  cudaStream_t stream) {
  // A launch error is only visible through cudaGetLastError; clear whatever an earlier, handled call left there so
  // that the result reports this launch.
  (void)cudaGetLastError();
  constexpr std::uint32_t kBlock = 256;
  verifyThenWrite<<<(count + kBlock - 1) / kBlock, kBlock, 0, stream>>>(words, count, mismatches);
  return cudaGetLastError();
}

} // namespace graphsim::gputest
