// Programmatic dependent launch inside the frame graph (NBodyFrameGraph::setProgrammaticLaunch): every stage kernel
// starts with these two, so that it is correct both as the secondary of a programmatic edge and launched the ordinary
// way.
//   waitForPreviousKernel  griddepcontrol.wait: returns once the kernel this one programmatically depends on has
//                          completed and its memory is visible; at once when there is none (an ordinary launch).
//                          Nothing may read the previous stage's output before it.
//   allowNextKernel        griddepcontrol.launch_dependents: this block lets the next kernel be launched; the next
//                          kernel starts when every block of this one did so or exited, and then waits above.
// sm_90 instructions; other targets compile them to nothing (no programmatic edges exist there).
#pragma once

namespace graphsim::cuda {

__device__ __forceinline__ void waitForPreviousKernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void allowNextKernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Both, at the top of a stage kernel.
__device__ __forceinline__ void programmaticLaunchPrologue() {
  waitForPreviousKernel();
  allowNextKernel();
}

} // namespace graphsim::cuda
