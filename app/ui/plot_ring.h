// The panel's line plots of a series over time (the live diagnostics of every scene, docs/DIAGNOSTICS.md): the last
// kSamples values in a ring, so that nothing allocates per sample, and drawPlotRing (panel.cpp) to draw one.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>

namespace graphsim::app {

class PlotRing {
public:
  static constexpr std::size_t kSamples = 300;

  void clear() { count_ = next_ = 0; }
  void push(float value) {
    values_[next_] = value;
    next_ = (next_ + 1) % kSamples;
    count_ = std::min(count_ + 1, kSamples);
  }
  std::size_t count() const { return count_; }
  const float* data() const { return values_.data(); }
  // Where the oldest value is (ImGui::PlotLines' values_offset).
  int offset() const { return static_cast<int>(count_ < kSamples ? 0 : next_); }

private:
  std::array<float, kSamples> values_{};
  std::size_t count_ = 0, next_ = 0;
};

// A 40-pixel line plot of the ring under `label` with `overlay` written over it, scaled to its values. Returns
// whether the mouse is over it (the caller's tooltip).
bool drawPlotRing(const char* label, const PlotRing& ring, const char* overlay);

} // namespace graphsim::app
