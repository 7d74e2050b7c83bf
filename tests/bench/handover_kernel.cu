// The empty kernel of handover_bench (handover_kernel.h).
#include "tests/bench/handover_kernel.h"

namespace graphsim::bench {

__global__ void handoverEmptyKernel() {}

void* emptyKernelFunction() { return reinterpret_cast<void*>(&handoverEmptyKernel); }

} // namespace graphsim::bench
