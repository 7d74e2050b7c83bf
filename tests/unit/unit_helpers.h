// Small builders shared by the unit tests: scene configs with only the stages a test is about, and hand-made states.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "compute/nbody/nbody.h"

namespace graphsim::test {

// A config that runs only forces and integrate, so that a test sees pure gravity unless it turns a stage on.
inline NBodyConfig gravityOnly(const std::string& initial, std::int64_t bodies, std::uint64_t seed = 1) {
  NBodyConfig config;
  config.initial = initial;
  config.bodies = bodies;
  config.seed = seed;
  config.enabled = {};
  config.enabled[static_cast<int>(NBodyStage::Forces)] = true;
  config.enabled[static_cast<int>(NBodyStage::Integrate)] = true;
  config.enabled[static_cast<int>(NBodyStage::WriteRender)] = true;
  return config;
}

inline void enable(NBodyConfig& config, NBodyStage stage, bool on = true) {
  config.enabled[static_cast<int>(stage)] = on;
}

inline float length(const Float4& v) { return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z); }

// Kinetic energy of the stored (half-step) velocities: enough to see a stage add or remove energy.
inline double storedKinetic(const BodyState& state) {
  double e = 0;
  for (std::size_t i = 0; i < state.size(); ++i) {
    const double v = length(state.vel[i]);
    e += 0.5 * state.posMass[i].w * v * v;
  }
  return e;
}

} // namespace graphsim::test
