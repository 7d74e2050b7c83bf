// The product's producers of frame k: the CPU backend writing the mapped slot, or the CUDA frame graph writing the
// exported slot and signalling simDone (interop), or copied through the host into the staging slot (host copy).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

#include "app/frame/frame_driver.h"
#include "app/run/run_options.h"
#include "compute/nbody/nbody_backend.h"
#include "render/particle_renderer.h"

namespace graphsim::app {

// The product's producers (app/frame/frame_driver.h): the session also edits the simulation through backend(),
// and shows what it costs.
class SimProducer : public FrameProducer {
public:
  virtual NBodyBackend& backend() = 0;
  // Whether the next produce() simulates a frame (false while paused: the CPU skips its step; CUDA runs the frame
  // with dt = 0, see SimController, so that every frame k keeps its graph launch and simDone = k + 1).
  void setAdvance(bool advance) { advance_ = advance; }
  bool advances() const { return advance_; }
  virtual double simMs() const = 0;        // last frame: CPU wall time of the step / CUDA graph GPU time; < 0 unknown
  virtual double updateHostUs() const = 0; // host time of the last frame's node updates
  virtual bool hasGraph() const = 0;
  virtual void dumpGraph(const std::filesystem::path& path) const = 0;

protected:
  bool advance_ = true;
};

// The renderer must be in HostVisible mode (CPU), or Exported (CUDA interop) or Staged (CUDA host copy) mode;
// gpus: CUDA device indices, gpus[0] the renderer's (several: docs/MULTI-GPU.md). makeCudaProducer throws
// InteropImportError when CUDA cannot import the renderer's exported handles (the caller may fall back to host copy,
// app/run/open_devices.h). renderer == nullptr (CPU only): the simulation alone, nothing written (bench --sim-only).
// The fault plan's CUDA faults (kernel-fail, cuda-semaphore-stall, import-fail) are armed by makeCudaProducer; on the
// CPU they are a UsageError. Writes a graph dump made by `dump` (which writes a file itself, e.g.
// cudaGraphDebugDotPrint) to `path` through the output writer: `dump` writes a private temporary, whose bytes then
// reach `path` atomically (OutputError on failure).
void dumpThroughWriter(const std::function<void(const std::filesystem::path&)>& dump,
                       const std::filesystem::path& path);

std::unique_ptr<SimProducer> makeCpuProducer(const NBodyConfig& config, render::ParticleRenderer* renderer,
                                             const FaultPlan& inject = {});
std::unique_ptr<SimProducer> makeCudaProducer(const NBodyConfig& config, render::ParticleRenderer& renderer,
                                              const std::vector<int>& gpus, std::chrono::milliseconds waitTimeout,
                                              const FaultPlan& inject);

} // namespace graphsim::app
