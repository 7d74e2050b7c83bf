// The n-body scene (issues 1-12) behind the Scene interface: its CPU and CUDA engines (app/run/nbody_engine),
// the NBodyController of live edits, the panel's Parameters section, the soak's changes and replay, and the bench
// variants. Everything n-body-specific the app does lives in this folder or in what it wraps.
#pragma once

#include "app/scenes/scene.h"

namespace graphsim::app {

class NBodyController;

const Scene& nbodyScene();

// The n-body parts of a running n-body scene, for tests and tools that need them (nullptr for another scene).
NBodyController* nbodyController(SceneProducer& producer);
NBodyBackend* nbodyBackend(SceneProducer& producer);
// The panel's capacity line under the bodies slider (issue 14): "bodies 16384 / capacity 65536 (changes within: node
// updates)"; graph: the backend has a CUDA graph (the CPU backend's line ends after the capacity).
std::string nbodyCapacityLine(std::int64_t bodies, std::int64_t capacity, bool graph);

// Its soak and bench (nbody_soak.cpp, nbody_bench.cpp), the Scene's capabilities.
std::unique_ptr<SceneSoak> makeNBodySoak(const SceneSettings& settings, const SoakOptions& options,
                                         std::int64_t maxCount);
void runNBodyBench(const BenchOptions& options, BenchReport& report);

} // namespace graphsim::app
