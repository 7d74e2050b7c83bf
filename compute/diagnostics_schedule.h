// When the live diagnostics (issue 15, docs/DIAGNOSTICS.md) sample, for every scene: the interval, its limits, the
// node's name and the schedule. Plain C++17 (the kernels include it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace graphsim {

// The sampling interval `--diagnostics-every` defaults to in the app (each scene's config: diagnosticsEvery; 0: no
// diagnostics node at all, which is what a config made in code gets).
inline constexpr int kDefaultDiagnosticsEvery = 10;
inline constexpr int kMaxDiagnosticsEvery = 1'000'000;

// The diagnostics node (both backends' node lists; CUDA: one kernel node): not a stage, since it reads the state and
// changes nothing (so the stage table, the blow-up codes, scene files and snapshots do not list it), but it runs in
// the frame like one, right after the first forces instance, where a(t) of the state the frame starts from is fresh.
// The panel toggles it (NBodyBackend::setDiagnosticsEnabled).
inline constexpr const char* kDiagnosticsNodeName = "diagnostics";

// Whether frame k takes a sample: every `every` frames (k % every == 0), and the first frame after a reset (so a
// series starts from the state it describes). Both backends also skip a frame whose dt is 0 (paused: nothing moves,
// and the half-step correction would be dt 0's) or whose forces stage is off (the correction needs its a(t)); the
// first sample then waits for the next frame that qualifies.
constexpr bool diagnosticsDue(std::uint64_t frame, int every, bool firstPending) {
  return every > 0 && (firstPending || frame % static_cast<std::uint64_t>(every) == 0);
}

// The first and the latest sample of the current series, fed with what a backend reports (a Sample has frame, series
// and sums): each scene's track (the panel, the soak, bench and the run's summary keep one) adds its own figures. A
// sample of another series starts the track over.
template <class Sample>
class SampleSeries {
public:
  const std::optional<Sample>& first() const { return first_; }
  const std::optional<Sample>& last() const { return last_; }
  std::uint64_t samples() const { return samples_; }
  // "N samples, frames a..b": the head of a track's summary (with samples).
  std::string describeSpan() const {
    return std::to_string(samples_) + " sample" + (samples_ == 1 ? "" : "s") + ", frames " +
           std::to_string(first_->frame) + ".." + std::to_string(last_->frame);
  }

protected:
  // Takes the backend's latest sample; true when it is a new one (another frame or series); `restarted` when it
  // began a new series.
  bool add(const std::optional<Sample>& latest, bool& restarted) {
    restarted = false;
    if (!latest) return false;
    if (last_ && last_->series == latest->series && last_->frame == latest->frame) return false;
    if (!first_ || first_->series != latest->series) {
      first_ = latest;
      samples_ = 0;
      restarted = true;
    }
    last_ = latest;
    ++samples_;
    return true;
  }

private:
  std::optional<Sample> first_, last_;
  std::uint64_t samples_ = 0;
};

} // namespace graphsim
