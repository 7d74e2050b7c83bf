// The fluid scene's soak and bench (fluid_soak.cpp, fluid_bench.cpp), called by FluidScene (fluid_scene.cpp).
#pragma once

#include <memory>

#include "app/scenes/scene.h"

namespace graphsim::app {

std::unique_ptr<SceneSoak> makeFluidSoak(const SceneSettings& settings, const SoakOptions& options,
                                         std::int64_t maxCount);
void runFluidBench(const BenchOptions& options, BenchReport& report);

} // namespace graphsim::app
