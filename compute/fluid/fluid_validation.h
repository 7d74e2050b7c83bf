// The fluid against experiment (issue 28): the collapse of a square water column, Martin & Moyce 1952 ("Part IV. An
// experimental study of the collapse of liquid columns on a rigid horizontal plane", Phil. Trans. R. Soc. Lond. A
// 244, 312-324), whose surge front the `column` initial condition (a x 2a x a against the wall at x = 0) reproduces.
// docs/FLUID.md gives the comparison.
#pragma once

#include <span>
#include <vector>

#include "compute/fluid/fluid_backend.h"
#include "compute/fluid/fluid_cpu.h"

namespace graphsim::fluid {

// The surge front of Martin & Moyce's Fig. 3, column of a = 2.25 in with n^2 = 2 (height 2a): Z = z / a, z the front's
// distance from the wall, against T = t n sqrt(g / a) = t sqrt(2 g / a). Values as digitised from the figure (the
// same points PySPH's dam-break examples compare with).
struct SurgePoint {
  double T, Z;
};
inline constexpr SurgePoint kMartinMoyce[] = {
    {0.832, 1.217}, {1.219, 1.474},  {1.997, 2.292},  {2.547, 2.995},  {3.345, 4.134},
    {4.034, 4.944}, {4.418, 5.881},  {5.091, 6.980},  {5.685, 7.945},  {6.306, 8.966},
    {6.822, 9.986}, {7.439, 10.963}, {8.031, 11.977}, {8.633, 13.005}, {9.237, 13.970},
};

// The column in a channel: a = 0.1 m, a box 16 a long (the published front ends at 14 a), 2.5 a high and a deep;
// DFSPH, no obstacle, up to 200 steps a frame so that every frame covers its 1/60 s. assets/scenes/martin-moyce.json
// is the same set-up for `graphsim run`.
FluidConfig martinMoyceColumn(std::int64_t particles);

// The front: the x beyond which 0.1 % of the particles lie (at least one), so that a lone drop thrown ahead of the
// surge does not move it.
float surgeFront(const FluidState& state);

// A simulated front over time (one sample per frame), compared with each published point within its time span:
// the simulated Z at the point's T (linear between samples) and the error relative to the published Z.
struct SurgeSample {
  double time;
  float front;
};
struct SurgeComparison {
  double T, published, simulated, relativeError;
};
std::vector<SurgeComparison> compareWithMartinMoyce(std::span<const SurgeSample> history, double a, double g);

// Steps `backend` (set up with martinMoyceColumn) frame by frame past the last published point and compares; throws
// std::runtime_error when 1,000 frames do not get there (frames that stop covering their time).
std::vector<SurgeComparison> runMartinMoyce(FluidBackend& backend);

// Prints the comparison as a table (one row per point) and returns the largest relative error (0 with no row).
double printSurgeComparison(std::span<const SurgeComparison> rows);

} // namespace graphsim::fluid
