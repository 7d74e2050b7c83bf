// What the Stats section shows: frame times (a plot's worth), fps over the last second, and the latest GPU times.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "compute/node_info.h"
#include "render/render_types.h"

namespace graphsim::app {

struct FrameStats {
  static constexpr std::size_t kHistory = 240;
  std::array<float, kHistory> frameMs{}; // ring, oldest at next
  std::size_t next = 0;
  std::size_t count = 0;
  double fps = 0;
  double simMs = -1;                    // CPU: wall time of the step; CUDA: the graph's GPU time (events)
  double renderGpuMs = -1;              // Vulkan timestamps; negative when unsupported
  render::RenderPassTimes renderPasses; // the same frame's by pass
  double updateHostUs = 0;              // host time of this frame's node updates (CUDA)
  std::uint64_t frames = 0;             // frames rendered
  UpdateCounters counters;

  void addFrame(double ms) {
    frameMs[next] = static_cast<float>(ms);
    next = (next + 1) % kHistory;
    if (count < kHistory) ++count;
    ++frames;
    // fps: frames over the last ~second of frame times, newest first
    double sum = 0;
    std::size_t n = 0;
    for (; n < count && sum < 1000.0; ++n) sum += frameMs[(next + kHistory - 1 - n) % kHistory];
    fps = sum > 0 ? 1000.0 * static_cast<double>(n) / sum : 0;
  }
};

} // namespace graphsim::app
