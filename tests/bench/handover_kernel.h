// The CUDA work of a handover_bench frame: one kernel that does nothing (launched with 1 block of 1 thread). Plain
// C++ (no CUDA headers), so that handover_bench.cpp is compiled by the host compiler and only this kernel by nvcc.
#pragma once

namespace graphsim::bench {

// The kernel's function pointer, as cudaKernelNodeParams::func takes it. It takes no arguments (kernelParams =
// nullptr).
void* emptyKernelFunction();

} // namespace graphsim::bench
