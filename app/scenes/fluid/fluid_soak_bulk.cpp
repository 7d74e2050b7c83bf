#include "app/scenes/fluid/fluid_soak_bulk.h"

#include <algorithm>
#include <cmath>

namespace graphsim::app {

Centre centreOf(const fluid::FluidState& s) {
  Centre c = {0, 0, 0};
  for (const Float4& p : s.pos) c[0] += p.x, c[1] += p.y, c[2] += p.z;
  for (double& x : c) x /= std::max<double>(1.0, static_cast<double>(s.size()));
  return c;
}

double distance(const Centre& a, const Centre& b) {
  return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

FluidBulk bulkOf(const fluid::FluidState& s) {
  FluidBulk b{centreOf(s), 0.0, 0.0};
  double squares = 0;
  for (const Float4& v : s.vel) {
    const double v2 = double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z;
    squares += v2;
    b.maxSpeed = std::max(b.maxSpeed, std::sqrt(v2));
  }
  b.rmsSpeed = std::sqrt(squares / std::max<double>(1.0, static_cast<double>(s.size())));
  return b;
}

FluidBulkComparison compareBulk(const FluidBulk& run, const FluidBulk& replay, double h, double travelled,
                                double interval) {
  FluidBulkComparison c;
  for (int i = 0; i < 3; ++i) c.centre = std::max(c.centre, std::fabs(run.centre[i] - replay.centre[i]) / h);
  c.centreAllowed = kCentreTolerance + kCentreShareOfTravel * travelled / h;
  c.rmsSpeed = std::fabs(run.rmsSpeed - replay.rmsSpeed);
  c.rmsSpeedAllowed = kRmsSpeedShare * replay.rmsSpeed + kCentreTolerance * h / std::max(interval, 1e-6);
  c.maxSpeedShare = std::fabs(run.maxSpeed - replay.maxSpeed) / std::max(replay.maxSpeed, 1e-3);
  return c;
}

} // namespace graphsim::app
