// The CUDA fluid soak's comparison of the run with its CPU replay over one checkpoint interval (fluid_soak.cpp,
// docs/RELIABILITY.md "Soak"): in bulk, since the two floors' float differences (FMA contraction, an iterative solve
// stopping one iteration apart) are amplified by the flow.
#pragma once

#include <array>

#include "compute/fluid/fluid_backend.h"

namespace graphsim::app {

using Centre = std::array<double, 3>; // centre of mass [m]
Centre centreOf(const fluid::FluidState& s);
double distance(const Centre& a, const Centre& b);

struct FluidBulk {
  Centre centre = {0, 0, 0};
  double rmsSpeed = 0; // sqrt(mean |v|^2) [m/s]: the kinetic energy, 1/2 M rmsSpeed^2
  double maxSpeed = 0; // [m/s]
};
FluidBulk bulkOf(const fluid::FluidState& s);

// Centre of mass: 0.05 h (h the smoothing length) plus 5 % of the path the replay's centre travelled in the interval.
// RMS speed: 5 % of the replay's plus 0.05 h per interval (a speed that moves the fluid less than the centre's
// fixed allowance). A change that reached one floor and not the other (gravity, the obstacle, a parameter) errs by a
// large share of the motion it should have caused; the chaos of a splash moves a few droplets, not the bulk. The
// largest speed is kept as a record only: one droplet decides it (27-38 % apart at a few checkpoints in 1,000).
inline constexpr double kCentreTolerance = 0.05, kCentreShareOfTravel = 0.05, kRmsSpeedShare = 0.05;

struct FluidBulkComparison {
  double centre = 0, centreAllowed = 0;     // [h]
  double rmsSpeed = 0, rmsSpeedAllowed = 0; // |run - replay| [m/s]
  double maxSpeedShare = 0;                 // |run - replay| / replay's largest speed
  bool passed() const { return centre <= centreAllowed && rmsSpeed <= rmsSpeedAllowed; }
};

// h [m]; travelled: the path of the replay's centre in the interval [m]; interval: its simulated time [s].
FluidBulkComparison compareBulk(const FluidBulk& run, const FluidBulk& replay, double h, double travelled,
                                double interval);

} // namespace graphsim::app
