#include "app/run/nbody_engine.h"

#include "app/faults/fault_injection.h"

namespace graphsim::app {

SceneNotice NBodyRules::notice(const NBodyBlowUp& b) {
  return SceneNotice{"the simulation blew up in frame " + std::to_string(b.frame + 1) + ", stage " +
                         stageInstanceName(b.stage, b.substep) + ": " + b.what +
                         " (softening too small for dt, or dt too large for the closest encounters)",
                     "Paused. R resets the scene; lower dt or raise the softening."};
}

std::unique_ptr<NBodyCudaEngine> makeNBodyCudaEngine(const NBodyConfig& config, render::ParticleRenderer* renderer,
                                                     const std::vector<int>& gpus,
                                                     std::chrono::milliseconds waitTimeout, const FaultPlan& inject,
                                                     const ProcessRank* rank) {
  const std::optional<InteropDesc> interop = interopFor(feedPath(true, renderer), renderer, inject);
  const InteropDesc* shared = interop ? &*interop : nullptr;
  auto engine = rank != nullptr ? std::make_unique<NBodyCudaEngine>(config, gpus.front(), *rank, shared, waitTimeout)
                                : std::make_unique<NBodyCudaEngine>(config, gpus, shared, waitTimeout);
  armKernelFailure(inject, engine->backend()); // test hook: kernel-fail
  return engine;
}

} // namespace graphsim::app
