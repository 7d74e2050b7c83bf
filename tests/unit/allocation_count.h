// Counting heap allocations in the unit tests: reading an unchanged node list must allocate nothing.
#pragma once

#include <cstddef>

namespace graphsim::test {

// Counts the operator new calls of this test binary (allocation_count.cpp replaces the global operator new) from
// startCountingAllocations() until stopCountingAllocations(), which returns the count. Not nestable.
void startCountingAllocations();
std::size_t stopCountingAllocations();

} // namespace graphsim::test
