// The unit tests' global operator new: the default behaviour plus one relaxed increment while allocations are
// counted. In its own file so that the compiler never sees a replaced new and delete inlined into one caller.
#include "allocation_count.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> g_counting{false};
std::atomic<std::size_t> g_allocations{0};
} // namespace

void* operator new(std::size_t size) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace graphsim::test {

void startCountingAllocations() {
  g_allocations.store(0);
  g_counting.store(true);
}

std::size_t stopCountingAllocations() {
  g_counting.store(false);
  return g_allocations.load();
}

} // namespace graphsim::test
