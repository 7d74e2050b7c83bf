// The n-body scene's engines (app/scenes/scene_engine.h): the CPU reference or the CUDA frame graph as a
// SceneEngine, for the product producer (app/scenes/nbody) and bench's producers (app/bench).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "app/scenes/scene_engine.h"
#include "compute/nbody/nbody_cpu_backend.h"
#include "compute/nbody/nbody_cuda_backend.h"

namespace graphsim::app {

// What BackendEngine needs of the n-body scene: its count and the notice of a blow-up.
struct NBodyRules {
  static std::int64_t count(const NBodyConfig& config) { return config.bodies; }
  static SceneNotice notice(const NBodyBlowUp& b);
};
using NBodyCpuEngine = BackendEngine<NBodyCpuBackend, NBodyRules>;
using NBodyCudaEngine = BackendEngine<NBodyCudaBackend, NBodyRules>;

// CUDA on `gpus` (gpus[0] the renderer's; several: docs/MULTI-GPU.md) on the renderer's path (feedPath): throws
// InteropImportError when CUDA cannot import the renderer's exported handles (the caller may fall back to host copy,
// app/run/open_devices.h). The fault plan's CUDA faults (kernel-fail, import-fail) are armed here; its
// cuda-semaphore-stall is the feed's. rank: rank 0 of a job of one process per GPU, on gpus[0] (docs/MULTI-GPU.md,
// "Roles"); nullptr: every GPU in this process.
std::unique_ptr<NBodyCudaEngine> makeNBodyCudaEngine(const NBodyConfig& config, render::ParticleRenderer* renderer,
                                                     const std::vector<int>& gpus,
                                                     std::chrono::milliseconds waitTimeout, const FaultPlan& inject,
                                                     const ProcessRank* rank = nullptr);

} // namespace graphsim::app
