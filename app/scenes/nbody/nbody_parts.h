// The n-body scene's soak and bench (nbody_soak.cpp, nbody_bench.cpp), called by NBodyScene (nbody_scene.cpp).
#pragma once

#include <memory>

#include "app/scenes/scene.h"

namespace graphsim::app {

std::unique_ptr<SceneSoak> makeNBodySoak(const SceneSettings& settings, const SoakOptions& options,
                                         std::int64_t maxCount);
void runNBodyBench(const BenchOptions& options, BenchReport& report);

} // namespace graphsim::app
