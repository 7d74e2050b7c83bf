// Seeded, deterministic initial conditions, generated on the host and shared by both backends.
#pragma once

#include "compute/nbody/nbody.h"
#include "compute/nbody/nbody_diagnostics.h"

namespace graphsim {

// The names NBodyConfig::initial accepts, default first (for CLI help and config validation).
inline constexpr std::array<std::string_view, 3> kInitialConditionNames = {"galaxy-pair", "plummer", "two-body"};

// Fills a state of config.bodies bodies for config.initial from config.seed. Velocities are returned at t = 0;
// call startLeapfrog() to turn them into the half-step velocities the integrate stage expects.
// Throws std::invalid_argument for an unknown initial-condition name or a body count it cannot build.
BodyState makeInitialConditions(const NBodyConfig& config);

// v(-dt/2) = v(0) - a(0) dt/2, with a(0) from direct summation in double precision, so that the kick-drift
// integrate stage is the second-order leapfrog from the first step.
void startLeapfrog(BodyState& state, const NBodyParams& params);
// The same, also handing back a(0) rounded to float (the accel array's value before the first forces stage runs).
void startLeapfrog(BodyState& state, const NBodyParams& params, std::vector<Float4>& accel0);

// The diagnostics (compute/nbody/nbody_diagnostics.h: energy, momentum, angular momentum) of a state whose velocities
// are half-step velocities, for tests: velocities are re-synchronised to t with the accelerations at t from this file's
// double-precision direct sum (computeDiagnostics takes the forces stage's float ones instead).
using Diagnostics = DiagnosticSums;
Diagnostics measure(const BodyState& state, const NBodyParams& params);

} // namespace graphsim
