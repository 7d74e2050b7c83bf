#include "compute/fluid/fluid_validation.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace graphsim::fluid {

FluidConfig martinMoyceColumn(std::int64_t particles) {
  FluidConfig c;
  c.initial = "column";
  c.particles = particles;
  c.solver = FluidSolver::Dfsph;
  FluidParams& p = c.params;
  p.boxSize[0] = 1.6f, p.boxSize[1] = 0.25f, p.boxSize[2] = 0.1f;
  p.obstacleRadius = 0.0f;
  p.obstacleCentre[0] = 1.0f, p.obstacleCentre[1] = 0.1f, p.obstacleCentre[2] = 0.05f;
  p.maxSubsteps = 200;
  c.enabled[static_cast<std::size_t>(FluidToggle::Obstacle)] = false;
  return c;
}

float surgeFront(const FluidState& state) {
  if (state.size() == 0) return 0.0f;
  std::vector<float> x(state.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = state.pos[i].x;
  const std::size_t ahead = std::max<std::size_t>(1, x.size() / 1000);
  const auto nth = x.end() - static_cast<std::ptrdiff_t>(ahead);
  std::nth_element(x.begin(), nth, x.end());
  return *nth;
}

std::vector<SurgeComparison> compareWithMartinMoyce(std::span<const SurgeSample> history, double a, double g) {
  std::vector<SurgeComparison> rows;
  const double toT = std::sqrt(2.0 * g / a);
  for (const SurgePoint& p : kMartinMoyce) {
    const double t = p.T / toT;
    const auto after = std::find_if(history.begin(), history.end(), [&](const SurgeSample& s) { return s.time >= t; });
    if (after == history.begin() || after == history.end()) continue; // outside the simulated span
    const SurgeSample& s0 = *(after - 1);
    const SurgeSample& s1 = *after;
    const double w = (t - s0.time) / (s1.time - s0.time);
    const double z = (static_cast<double>(s0.front) + w * static_cast<double>(s1.front - s0.front)) / a;
    rows.push_back({p.T, p.Z, z, (z - p.Z) / p.Z});
  }
  return rows;
}

std::vector<SurgeComparison> runMartinMoyce(FluidBackend& backend) {
  const FluidConfig& c = backend.config();
  const double a = c.params.boxSize[2], g = -c.params.gravity[1];
  const double end = kMartinMoyce[std::size(kMartinMoyce) - 1].T / std::sqrt(2.0 * g / a);
  FluidState state;
  backend.download(state);
  std::vector<SurgeSample> history{{0.0, surgeFront(state)}};
  while (history.back().time <= end) {
    if (history.size() > 1000) throw std::runtime_error("martin-moyce: 1,000 frames did not cover the published span");
    backend.step();
    backend.download(state);
    history.push_back({backend.lastFrame()->simTime, surgeFront(state)});
  }
  return compareWithMartinMoyce(history, a, g);
}

double printSurgeComparison(std::span<const SurgeComparison> rows) {
  double worst = 0;
  std::printf("Martin & Moyce 1952 (a = 2.25 in, n^2 = 2): surge front Z = z/a against T = t sqrt(2g/a)\n");
  std::printf("%8s %10s %10s %8s\n", "T", "Z (exp.)", "Z (sim.)", "error");
  for (const SurgeComparison& r : rows) {
    std::printf("%8.3f %10.3f %10.3f %+7.1f%%\n", r.T, r.published, r.simulated, 100.0 * r.relativeError);
    worst = std::max(worst, std::fabs(r.relativeError));
  }
  return worst;
}

} // namespace graphsim::fluid
