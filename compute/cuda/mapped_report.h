// Reading a report that a kernel writes into mapped pinned host memory under a sequence lock: `seq` is 0 before the
// first report, odd while the kernel writes, even once a report is complete. The host reads it with a few loads: no
// CUDA call, no wait. The n-body and fluid diagnostics nodes both use it (docs/DIAGNOSTICS.md).
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>

namespace graphsim::cuda {

// A copy of the report if no write overlapped it (up to four attempts), else nothing (the previous value stays the
// caller's latest). Copied in 8-byte volatile loads: the GPU writes this memory behind the compiler's back.
template <class Report>
std::optional<Report> readMappedReport(const volatile Report* h) {
  static_assert(std::is_trivially_copyable_v<Report> && sizeof(Report) % sizeof(std::uint64_t) == 0);
  constexpr std::size_t kWords = sizeof(Report) / sizeof(std::uint64_t);
  const auto* words = reinterpret_cast<const volatile std::uint64_t*>(h);
  for (int attempt = 0; attempt < 4; ++attempt) {
    const unsigned long long s1 = h->seq;
    if (s1 == 0) return std::nullopt;
    std::atomic_thread_fence(std::memory_order_acquire);
    std::array<std::uint64_t, kWords> copy;
    for (std::size_t i = 0; i < kWords; ++i) copy[i] = words[i];
    std::atomic_thread_fence(std::memory_order_acquire);
    if ((s1 & 1) == 0 && h->seq == s1) return std::bit_cast<Report>(copy);
  }
  return std::nullopt;
}

} // namespace graphsim::cuda
