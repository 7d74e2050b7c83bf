// The fluid scene (issue 13): weakly compressible SPH in a box with a sphere obstacle (docs/FLUID.md), behind the
// Scene interface. Its preset is assets/scenes/fluid.json (a dam break of 65,536 particles); docs/SCENES.md lists
// its scene-file keys.
#pragma once

#include "app/scenes/scene.h"
#include "compute/fluid/fluid_backend.h"

namespace graphsim::app {

class FluidController;

const Scene& fluidScene();

// The fluid scene's configuration inside SceneSettings::config (std::bad_any_cast for another scene's settings).
fluid::FluidConfig& fluidConfig(SceneSettings& settings);
const fluid::FluidConfig& fluidConfig(const SceneSettings& settings);

// The fluid parts of a running fluid scene, for tests and tools that need them (nullptr for another scene).
FluidController* fluidController(SceneProducer& producer);
fluid::FluidBackend* fluidBackend(SceneProducer& producer);

// Estimated bytes per particle: host memory of the CPU path (state, workspace, render buffers), and GPU memory of
// the CUDA backend (state, sorted copies, sort buffers, cell table share) for the device-memory check.
double fluidHostBytesPerParticle(std::uint32_t framesInFlight);
double fluidGpuBytesPerParticle(std::uint32_t framesInFlight);

// Its soak and bench (fluid_soak.cpp, fluid_bench.cpp), the Scene's capabilities.
std::unique_ptr<SceneSoak> makeFluidSoak(const SceneSettings& settings, const SoakOptions& options,
                                         std::int64_t maxCount);
void runFluidBench(const BenchOptions& options, BenchReport& report);

} // namespace graphsim::app
