// The CPU reference of the fluid diagnostics (fluid_diagnostics.h) and the host side of a series of samples.
#include "compute/fluid/fluid_diagnostics.h"

#include <algorithm>
#include <stdexcept>

#include "compute/fluid/fluid_cpu.h"
#include "compute/fluid/fluid_params.h"
#include "compute/number_text.h"

namespace graphsim::fluid {
namespace {

std::string percent(double v) { return generalText(100.0 * v, 3) + " %"; }

} // namespace

FluidDiagnosticSums computeFluidDiagnostics(const Float4* pos, const Float4* vel, const float* density, std::size_t n,
                                            float restDensity, float particleMass) {
  fluid_diagnostics_math::Extremes e{};
  for (std::size_t i = 0; i < n; ++i) {
    const Float4& x = pos[i];
    const Float4& v = vel[i];
    fluid_diagnostics_math::add(
        e, fluid_diagnostics_math::particleTerms(x.x, x.y, x.z, v.x, v.y, v.z, density[i], restDensity));
  }
  return fluid_diagnostics_math::finish(e, particleMass);
}

FluidDiagnosticSums computeFluidDiagnostics(const FluidState& state, const FluidParams& params) {
  const std::size_t n = state.size();
  if (state.vel.size() != n || state.density.size() != n) {
    throw std::invalid_argument("computeFluidDiagnostics: " + std::to_string(n) + " positions, " +
                                std::to_string(state.vel.size()) + " velocities, " +
                                std::to_string(state.density.size()) + " densities");
  }
  return computeFluidDiagnostics(state.pos.data(), state.vel.data(), state.density.data(), n, params.restDensity,
                                 particleMass(params));
}

bool FluidDiagnosticsTrack::update(const std::optional<FluidDiagnosticsSample>& latest) {
  bool restarted = false;
  if (!add(latest, restarted)) return false;
  const FluidDiagnosticSums& s = latest->sums;
  if (restarted) peak_ = s;
  peak_.mass = std::min(peak_.mass, s.mass);
  peak_.particles = std::min(peak_.particles, s.particles);
  peak_.maxDensityDeviation = std::max(peak_.maxDensityDeviation, s.maxDensityDeviation);
  peak_.maxCompression = std::max(peak_.maxCompression, s.maxCompression);
  peak_.maxSpeed = std::max(peak_.maxSpeed, s.maxSpeed);
  return true;
}

double FluidDiagnosticsTrack::massChange() const {
  if (!first() || !last() || first()->sums.mass == 0) return 0.0;
  return last()->sums.mass / first()->sums.mass - 1.0;
}

std::string FluidDiagnosticsTrack::summary() const {
  if (!first() || !last()) return {};
  const FluidDiagnosticSums& a = first()->sums;
  const FluidDiagnosticSums& b = last()->sums;
  return "diagnostics: " + describeSpan() + ": mass " + generalText(a.mass) + " -> " + generalText(b.mass) +
         " kg (change " + scientificText(massChange()) + "), max density deviation " + percent(a.maxDensityDeviation) +
         " -> " + percent(b.maxDensityDeviation) + " (peak " + percent(peak_.maxDensityDeviation) +
         "), max compression " + percent(a.maxCompression) + " -> " + percent(b.maxCompression) + " (peak " +
         percent(peak_.maxCompression) + "), max speed " + generalText(a.maxSpeed, 4) + " -> " +
         generalText(b.maxSpeed, 4) + " m/s (peak " + generalText(peak_.maxSpeed, 4) + ")";
}

} // namespace graphsim::fluid
