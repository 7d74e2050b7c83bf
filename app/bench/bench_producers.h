// The producers `graphsim bench` drives (app/frame/frame_driver.h): the product's own CPU producer, and one CUDA
// producer for every CUDA path it compares — the product graph and its launch-mode twins with interop, the
// host-copy path, and the compute-only graph of --sim-only. Each also says what its last frame cost the host, split
// as the report prints it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

#include <string>

#include <nlohmann/json.hpp>

#include "app/bench/bench_report.h"
#include "app/frame/frame_driver.h"
#include "app/scenes/scene.h"
#include "compute/nbody/nbody_backend.h"
#include "compute/nbody/nbody_cuda_backend.h"
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

// What bench drives, for any scene (a scene's bench makes its own producers; app/scenes/<scene>/).
class BenchProducer : public FrameProducer {
public:
  virtual ProducerTimes lastTimes() const = 0;
  virtual std::optional<double> simGpuMs(std::uint64_t k) const = 0; // frame k's GPU time if known now; never waits
  virtual UpdateCounters counters() const = 0;
  virtual std::int64_t count() const = 0;                         // elements drawn
  virtual void styleFrame(render::FrameSubmit& submit) const = 0; // point radius, palette, box
  // The JSON sidecar of a captured frame (bench_capture.h): index, simulated time, scene, parameters, nodes.
  virtual nlohmann::ordered_json captureSidecar(std::uint64_t frame, bool warmup, const std::string& variant) const = 0;
  // The live diagnostics over the run (issue 15), read after finish(); none: the scene has none, or no sample.
  virtual std::optional<DiagnosticsFigures> diagnostics() const { return std::nullopt; }
};

enum class CudaPath {
  Interop,     // the renderer's Exported buffers and semaphores (graph, event-submit, stream, whole-update, ...)
  HostCopy,    // Staged buffers filled from host memory
  ComputeOnly, // no renderer (--sim-only)
};

// The n-body scene's producers. renderer: Exported mode (Interop), Staged (HostCopy), nullptr (ComputeOnly).
std::unique_ptr<BenchProducer> makeBenchCudaProducer(const SceneSettings& settings, const std::vector<int>& gpus,
                                                     CudaPath path, LaunchMode mode, render::ParticleRenderer* renderer,
                                                     std::chrono::milliseconds waitTimeout);
// renderer: HostVisible mode, or nullptr (--sim-only).
std::unique_ptr<BenchProducer> makeBenchCpuProducer(const SceneSettings& settings, render::ParticleRenderer* renderer);

} // namespace graphsim::app
