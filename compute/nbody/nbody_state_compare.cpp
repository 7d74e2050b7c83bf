// compareStates (state_compare.h).
#include "compute/nbody/nbody_state_compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace graphsim {

StateDifference compareStates(const BodyState& a, const BodyState& b) {
  StateDifference d;
  d.sameSize = a.size() == b.size();
  d.bitIdentical = d.sameSize;
  const std::size_t n = std::min(a.size(), b.size());
  if (n == 0) return d;
  std::vector<double> err(n);
  double cx = 0, cy = 0, cz = 0, sum2 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Float4 p = a.posMass[i], q = b.posMass[i];
    const double dx = double(p.x) - q.x, dy = double(p.y) - q.y, dz = double(p.z) - q.z;
    const double e = std::sqrt(dx * dx + dy * dy + dz * dz);
    err[i] = std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
    sum2 += err[i] * err[i];
    if (err[i] > d.maxAbs) {
      d.maxAbs = err[i];
      d.worst = i;
    }
    if (!(p == q) || !(a.vel[i] == b.vel[i])) d.bitIdentical = false;
    cx += p.x;
    cy += p.y;
    cz += p.z;
  }
  cx /= double(n);
  cy /= double(n);
  cz /= double(n);
  double r2 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Float4 p = a.posMass[i];
    r2 += (p.x - cx) * (p.x - cx) + (p.y - cy) * (p.y - cy) + (p.z - cz) * (p.z - cz);
  }
  d.scale = std::sqrt(r2 / double(n));
  d.rms = std::sqrt(sum2 / double(n));
  std::sort(err.begin(), err.end());
  d.p99 = err[std::min(n - 1, n * 99 / 100)];
  return d;
}

} // namespace graphsim
