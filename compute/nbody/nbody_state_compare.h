// How far one body state is from another: the soak's checkpoints (app/reliability) and the GPU tests judge the CUDA
// backend against the CPU reference with it. Positions only, in double; a NaN distance counts as +inf, so a blown-up
// body fails every tolerance instead of slipping past the comparisons.
#pragma once

#include <cstddef>

#include "compute/nbody/nbody.h"

namespace graphsim {

struct StateDifference {
  double maxAbs = 0;     // max over bodies of |x_a - x_b| (Euclidean)
  double p99 = 0;        // 99th percentile of the same
  double rms = 0;        // root mean square of the same
  double scale = 0;      // RMS distance of the bodies of `a` from their mean position
  std::size_t worst = 0; // the first body at maxAbs
  bool sameSize = true;
  bool bitIdentical = true; // same size, and x, y, z, mass and velocities equal as floats (a NaN never is)
};

// Over the first min(a.size(), b.size()) bodies; all zero when either is empty.
StateDifference compareStates(const BodyState& a, const BodyState& b);

} // namespace graphsim
