// The running fluid scene (SceneProducer): a FluidBackend (CPU reference or CUDA graph) filling the render buffer,
// the FluidController of live edits, the fluid panel section and the render mapping (fluid palette, the box,
// particles drawn at their physical radius).
#pragma once

#include <memory>

#include "app/scenes/fluid/fluid_controller.h"
#include "app/scenes/scene.h"
#include "compute/fluid/fluid_cuda_backend.h"

namespace graphsim::app {

// The backend-specific half of a fluid producer: how frame k's render buffer is filled.
class FluidEngine {
public:
  virtual ~FluidEngine() = default;
  virtual fluid::FluidBackend& backend() = 0;
  // The CUDA backend's own instruments (sort timing, options) for bench; nullptr on the CPU.
  virtual fluid::FluidCudaBackend* cudaBackend() { return nullptr; }
  // advance: whether the frame simulates (the CPU skips its step when not; CUDA runs it with frameDt 0).
  virtual std::optional<std::uint64_t> produce(std::uint64_t k, bool advance) = 0;
  virtual void waitProduced(std::uint64_t k) = 0;
  virtual void finish() = 0;
  virtual double simMs() const = 0;
  virtual double updateHostUs() const = 0;
  virtual bool hasGraph() const = 0;
  virtual void dumpGraph(const std::filesystem::path& path) const = 0;
  // --inject non-finite: one particle's velocity becomes NaN before the next frame (false: not on this backend).
  virtual bool injectNonFinite() = 0;
};

// CPU: the reference backend writing the mapped slot (renderer nullptr: simulation only).
std::unique_ptr<FluidEngine> makeFluidCpuEngine(const fluid::FluidConfig& config, render::ParticleRenderer* renderer);
// CUDA: interop (the renderer's Exported buffers), host copy (Staged) or compute only (renderer nullptr).
std::unique_ptr<FluidEngine> makeFluidCudaEngine(const fluid::FluidConfig& config, render::ParticleRenderer* renderer,
                                                 int device, fluid::FluidCudaOptions options, const FaultPlan& inject);

// capacity: the render buffers' size (the particle-count control's bound).
std::unique_ptr<SceneProducer> makeFluidProducer(std::unique_ptr<FluidEngine> engine, const SceneSettings& settings,
                                                 std::int64_t capacity, const FaultPlan& inject);

// The render mapping, shared with bench: fluid palette, the box, the physical radius.
void styleFluidFrame(const fluid::FluidConfig& config, render::FrameSubmit& submit);
// "last frame 12 substeps, dt 1.39 ms" from the backend's (asynchronous) last frame; empty before the first.
std::string fluidFrameDetail(const fluid::FluidBackend& backend);

} // namespace graphsim::app
