// The producers `graphsim bench` drives (app/frame/frame_driver.h), on the product's hand-off: the CPU step, and the
// CUDA paths it compares — the product graph and its launch-mode twins with interop, the host-copy path, and the
// compute-only graph of --sim-only. Each also says what its last frame cost the host, split as the report prints it.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "app/bench/bench_report.h"
#include "app/frame/frame_driver.h"
#include "app/scenes/scene.h"
#include "app/scenes/scene_engine.h"
#include "compute/nbody/nbody_backend.h"
#include "compute/nbody/nbody_cuda_instruments.h"

namespace graphsim::app {

// Host time of the last produce(), microseconds, and (CPU) the step's wall time.
struct ProducerTimes {
  double nodeUpdatesUs = 0;     // semaphore values + changed kernel nodes, or the launch mode's set-up
  double launchUs = 0;          // cudaGraphLaunch, or the stream's launches
  double waitUs = 0;            // host copy: waiting for the frame and copying it out of CUDA (not overhead)
  double workUs = 0;            // CPU: the step and the write of the render buffer (the frame's work, not overhead)
  std::optional<double> stepMs; // CPU: the simulation step itself (the frame's work, not host overhead)
};

// What bench drives, for any scene: the product's hand-off (FrameFeed, app/scenes/scene_engine.h) over the scene's
// engine on the renderer's path (HostVisible: the CPU writes; Exported: interop; Staged: host copy; none: simulation
// only), timed. A scene's bench producer (app/scenes/<scene>/) adds its readings and its render mapping.
class BenchProducer : public FrameProducer {
public:
  BenchProducer(SceneEngine& engine, render::ParticleRenderer* renderer) : feed_(engine, renderer) {}

  std::optional<std::uint64_t> produce(std::uint64_t k) override;
  bool gpuOrdered() const override { return feed_.gpuOrdered(); }
  void waitProduced(std::uint64_t k) override { feed_.waitProduced(k); }
  void finish() override {
    feed_.finish();
    observe(); // the last frames' readings, now complete
  }
  ProducerTimes lastTimes() const { return times_; }
  UpdateCounters counters() const { return feed_.engine().counters(); }
  std::int64_t count() const { return feed_.engine().count(); } // elements drawn

  virtual std::optional<double> simGpuMs(std::uint64_t k) const = 0; // frame k's GPU time if known now; never waits
  virtual void styleFrame(render::FrameSubmit& submit) const = 0;    // point radius, palette, box
  // The JSON sidecar of a captured frame (bench_capture.h): index, simulated time, scene, parameters, nodes.
  virtual nlohmann::ordered_json captureSidecar(std::uint64_t frame, bool warmup, const std::string& variant) const = 0;
  // The live diagnostics over the run (issue 15), read after finish(); none: the scene has none, or no sample.
  virtual std::optional<DiagnosticsFigures> diagnostics() const { return std::nullopt; }

protected:
  // After each produce() and after finish(): a few loads of pinned memory on CUDA (diagnostics, substeps).
  virtual void observe() {}
  // A CUDA frame's host time: node updates (default: the engine's), launch, wait.
  virtual void splitLaunch(ProducerTimes& times) const {
    times.nodeUpdatesUs = std::max(0.0, feed_.engine().updateHostUs());
  }
  const FrameFeed& feed() const { return feed_; }

private:
  FrameFeed feed_;
  ProducerTimes times_;
};

// The n-body scene's producers, on the renderer's path (feedPath). CUDA: with launch mode `mode`.
std::unique_ptr<BenchProducer> makeBenchCudaProducer(const SceneSettings& settings, const std::vector<int>& gpus,
                                                     LaunchMode mode, render::ParticleRenderer* renderer,
                                                     std::chrono::milliseconds waitTimeout);
std::unique_ptr<BenchProducer> makeBenchCpuProducer(const SceneSettings& settings, render::ParticleRenderer* renderer);

} // namespace graphsim::app
