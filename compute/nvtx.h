// NVTX ranges around the host phases of a frame, so that an Nsight Systems timeline reads as the frame protocol
// (docs/PROFILING.md). Plain C++: NVTX3 itself (header-only, from the CUDA toolkit) is included by nvtx.cpp only, so
// app/ uses these ranges without the toolkit's headers.
//
// Without a tool attached (no NVTX injection library) a range costs a check of one static: no string is formatted
// and no NVTX call is made. The phase names are registered strings of the "graphsim" domain; the frame number is each
// range's 64-bit payload, and the outer range of a frame is named "frame N" (formatted only when a tool is attached).
#pragma once

#include <cstddef>
#include <cstdint>

namespace graphsim::nvtx {

// In the order they appear in a frame. Frame encloses one FrameDriver::step and the others nest inside it, except
// Drain (after the last frame) and Capture (run: after the step). WaitProduced sits inside Throttle (sim only), before
// Submit (event-ordered submit) or inside Drain.
enum class Phase : std::uint8_t {
  Frame,        // "frame N": one FrameDriver::step
  Throttle,     // host wait for renderDone >= k - F + 1 (sim only: for the producer's frame k - F)
  Prepare,      // the caller's hook: window image, UI, live edits
  Produce,      // the producer fills slot(k): CUDA graph update + launch, or the CPU backend's step and copy
  NodeUpdates,  // CUDA: semaphore values, output pointer and changed kernel nodes of the exec graph
  GraphLaunch,  // CUDA: cudaGraphLaunch
  Submit,       // Vulkan: record and submit frame k
  WaitProduced, // host wait for the producer's frame (event-ordered submit, sim-only throttle, drain)
  Drain,        // the last frames in flight complete, then the producer finishes
  Capture,      // a captured frame read back (and, in run, encoded and written)
};
inline constexpr std::size_t kPhaseCount = 10;

// One push/pop range on the calling thread, from construction to end() or destruction.
class Range {
public:
  Range(Phase phase, std::uint64_t frame) noexcept : open_(push(phase, frame)) {}
  ~Range() { end(); }
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;

  // Closes the range before the scope ends (the next phase starts in the same scope).
  void end() noexcept {
    if (open_) pop();
    open_ = false;
  }

private:
  static bool push(Phase phase, std::uint64_t frame) noexcept; // false: no tool attached, nothing pushed
  static void pop() noexcept;
  bool open_;
};

// Names the calling thread in the timeline (once, not per frame).
void nameThisThread(const char* name) noexcept;

} // namespace graphsim::nvtx
