#include "compute/cuda/frame_timings.h"

#include "compute/cuda/cuda_check.h"

namespace graphsim::cuda {

void FrameTimings::create() {
  for (Slot& s : slots_) {
    s.start = makeTimingEvent();
    s.end = makeTimingEvent();
    s.frame.reset();
  }
}

void FrameTimings::begin(std::uint64_t k, cudaStream_t stream) {
  CUDA_CHECK(cudaEventRecord(slots_[k % kSlots].start.get(), stream));
}

void FrameTimings::end(std::uint64_t k, cudaStream_t stream) {
  Slot& s = slots_[k % kSlots];
  CUDA_CHECK(cudaEventRecord(s.end.get(), stream));
  s.frame = k;
}

cudaEvent_t FrameTimings::endOf(std::uint64_t k) const {
  const Slot& s = slotOf(k);
  return s.frame == k ? s.end.get() : nullptr;
}

std::optional<double> FrameTimings::gpuMs(std::uint64_t k) const {
  const Slot& s = slotOf(k);
  if (s.frame != k) return std::nullopt;
  const cudaError_t q = cudaEventQuery(s.end.get());
  float ms = 0;
  if (q == cudaSuccess && cudaEventElapsedTime(&ms, s.start.get(), s.end.get()) == cudaSuccess) return ms;
  if (q != cudaErrorNotReady) (void)cudaGetLastError(); // a failed frame: the waits report it, not a timing read
  return std::nullopt;
}

std::optional<double> FrameTimings::newestMs(std::uint64_t last) const {
  for (std::uint64_t back = 0; back < kSlots && back <= last; ++back) {
    const Slot& s = slotOf(last - back);
    if (s.frame != last - back) break;
    const cudaError_t q = cudaEventQuery(s.end.get());
    if (q == cudaErrorNotReady) continue;
    if (q != cudaSuccess) break; // a failed frame: the waits report it; keep the last good figure
    float ms = 0;
    if (cudaEventElapsedTime(&ms, s.start.get(), s.end.get()) == cudaSuccess) return ms;
    break;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> FrameTimings::oldestIncomplete() const {
  std::optional<std::uint64_t> oldest;
  for (const Slot& s : slots_) {
    if (!s.frame || cudaEventQuery(s.end.get()) != cudaErrorNotReady) continue;
    if (!oldest || *s.frame < *oldest) oldest = s.frame;
  }
  return oldest;
}

} // namespace graphsim::cuda
