// The CPU reference of the nbody diagnostics (nbody_diagnostics.h) and the host side of a series of samples.
#include "compute/nbody/nbody_diagnostics.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "compute/long_work.h"
#include "compute/nbody/nbody.h"
#include "compute/number_text.h"

namespace graphsim {
namespace {

using diagnostics_math::DVec3;

// Bodies whose potential sums one iteration of the pair loop computes together: the lane loop has a fixed trip count,
// so it vectorises (2 doubles per SSE2 register) while each lane still sums j in ascending order.
constexpr std::size_t kLanes = 8;

struct SoA {
  std::vector<double> x, y, z, m;
};

// psi[i0 + k] = sum_{j > i0 + k} m_j / sqrt(|x_j - x_i|^2 + eps^2), j ascending, for the kLanes bodies from i0 (the
// padding lanes past n are computed and dropped): each pair once. The first kLanes values of j hold the block's own
// bodies and take the masked loop; the rest need no test.
void potentialBlock(const SoA& p, std::size_t n, std::size_t i0, double eps2, double* psi) {
  double xi[kLanes], yi[kLanes], zi[kLanes], sum[kLanes] = {};
  for (std::size_t k = 0; k < kLanes; ++k) {
    xi[k] = p.x[i0 + k];
    yi[k] = p.y[i0 + k];
    zi[k] = p.z[i0 + k];
  }
  const std::size_t own = std::min(n, i0 + kLanes);
  for (std::size_t j = i0; j < own; ++j) {
    const double xj = p.x[j], yj = p.y[j], zj = p.z[j], mj = p.m[j];
    for (std::size_t k = 0; k < kLanes; ++k) {
      const double w = mj * diagnostics_math::inverseDistance(xj - xi[k], yj - yi[k], zj - zi[k], eps2);
      sum[k] += j > i0 + k ? w : 0.0; // a select, not a branch: pairs j <= i add an exact 0
    }
  }
  for (std::size_t j = own; j < n; ++j) {
    const double xj = p.x[j], yj = p.y[j], zj = p.z[j], mj = p.m[j];
    for (std::size_t k = 0; k < kLanes; ++k) {
      sum[k] += mj * diagnostics_math::inverseDistance(xj - xi[k], yj - yi[k], zj - zi[k], eps2);
    }
  }
  for (std::size_t k = 0; k < kLanes && i0 + k < n; ++k) psi[i0 + k] = sum[k];
}

} // namespace

DiagnosticSums computeDiagnostics(const BodyState& state, const std::vector<Float4>& accel, const NBodyParams& params) {
  const std::size_t n = state.size();
  if (state.vel.size() != n || (!accel.empty() && accel.size() != n)) {
    throw std::invalid_argument("computeDiagnostics: " + std::to_string(n) + " positions, " +
                                std::to_string(state.vel.size()) + " velocities, " + std::to_string(accel.size()) +
                                " accelerations");
  }
  const std::size_t padded = (n + kLanes - 1) / kLanes * kLanes;
  SoA p{std::vector<double>(padded), std::vector<double>(padded), std::vector<double>(padded),
        std::vector<double>(padded)}; // padding: massless bodies at the origin
  for (std::size_t i = 0; i < n; ++i) {
    p.x[i] = state.posMass[i].x;
    p.y[i] = state.posMass[i].y;
    p.z[i] = state.posMass[i].z;
    p.m[i] = state.posMass[i].w;
  }
  const double eps2 = double(params.softening) * double(params.softening);
  std::vector<double> psi(n);
  const auto blocks = static_cast<std::int64_t>(padded / kLanes);
  // In chunks of ~50 ms (the double loop is ~4x slower per pair than the float forces stage, a block of the first rows
  // holds up to n pairs a lane) with an interrupt checkpoint between them, as the forces stage does: at large N a
  // sample takes seconds. Block b holds n - 8b pairs a lane, so the threads take blocks round-robin (static, 1).
  // Neither changes a sum.
  LongWork work;
  const auto chunk = static_cast<std::int64_t>(
      std::max<std::uint64_t>(1, kInteractionsPerCheckpoint / 4 / (std::max<std::size_t>(n, 1) * kLanes)));
  for (std::int64_t begin = 0; begin < blocks; begin += chunk) {
    const std::int64_t end = std::min(blocks, begin + chunk);
#pragma omp parallel for schedule(static, 1)
    for (std::int64_t b = begin; b < end; ++b) {
      potentialBlock(p, n, static_cast<std::size_t>(b) * kLanes, eps2, psi.data());
    }
    if (end < blocks) work.checkpoint(static_cast<double>(end) / static_cast<double>(blocks));
  }

  DiagnosticSums sums{};
  const double halfDt = accel.empty() ? 0.0 : 0.5 * double(params.dt);
  for (std::size_t i = 0; i < n; ++i) {
    const Float4& x = state.posMass[i];
    const Float4& v = state.vel[i];
    const Float4 a = accel.empty() ? Float4{} : accel[i];
    const DVec3 vSync = diagnostics_math::synchronisedVelocity({v.x, v.y, v.z}, {a.x, a.y, a.z}, halfDt);
    diagnostics_math::addKinematics(sums, x.w, {x.x, x.y, x.z}, vSync);
    diagnostics_math::addPairPotential(sums, x.w, psi[i], double(params.G));
  }
  return sums;
}

double magnitude(const double (&v)[3]) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

DiagnosticsDrift relativeDrift(const DiagnosticSums& first, const DiagnosticSums& now) {
  const auto change = [](const double(&a)[3], const double(&b)[3]) {
    const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    return magnitude(d);
  };
  DiagnosticsDrift d;
  d.energy = first.total() != 0 ? now.total() / first.total() - 1.0 : 0.0;
  d.momentum = first.momentumScale > 0 ? change(first.momentum, now.momentum) / first.momentumScale : 0.0;
  d.angularMomentum = first.angularMomentumScale > 0
                          ? change(first.angularMomentum, now.angularMomentum) / first.angularMomentumScale
                          : 0.0;
  return d;
}

bool DiagnosticsTrack::update(const std::optional<DiagnosticsSample>& latest) {
  bool restarted = false;
  return add(latest, restarted);
}

DiagnosticsDrift DiagnosticsTrack::drift() const {
  if (!first() || !last()) return {};
  return relativeDrift(first()->sums, last()->sums);
}

std::optional<DiagnosticsDrift> DiagnosticsTrack::driftPer1000Frames() const {
  if (!first() || !last() || last()->frame <= first()->frame) return std::nullopt;
  const double scale = 1000.0 / static_cast<double>(last()->frame - first()->frame);
  const DiagnosticsDrift d = drift();
  return DiagnosticsDrift{d.energy * scale, d.momentum * scale, d.angularMomentum * scale};
}

std::string DiagnosticsTrack::summary() const {
  if (!first() || !last()) return {};
  const DiagnosticSums& a = first()->sums;
  const DiagnosticSums& b = last()->sums;
  const DiagnosticsDrift d = drift();
  const std::optional<DiagnosticsDrift> per1000 = driftPer1000Frames();
  const auto per = [&](double DiagnosticsDrift::*field) {
    return per1000 ? ", " + scientificText((*per1000).*field) + " per 1000 frames" : std::string();
  };
  return "diagnostics: " + describeSpan() + ": E " + generalText(a.total(), 7) + " -> " + generalText(b.total(), 7) +
         " (drift " + scientificText(d.energy) + per(&DiagnosticsDrift::energy) + "); |P| " +
         scientificText(magnitude(a.momentum)) + " -> " + scientificText(magnitude(b.momentum)) + " (drift " +
         scientificText(d.momentum) + " of sum m|v|" + per(&DiagnosticsDrift::momentum) + "); |L| " +
         generalText(magnitude(a.angularMomentum), 7) + " -> " + generalText(magnitude(b.angularMomentum), 7) +
         " (drift " + scientificText(d.angularMomentum) + " of sum m|x x v|" + per(&DiagnosticsDrift::angularMomentum) +
         ")";
}

} // namespace graphsim
