// The running fluid scene (SceneProducer): a FluidBackend (CPU reference or CUDA graph) as its engine,
// the FluidController of live edits, the fluid panel section and the render mapping (fluid palette, the box,
// particles drawn at their physical radius).
#pragma once

#include <memory>

#include "app/scenes/fluid/fluid_controller.h"
#include "app/scenes/scene.h"
#include "compute/fluid/fluid_cpu_backend.h"
#include "compute/fluid/fluid_cuda_backend.h"

namespace graphsim::app {

// What BackendEngine (app/scenes/scene_engine.h) needs of the fluid scene: its count and the notice of a blow-up.
struct FluidRules {
  static std::int64_t count(const fluid::FluidConfig& config) { return config.particles; }
  static SceneNotice notice(const fluid::FluidBlowUp& b);
};
using FluidCpuEngine = BackendEngine<fluid::FluidCpuBackend, FluidRules>;
using FluidCudaEngine = BackendEngine<fluid::FluidCudaBackend, FluidRules>;

// CUDA on the renderer's path (feedPath: interop, host copy, compute only); the fault plan's import-fail and
// kernel-fail are applied.
std::unique_ptr<FluidCudaEngine> makeFluidCudaEngine(const fluid::FluidConfig& config,
                                                     render::ParticleRenderer* renderer, int device,
                                                     fluid::FluidCudaOptions options, const FaultPlan& inject);

// capacity: the render buffers' size (the particle-count control's bound).
std::unique_ptr<SceneProducer> makeFluidProducer(const SceneSettings& settings, const ProducerRequest& request,
                                                 std::int64_t capacity);

// The render mapping, shared with bench: fluid palette, the box, the physical radius.
void styleFluidFrame(const fluid::FluidConfig& config, render::FrameSubmit& submit);

} // namespace graphsim::app
