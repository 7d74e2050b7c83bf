#include "app/scenes/fluid/fluid_soak_bulk.h"

#include <algorithm>
#include <cmath>

namespace graphsim::app {

FluidBulk bulkOf(const fluid::FluidState& s) {
  FluidBulk b;
  for (const Float4& p : s.pos) b.centre[0] += p.x, b.centre[1] += p.y, b.centre[2] += p.z;
  double squares = 0;
  for (const Float4& v : s.vel) {
    const double v2 = double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z;
    squares += v2;
    b.maxSpeed = std::max(b.maxSpeed, std::sqrt(v2));
  }
  const double n = std::max<double>(1.0, static_cast<double>(s.size()));
  for (double& x : b.centre) x /= n;
  b.rmsSpeed = std::sqrt(squares / n);
  return b;
}

FluidBulkComparison compareBulk(const FluidBulk& run, const FluidBulk& replay, double h, double travelled,
                                double interval) {
  FluidBulkComparison c;
  for (int i = 0; i < 3; ++i) c.centre = std::max(c.centre, std::fabs(run.centre[i] - replay.centre[i]) / h);
  c.centreAllowed = kCentreTolerance + kCentreShareOfTravel * travelled / h;
  c.runRms = run.rmsSpeed, c.replayRms = replay.rmsSpeed;
  c.rmsSpeed = std::fabs(run.rmsSpeed - replay.rmsSpeed);
  c.rmsSpeedAllowed = kRmsSpeedShare * replay.rmsSpeed + kCentreTolerance * h / std::max(interval, 1e-6);
  c.maxSpeedShare = std::fabs(run.maxSpeed - replay.maxSpeed) / std::max(replay.maxSpeed, 1e-3);
  return c;
}

} // namespace graphsim::app
