// Reading a report that a kernel writes into mapped pinned host memory under a sequence lock: `seq` is 0 before the
// first report, odd while the kernel writes, even once a report is complete. The host reads it with a few loads: no
// CUDA call, no wait. The n-body and fluid diagnostics nodes both use it (docs/DIAGNOSTICS.md).
#pragma once

#include <atomic>
#include <optional>

namespace graphsim::cuda {

// read(h) copies the report's fields; the copy is returned if no write overlapped it (up to four attempts), else
// nothing (the previous value stays the caller's latest).
template <class Report, class Read>
auto readMappedReport(const volatile Report* h, Read&& read) -> std::optional<decltype(read(h))> {
  for (int attempt = 0; attempt < 4; ++attempt) {
    const unsigned long long s1 = h->seq;
    if (s1 == 0) return std::nullopt;
    std::atomic_thread_fence(std::memory_order_acquire);
    auto value = read(h);
    std::atomic_thread_fence(std::memory_order_acquire);
    if ((s1 & 1) == 0 && h->seq == s1) return value;
  }
  return std::nullopt;
}

} // namespace graphsim::cuda
