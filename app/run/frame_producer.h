// Who fills the renderer's body buffer of frame k: the CPU backend writing the mapped slot, or the CUDA frame graph
// writing the exported slot and signalling simDone. The frame loop only sees this interface.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>

#include "app/cli/run_options.h"
#include "compute/sim_backend.h"
#include "render/particle_renderer.h"

namespace graphsim::app {

class FrameProducer {
public:
  virtual ~FrameProducer() = default;

  virtual SimBackend& backend() = 0;
  // After renderer.waitForSlot(k): fills slot k % F (advance: simulate a frame first). Returns the simDone value the
  // render of frame k must wait for on the GPU, if any.
  virtual std::optional<std::uint64_t> produce(std::uint64_t k, bool advance) = 0;
  virtual double simMs() const = 0;        // last frame: CPU wall time of the step / CUDA graph GPU time; < 0 unknown
  virtual double updateHostUs() const = 0; // host time of the last frame's node updates
  virtual bool hasGraph() const = 0;
  virtual void dumpGraph(const std::filesystem::path& path) const = 0;
  virtual void finish() = 0; // waits (bounded) for everything produced
};

// The renderer must be in HostVisible mode (CPU), or Exported (CUDA interop) or Staged (CUDA host copy) mode;
// cudaDevice: CUDA device index. makeCudaProducer throws InteropImportError when CUDA cannot import the renderer's
// exported handles (the caller may fall back to host copy, app/run/open_devices.h).
std::unique_ptr<FrameProducer> makeCpuProducer(const SceneConfig& config, render::ParticleRenderer& renderer);
std::unique_ptr<FrameProducer> makeCudaProducer(const SceneConfig& config, render::ParticleRenderer& renderer,
                                                int cudaDevice, std::chrono::milliseconds waitTimeout,
                                                const FaultPlan& inject);

} // namespace graphsim::app
