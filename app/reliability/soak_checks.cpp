#include "app/reliability/soak_checks.h"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "app/base/progress.h"
#include "app/reliability/soak.h"

namespace graphsim::app {

void SoakFailures::add(std::uint64_t k, const std::string& what) {
  ++count;
  lines.push_back("frame " + std::to_string(k + 1) + ": " + what);
  endProgressLine();
  std::fprintf(stderr, "graphsim soak: checkpoint FAILED at %s\n", lines.back().c_str());
}

void SoakFailures::print() const {
  for (std::size_t i = 0; i < lines.size() && i < 10; ++i) std::printf("  failed: %s\n", lines[i].c_str());
}

void printCheckpointLine(std::uint64_t checkpoints, std::int64_t every, const char* how, std::uint64_t failed,
                         std::uint64_t identical, std::uint64_t resyncs) {
  std::printf(
      "checkpoints: %llu every %lld frames against the cpu replay (%s), %llu failed, %llu bit-identical, "
      "%llu replay restarts from the run's state\n",
      static_cast<unsigned long long>(checkpoints), static_cast<long long>(every), how,
      static_cast<unsigned long long>(failed), static_cast<unsigned long long>(identical),
      static_cast<unsigned long long>(resyncs));
}

ReplaySoak::ReplaySoak(const Scene& scene, const SceneSettings& settings, const SoakOptions& options, double tolerance)
    : random_(options.seed), replay_(scene.makeProducer(settings, {})), exact_(options.backend != BackendKind::Cuda),
      tolerance_(tolerance) {}

void ReplaySoak::setControls(SceneProducer& run, const nlohmann::json& wanted) {
  nlohmann::json c = run.controls();
  c.update(wanted);
  run.setControls(c), replay_->setControls(c);
}

void ReplaySoak::afterFrame(std::uint64_t k, SceneProducer& run, bool checkpoint) {
  replay_->beginFrame(k), replay_->produce(k);
  if (!checkpoint) return;
  const SceneState got = run.saveState(), want = replay_->saveState();
  double diff = 0;
  for (std::size_t a = 0; a < got.arrays.size(); ++a)
    for (std::size_t i = 0; i < got.arrays[a].values.size(); ++i)
      diff = std::max(diff, std::fabs(double(got.arrays[a].values[i]) - want.arrays[a].values[i]));
  worst_ = std::max(worst_, diff);
  failed_ += (exact_ ? diff != 0 : !(diff <= tolerance_)) ? 1 : 0;
  ++checkpoints_;
  if (!exact_) replay_->loadState(got);
}

void ReplaySoak::printCheckpoints() const {
  std::printf("checkpoints: %llu, failed %llu, worst difference from the CPU replay %g\n",
              static_cast<unsigned long long>(checkpoints_), static_cast<unsigned long long>(failed_), worst_);
}

} // namespace graphsim::app
