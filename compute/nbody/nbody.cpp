// Stage names and scene-config checks of the nbody scene, shared by the CPU and CUDA backends and the app, so that a
// name typed in a preset, shown in the panel or used in a test resolves the same way everywhere.
#include "compute/nbody/nbody.h"
#include "compute/nbody/nbody_diagnostics.h"

#include <stdexcept>

namespace graphsim {

std::string stageInstanceName(NBodyStage s, int substep) {
  std::string name(stageName(s));
  if (substep > 0) name += "#" + std::to_string(substep);
  return name;
}

void validateSceneConfig(const NBodyConfig& config) {
  if (config.scene != "nbody") {
    throw std::invalid_argument("scene: unknown scene '" + config.scene + "' (allowed: nbody)");
  }
  if (config.bodies < 0 || config.bodies > kMaxBodies) {
    throw std::invalid_argument("bodies: " + std::to_string(config.bodies) + " is out of range (allowed: 0 to " +
                                std::to_string(kMaxBodies) + ")");
  }
  if (config.maxBodies < 0 || config.maxBodies > kMaxBodies) {
    throw std::invalid_argument("max_bodies: " + std::to_string(config.maxBodies) + " is out of range (allowed: 0 to " +
                                std::to_string(kMaxBodies) + ")");
  }
  if (config.substeps < 1 || config.substeps > kMaxSubsteps) {
    throw std::invalid_argument("substeps: " + std::to_string(config.substeps) + " is out of range (allowed: 1 to " +
                                std::to_string(kMaxSubsteps) + ")");
  }
  if (config.diagnosticsEvery < 0 || config.diagnosticsEvery > kMaxDiagnosticsEvery) {
    throw std::invalid_argument("diagnostics_every: " + std::to_string(config.diagnosticsEvery) +
                                " is out of range (allowed: 0 to " + std::to_string(kMaxDiagnosticsEvery) + ")");
  }
  for (const NBodyStageInfo& row : kNBodyStages) {
    if (row.togglable() || config.enabled[static_cast<std::size_t>(row.stage)]) continue;
    throw std::invalid_argument(std::string(row.name) + " cannot be disabled: " + std::string(row.whyNotTogglable));
  }
}

} // namespace graphsim
