// Counting heap allocations in the unit tests: reading an unchanged node list must allocate nothing.
#pragma once

#include <cstddef>

namespace graphsim::test {

// Counts the operator new calls of this test binary (allocation_count.cpp replaces the global operator new) from
// construction until stop() or destruction. One at a time.
class AllocationCount {
public:
  AllocationCount();
  ~AllocationCount();
  AllocationCount(const AllocationCount&) = delete;
  AllocationCount& operator=(const AllocationCount&) = delete;
  std::size_t stop(); // stops counting; the allocations since construction
};

} // namespace graphsim::test
