// Every scene's frame timing (the CUDA kit): a ring of event pairs recorded on the stream around each frame's launch.
// Frame k's pair is read once frame k completed and never waited for, so the panel and the bench can show GPU times
// every frame; the end events also let a bounded wait name the frame it waits for. A history ring of kSlots,
// deliberately more than the frames in flight: not the protocol's slot(k).
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "compute/cuda/cuda_handles.h"

namespace graphsim::cuda {

class FrameTimings {
public:
  static constexpr std::size_t kSlots = 8;

  // kSlots pairs of timing events on the current device (the owner creates them once its device is set).
  void create();
  void begin(std::uint64_t k, cudaStream_t stream); // before frame k's launch
  void end(std::uint64_t k, cudaStream_t stream);   // after it: the slot now describes frame k
  // Frame k's end event while the ring still holds frame k; nullptr once overwritten or never recorded.
  cudaEvent_t endOf(std::uint64_t k) const;
  // Frame k's GPU time when it has completed; nullopt when not yet, failed or no longer held. Never waits.
  std::optional<double> gpuMs(std::uint64_t k) const;
  // The GPU time of the newest completed frame at or before `last` (newest first, stops at the first frame that
  // completed or failed); nullopt when none has. Never waits.
  std::optional<double> newestMs(std::uint64_t last) const;
  // The oldest recorded frame whose end event has not completed (for a stall message).
  std::optional<std::uint64_t> oldestIncomplete() const;

private:
  struct Slot {
    Event start, end;
    std::optional<std::uint64_t> frame; // the frame whose launch these events bracket
  };
  const Slot& slotOf(std::uint64_t k) const { return slots_[k % kSlots]; }
  std::array<Slot, kSlots> slots_;
};

} // namespace graphsim::cuda
