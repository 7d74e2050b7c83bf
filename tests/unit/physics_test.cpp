// Physics of the CPU reference: orbits close, conserved quantities stay conserved, softening keeps encounters finite,
// and runs are reproducible. Tolerances are stated next to each check with the value measured when it was written.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "compute/nbody/nbody_cpu_backend.h"
#include "compute/nbody/nbody_initial_conditions.h"
#include "unit_helpers.h"

namespace graphsim {
namespace {

using test::gravityOnly;

double momentumMagnitude(const Diagnostics& d) {
  return std::sqrt(d.momentum[0] * d.momentum[0] + d.momentum[1] * d.momentum[1] + d.momentum[2] * d.momentum[2]);
}

TEST(Physics, TwoBodyCircularOrbitClosesAfterOnePeriod) {
  // Separation 1, masses 1/2, G = 1: period 2 pi. 6283 steps of dt = 2 pi / 6283 (~0.001) make one period up to the
  // float rounding of dt. Leapfrog's own phase error, ~(omega dt)^2 / 24 per radian, is ~1e-7 over the orbit, so
  // what is left is float rounding of the positions. Measured: closure 4.5e-6, radius error 1.9e-6 at worst;
  // bounds 5e-5 and 2e-5 (10x margin). Measured failures: an Euler step misses the closure by 3e-2; starting
  // without the half-step velocity still closes but leaves the orbit eccentric (radius error 2.5e-4).
  NBodyConfig config = gravityOnly("two-body", 2);
  constexpr int kSteps = 6283;
  config.params.dt = static_cast<float>(2.0 * std::numbers::pi / kSteps);
  config.params.softening = 0.0f;
  NBodyCpuBackend backend(config);
  const BodyState start = backend.state();
  double maxRadiusError = 0;
  for (int i = 0; i < kSteps; ++i) {
    backend.step();
    if (i == kSteps / 2) {
      // Half a period: the bodies have swapped places.
      EXPECT_NEAR(backend.state().posMass[0].x, -0.5f, 1e-3f);
      EXPECT_NEAR(backend.state().posMass[1].x, 0.5f, 1e-3f);
    }
    for (const Float4& p : backend.state().posMass) {
      maxRadiusError = std::max(maxRadiusError, std::abs(std::hypot(p.x, p.y, p.z) - 0.5));
    }
  }
  for (std::size_t b = 0; b < 2; ++b) {
    const Float4 p = backend.state().posMass[b], p0 = start.posMass[b];
    EXPECT_LT(std::hypot(p.x - p0.x, p.y - p0.y, p.z - p0.z), 5e-5) << "body " << b;
  }
  EXPECT_LT(maxRadiusError, 2e-5); // the orbit stays circular all the way round
}

TEST(Physics, MomentumConservedToRoundingForPlummer256) {
  // Pairwise forces cancel exactly in exact arithmetic; in float each step leaves a residue of roughly
  // eps_float * |m a| per body. Measured over seeds 1, 2, 3, 7: |P(100) - P(0)| <= 1.1e-8 per component with
  // |P(0)| <= 2.1e-9 (float rounding of the centred state), against a scale sum m|v| = 0.63; bound 1e-7 (9x margin).
  NBodyCpuBackend backend(gravityOnly("plummer", 256, 7));
  const NBodyParams& params = backend.config().params;
  const Diagnostics before = measure(backend.state(), params);
  for (int i = 0; i < 100; ++i) backend.step();
  const Diagnostics after = measure(backend.state(), params);
  double change = 0;
  for (int k = 0; k < 3; ++k) change = std::max(change, std::abs(after.momentum[k] - before.momentum[k]));
  EXPECT_LT(change, 1e-7);
  EXPECT_LT(momentumMagnitude(before), 1e-7);
}

TEST(Physics, LeapfrogEnergyDriftIsSmall) {
  // Plummer N = 256 at the default dt 0.0015 and softening 0.025 for 1000 steps (t = 1.5, about half a crossing
  // time), energy checked every 100 steps. Leapfrog is symplectic: the error oscillates instead of growing, and at
  // this dt it is mostly float rounding. Measured worst |dE/E|: 9.8e-7 for this seed, 1.9e-6 over seeds 1-8;
  // bound 2e-5 (10x margin). The same run with a first-order (Euler) step drifts by 8.8e-3.
  NBodyCpuBackend backend(gravityOnly("plummer", 256, 3));
  const NBodyParams& params = backend.config().params;
  const double e0 = measure(backend.state(), params).total();
  EXPECT_NEAR(e0, -0.25, 0.05); // standard N-body units, up to sampling noise and softening
  double worst = 0;
  for (int i = 1; i <= 1000; ++i) {
    backend.step();
    if (i % 100 == 0) worst = std::max(worst, std::abs(measure(backend.state(), params).total() - e0) / std::abs(e0));
  }
  EXPECT_LT(worst, 2e-5);
}

TEST(Physics, SofteningKeepsHeadOnEncounterFinite) {
  // Two bodies of mass 1/2 fall straight at each other from rest at separation 1, through the same point. With
  // softening eps the potential at zero distance is -G m1 m2 / eps, so energy bounds each speed by
  // sqrt((1/eps - 1/sqrt(1 + eps^2)) / 2) = 3.0823 at eps = 0.05; measured peak 3.0811 at the crossing (step 1119).
  // Without softening the step at the crossing divides by ~0.
  NBodyConfig config = gravityOnly("two-body", 2);
  config.params.softening = 0.05f;
  config.params.dt = 0.001f;
  NBodyCpuBackend backend(config);
  BodyState state = backend.state();
  state.vel[0] = state.vel[1] = Float4{};
  backend.setState(state);
  const double bound = std::sqrt((1.0 / 0.05 - 1.0 / std::sqrt(1.0 + 0.05 * 0.05)) / 2.0);
  float fastest = 0;
  for (int i = 0; i < 3000; ++i) { // free-fall time ~1.1: the bodies cross and separate again
    backend.step();
    for (const Float4& v : backend.state().vel) {
      ASSERT_TRUE(std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z)) << "step " << i;
      fastest = std::max(fastest, test::length(v));
    }
  }
  EXPECT_GT(fastest, 0.9 * bound); // they did go through the core
  EXPECT_LT(fastest, 1.05 * bound);
  for (const Float4& p : backend.state().posMass) EXPECT_TRUE(std::isfinite(p.x));
}

TEST(Physics, SameSeedIsBitIdenticalAndAnotherSeedIsNot) {
  auto run = [](std::uint64_t seed) {
    NBodyConfig config; // the default stage list, galaxy-pair
    config.bodies = 1000;
    config.seed = seed;
    config.enabled[static_cast<int>(NBodyStage::Attractor)] = true;
    config.enabled[static_cast<int>(NBodyStage::Damping)] = true;
    NBodyCpuBackend backend(config);
    for (int i = 0; i < 20; ++i) backend.step();
    return backend.state();
  };
  const BodyState a = run(42), b = run(42), c = run(43);
  EXPECT_TRUE(a.posMass == b.posMass);
  EXPECT_TRUE(a.vel == b.vel);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differing += a.posMass[i] == c.posMass[i] ? 0 : 1;
  EXPECT_GT(differing, a.size() * 9 / 10);
}

} // namespace
} // namespace graphsim
