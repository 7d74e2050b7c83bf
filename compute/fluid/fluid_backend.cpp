// The fluid scene's config checks and initial conditions, shared by the CPU and CUDA backends: spacingFor,
// validateFluidConfig, makeInitialState (declared in fluid_backend.h and fluid_cpu_backend.h).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "compute/fluid/fluid_backend.h"
#include "compute/fluid/fluid_cpu_backend.h"

namespace graphsim::fluid {
namespace {

// The initial block's extent as a share of the box on each axis.
struct BlockShare {
  double x, y, z;
};

BlockShare blockShare(const FluidConfig& config) {
  const std::string& initial = config.initial;
  if (initial == "dam-break") return {0.4, 0.8, 1.0};
  if (initial == "rest") return {1.0, 0.5, 1.0};
  if (initial == "column") { // Martin & Moyce's square column: a x 2a x a at x = 0, a = the box's depth
    const float* box = config.params.boxSize;
    if (!(box[0] >= box[2] && box[1] >= 2.0f * box[2])) {
      throw std::invalid_argument("fluid: initial = \"column\" (a square column a x 2a x a, a = boxSize.z = " +
                                  std::to_string(box[2]) + " m) needs boxSize.x >= a and boxSize.y >= 2a; the box is " +
                                  std::to_string(box[0]) + " x " + std::to_string(box[1]) + " m");
    }
    return {static_cast<double>(box[2]) / box[0], 2.0 * box[2] / box[1], 1.0};
  }
  throw std::invalid_argument("fluid: initial = \"" + initial + "\" is not one of dam-break, rest, column");
}

void requireParticles(std::int64_t particles) {
  if (particles < 1 || particles > kMaxFluidParticles) {
    throw std::invalid_argument("fluid: particles = " + std::to_string(particles) + " is outside [1, " +
                                std::to_string(kMaxFluidParticles) + "]");
  }
}

[[noreturn]] void refuse(const std::string& field, double value, const std::string& range) {
  throw std::invalid_argument("fluid: " + field + " = " + std::to_string(value) + " is outside " + range);
}

// The lattice of makeInitialState: nx x nz particles per layer, `layers` layers (the last one partial).
struct Lattice {
  std::int64_t nx, nz, layers;
};

// Particles along an extent at spacing s: floor(extent / s), at least 1; the 1e-4 absorbs the float rounding of s
// when extent / s is an integer (16 particles of 0.02 m in 0.32 m).
std::int64_t along(double extent, float s) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(extent / static_cast<double>(s) + 1e-4)));
}

Lattice latticeFor(const FluidConfig& config, float s) {
  const BlockShare share = blockShare(config);
  const std::int64_t nx = along(share.x * config.params.boxSize[0], s);
  const std::int64_t nz = along(share.z * config.params.boxSize[2], s);
  return {nx, nz, (config.particles + nx * nz - 1) / (nx * nz)};
}

const char* const kAxis[3] = {"x", "y", "z"};

void validateGeometry(const FluidConfig& config, float s) {
  for (int a = 0; a < 3; ++a) {
    if (2.0f * s > config.params.boxSize[a]) {
      throw std::invalid_argument("fluid: particles = " + std::to_string(config.particles) +
                                  " is too few for this box: spacing " + std::to_string(s) +
                                  " gives h = " + std::to_string(2.0f * s) + " m > boxSize." + kAxis[a] + " = " +
                                  std::to_string(config.params.boxSize[a]) + " m");
    }
  }
  const Lattice l = latticeFor(config, s);
  const double extent[3] = {static_cast<double>(l.nx) * s, static_cast<double>(l.layers) * s,
                            static_cast<double>(l.nz) * s};
  for (int a = 0; a < 3; ++a) {
    if (extent[a] > static_cast<double>(config.params.boxSize[a]) * (1.0 + 1e-4)) {
      throw std::invalid_argument("fluid: particles = " + std::to_string(config.particles) + ": the " + config.initial +
                                  " block of " + std::to_string(l.nx) + " x " + std::to_string(l.layers) + " x " +
                                  std::to_string(l.nz) + " particles at spacing " + std::to_string(s) +
                                  " m does not fit in the box along " + kAxis[a]);
    }
  }
}

} // namespace

float spacingFor(const FluidConfig& config) {
  const BlockShare share = blockShare(config);
  requireParticles(config.particles);
  const double volume =
      share.x * config.params.boxSize[0] * share.y * config.params.boxSize[1] * share.z * config.params.boxSize[2];
  return static_cast<float>(std::cbrt(volume / static_cast<double>(config.particles)));
}

FluidParams validateFluidConfig(const FluidConfig& config) {
  for (int a = 0; a < 3; ++a) {
    const float b = config.params.boxSize[a];
    if (!(b > 0.0f) || std::isinf(b)) refuse(std::string("boxSize.") + kAxis[a], b, "(0, inf) m");
  }
  blockShare(config);
  requireParticles(config.particles);
  if (!(config.frameDt > 0.0f && config.frameDt <= 0.1f)) refuse("frameDt", config.frameDt, "(0, 0.1] s");
  if (!(config.colourScale > 0.0f) || std::isinf(config.colourScale)) {
    refuse("colourScale", config.colourScale, "(0, inf)");
  }
  if (config.colourBy != ColourBy::Speed && config.colourBy != ColourBy::Density) {
    refuse("colourBy", static_cast<int>(config.colourBy), "{Speed, Density}");
  }
  if (config.diagnosticsEvery < 0 || config.diagnosticsEvery > kMaxDiagnosticsEvery) {
    throw std::invalid_argument("fluid: diagnosticsEvery = " + std::to_string(config.diagnosticsEvery) +
                                " is outside [0, " + std::to_string(kMaxDiagnosticsEvery) + "] frames");
  }
  if (config.solver != FluidSolver::Wcsph && config.solver != FluidSolver::Dfsph)
    refuse("solver", static_cast<float>(config.solver), "{wcsph, dfsph}");
  validateDfsphSettings(config.dfsph);
  FluidParams params = config.params;
  params.spacing = spacingFor(config);
  validateGeometry(config, params.spacing);
  validateFluidParams(params);
  return params;
}

FluidState makeInitialState(const FluidConfig& config) {
  const FluidParams params = validateFluidConfig(config);
  const float s = params.spacing;
  const Lattice l = latticeFor(config, s);
  const auto n = static_cast<std::size_t>(config.particles);
  FluidState state;
  state.pos.reserve(n);
  for (std::size_t p = 0; p < n; ++p) {
    const auto i = static_cast<std::int64_t>(p) % l.nx;
    const auto k = (static_cast<std::int64_t>(p) / l.nx) % l.nz;
    const auto j = static_cast<std::int64_t>(p) / (l.nx * l.nz);
    state.pos.push_back({(static_cast<float>(i) + 0.5f) * s, (static_cast<float>(j) + 0.5f) * s,
                         (static_cast<float>(k) + 0.5f) * s, 0.0f});
  }
  state.vel.assign(n, Float4{});
  state.density.assign(n, 0.0f);
  return state;
}

} // namespace graphsim::fluid
