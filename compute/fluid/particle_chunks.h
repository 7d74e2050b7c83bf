// The CPU reference's particle loops in chunks with interrupt checkpoints (fluid_cpu.cpp, dfsph_cpu.cpp; compiled with
// OpenMP, so only their .cpp files include this).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "compute/long_work.h"

namespace graphsim::fluid {

// The neighbour loops (WCSPH's density and forces, DFSPH's stages) visit ~216 candidates per particle: at a million
// particles one stage takes seconds on the CPU. They run in chunks of particles with an interrupt checkpoint between
// them (compute/long_work.h), so that Ctrl-C acts within a second; each particle's sum is computed whole inside one
// chunk, so chunking changes no result.
inline constexpr std::int64_t kParticlesPerCheckpoint = 16384;

template <typename Body>
void forParticlesInChunks(std::int64_t n, Body&& body) {
  LongWork work;
  for (std::int64_t begin = 0; begin < n; begin += kParticlesPerCheckpoint) {
    const std::int64_t end = std::min(n, begin + kParticlesPerCheckpoint);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = begin; i < end; ++i) body(static_cast<std::size_t>(i));
    if (end < n) work.checkpoint(static_cast<double>(end) / static_cast<double>(n));
  }
}

// sum_i term(i) over the particles, as an exact integer sum (the same in any order), in the same chunks.
template <typename Term>
unsigned long long sumOverParticlesInChunks(std::int64_t n, Term&& term) {
  LongWork work;
  unsigned long long sum = 0;
  for (std::int64_t begin = 0; begin < n; begin += kParticlesPerCheckpoint) {
    const std::int64_t end = std::min(n, begin + kParticlesPerCheckpoint);
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (std::int64_t i = begin; i < end; ++i) sum += term(static_cast<std::size_t>(i));
    if (end < n) work.checkpoint(static_cast<double>(end) / static_cast<double>(n));
  }
  return sum;
}

} // namespace graphsim::fluid
