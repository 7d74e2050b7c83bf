// The CPU reference of the fluid diagnostics (fluid_diagnostics.h) and the host side of a series of samples.
#include "compute/fluid/fluid_diagnostics.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "compute/fluid/fluid_cpu.h"
#include "compute/fluid/fluid_params.h"

namespace graphsim::fluid {
namespace {

std::string general(double v, const char* format = "%.6g") {
  char text[32];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

std::string percent(double v) { return general(100.0 * v, "%.3g") + " %"; }

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
  if (!latest) return false;
  if (last_ && last_->series == latest->series && last_->frame == latest->frame) return false;
  const FluidDiagnosticSums& s = latest->sums;
  if (!first_ || first_->series != latest->series) {
    first_ = latest;
    samples_ = 0;
    peak_ = s;
  }
  peak_.mass = std::min(peak_.mass, s.mass);
  peak_.particles = std::min(peak_.particles, s.particles);
  peak_.maxDensityError = std::max(peak_.maxDensityError, s.maxDensityError);
  peak_.maxCompression = std::max(peak_.maxCompression, s.maxCompression);
  peak_.maxSpeed = std::max(peak_.maxSpeed, s.maxSpeed);
  last_ = latest;
  ++samples_;
  return true;
}

double FluidDiagnosticsTrack::massChange() const {
  if (!first_ || !last_ || first_->sums.mass == 0) return 0.0;
  return last_->sums.mass / first_->sums.mass - 1.0;
}

std::string FluidDiagnosticsTrack::summary() const {
  if (!first_ || !last_) return {};
  const FluidDiagnosticSums& a = first_->sums;
  const FluidDiagnosticSums& b = last_->sums;
  return "diagnostics: " + std::to_string(samples_) + " sample" + (samples_ == 1 ? "" : "s") + ", frames " +
         std::to_string(first_->frame) + ".." + std::to_string(last_->frame) + ": mass " + general(a.mass) + " -> " +
         general(b.mass) + " kg (change " + general(massChange(), "%.3e") + "), max density error " +
         percent(a.maxDensityError) + " -> " + percent(b.maxDensityError) + " (peak " + percent(peak_.maxDensityError) +
         "), max compression " + percent(a.maxCompression) + " -> " + percent(b.maxCompression) + " (peak " +
         percent(peak_.maxCompression) + "), max speed " + general(a.maxSpeed, "%.4g") + " -> " +
         general(b.maxSpeed, "%.4g") + " m/s (peak " + general(peak_.maxSpeed, "%.4g") + ")";
}

} // namespace graphsim::fluid
