// What the scenes' soaks share (app/scenes/<scene>/<scene>_soak.cpp): the failed checkpoints and their report lines,
// the checkpoints' first line, the live diagnostics' last series, the replay's config; and ReplaySoak, a whole soak
// for a scene whose CPU producer replays the run's controls (the scene gives only its move).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "app/reliability/soak_random.h"
#include "app/scenes/scene.h"

namespace graphsim::app {

// Failed checkpoints: each said on stderr when it happens, the first ten listed in the report.
struct SoakFailures {
  std::uint64_t count = 0;
  std::vector<std::string> lines;

  void add(std::uint64_t k, const std::string& what); // "frame k+1: what"
  void print() const;                                 // "  failed: ..."
};

// "checkpoints: N every E frames against the cpu replay (how), ..."
void printCheckpointLine(std::uint64_t checkpoints, std::int64_t every, const char* how, std::uint64_t failed,
                         std::uint64_t identical, std::uint64_t resyncs);

// The run's live diagnostics (docs/DIAGNOSTICS.md), polled after every frame: a structural change or reset starts a
// new series, and the report ends with the last series' line.
template <class Track>
struct SoakDiagnostics {
  Track track; // the run's (not the replay's) samples
  std::uint64_t series = 0;
  int every = 0;

  template <class Sample>
  bool poll(int diagnosticsEvery, const Sample& latest) { // whether a new sample came
    every = diagnosticsEvery;
    if (!track.update(latest)) return false;
    if (track.samples() == 1) ++series;
    return true;
  }
  void print() const {
    if (every == 0) {
      std::printf("diagnostics: off (--diagnostics-every 0)\n");
    } else if (track.samples() == 0) {
      std::printf("diagnostics: every %d frames, no sample seen\n", every);
    } else {
      std::printf("%s; every %d frames, the last of %llu series\n", track.summary().c_str(), every,
                  static_cast<unsigned long long>(series));
    }
  }
};

// The replay's config: the run's without diagnostics (they change no state; the run's own are what the report shows).
template <class Config>
Config withoutDiagnostics(Config config) {
  config.diagnosticsEvery = 0;
  return config;
}

// A soak replayed by the scene's own CPU producer: change() (the scene's move) hands its controls to the run and the
// replay alike through setControls (the recording's path); each checkpoint compares the snapshots' arrays
// (SceneProducer::saveState): bit for bit on the CPU; on CUDA within `tolerance`, the replay then restarting from
// the run's state.
class ReplaySoak : public SceneSoak {
public:
  ReplaySoak(const Scene& scene, const SceneSettings& settings, const SoakOptions& options, double tolerance);
  void afterFrame(std::uint64_t k, SceneProducer& run, bool checkpoint) override;
  void printCheckpoints() const override;
  bool passed() const override { return failed_ == 0 && checkpoints_ > 0; }

protected:
  void setControls(SceneProducer& run, const nlohmann::json& wanted); // the run's controls with `wanted` over them
  SoakRandom random_;

private:
  std::unique_ptr<SceneProducer> replay_;
  bool exact_;
  double tolerance_;
  std::uint64_t checkpoints_ = 0, failed_ = 0;
  double worst_ = 0;
};

} // namespace graphsim::app
