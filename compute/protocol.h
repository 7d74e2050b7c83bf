// What frame k is, in one place (docs/FRAME.md). Both wings use it: compute/ (the graph's semaphore nodes, which
// render buffer write_render targets) and render/ (which slot a submit records into, what it waits for), and the
// frame driver in app/frame/ (the throttle, which frame has completed). Plain C++: no CUDA or Vulkan headers.
//
//   frame k writes render buffer slot(k) = k % F;
//   CUDA waits renderDone >= renderDoneWaited(k) = max(0, k - F + 1): the render that last read slot(k) is done;
//   CUDA signals simDone = simDoneSignalled(k) = k + 1; the render of k waits for that value;
//   Vulkan signals renderDone = renderDoneSignalled(k) = k + 1;
//   once the host's throttle for frame k returned, frame completedBefore(k) = k - F (if k >= F) has completed.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace graphsim {

// Render buffers, slot resources and frames in flight: at most this many (--frames-in-flight 1..4).
inline constexpr std::uint32_t kMaxFramesInFlight = 4;

class FrameProtocol {
public:
  explicit constexpr FrameProtocol(std::uint32_t framesInFlight) : f_(framesInFlight) {
    if (framesInFlight < 1 || framesInFlight > kMaxFramesInFlight)
      throw std::invalid_argument("frames in flight must be 1.." + std::to_string(kMaxFramesInFlight) + ", got " +
                                  std::to_string(framesInFlight));
  }

  constexpr std::uint32_t framesInFlight() const { return f_; }
  constexpr std::uint32_t slot(std::uint64_t k) const { return static_cast<std::uint32_t>(k % f_); }
  // The renderDone value frame k's simulation waits for (and the host throttle before producing k): the render of
  // frame k - F, the last to read slot(k), signalled k - F + 1. 0 (nothing to wait for) for the first F frames.
  constexpr std::uint64_t renderDoneWaited(std::uint64_t k) const { return k + 1 >= f_ ? k + 1 - f_ : 0; }
  constexpr std::uint64_t simDoneSignalled(std::uint64_t k) const { return k + 1; }
  constexpr std::uint64_t renderDoneSignalled(std::uint64_t k) const { return k + 1; }
  // The frame whose render is known complete once renderDone >= renderDoneWaited(k), if any.
  constexpr std::optional<std::uint64_t> completedBefore(std::uint64_t k) const {
    if (k < f_) return std::nullopt;
    return k - f_;
  }
  // The frame a renderDone value says has completed (value v: frames < v are done), if any.
  static constexpr std::optional<std::uint64_t> frameOfRenderDone(std::uint64_t value) {
    if (value == 0) return std::nullopt;
    return value - 1;
  }

private:
  std::uint32_t f_;
};

} // namespace graphsim
