// Kernels only the GPU tests use: the CUDA half of the interop round trip.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace graphsim::gputest {

// The word Vulkan writes at index i, and the different word CUDA writes back. Position-dependent, so a shifted,
// truncated or stale copy cannot pass. constexpr: used on the host and (--expt-relaxed-constexpr) on the device.
constexpr std::uint32_t vulkanPattern(std::uint32_t i) { return (0x9E3779B9u * (i + 1u)) ^ 0x5A5A0000u; }
constexpr std::uint32_t cudaPattern(std::uint32_t i) { return ~vulkanPattern(i) + 17u * i; }

// One thread per word: adds 1 to *mismatches for every word != vulkanPattern(i), then writes cudaPattern(i).
// Returns the launch's cudaGetLastError() (this file is C++17 CUDA and cannot include the C++20 error path).
cudaError_t launchVerifyThenWrite(std::uint32_t* words, std::uint32_t count, unsigned* mismatches, cudaStream_t stream);

} // namespace graphsim::gputest
