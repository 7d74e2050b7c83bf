// Live diagnostics (issue 15, compute/nbody/nbody_diagnostics.h): the CPU reference on cases worked out by hand, its
// invariances, the CPU backend's schedule (which frames sample, the toggle, series) and conservation over real runs.
// Tolerances are stated next to each check with the value measured when it was written.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <optional>
#include <vector>

#include "compute/nbody/nbody_cpu_backend.h"
#include "compute/nbody/nbody_diagnostics.h"
#include "compute/nbody/nbody_initial_conditions.h"
#include "unit_helpers.h"

namespace graphsim {
namespace {

using test::gravityOnly;

// Two bodies of different masses with arbitrary positions and velocities: every quantity written out by hand.
BodyState twoBodies() {
  BodyState s;
  s.posMass = {{1.0f, 2.0f, 3.0f, 2.0f}, {-1.0f, 0.0f, 1.0f, 0.5f}};
  s.vel = {{0.25f, -0.5f, 0.75f, 0.0f}, {-1.0f, 0.5f, 0.125f, 0.0f}};
  return s;
}

TEST(Diagnostics, TwoBodiesByHand) {
  NBodyParams params;
  params.G = 1.5f;
  params.softening = 0.5f;
  const DiagnosticSums d = computeDiagnostics(twoBodies(), {}, params); // no accelerations: velocities as given
  // K = 1/2 2 (1/16 + 1/4 + 9/16) + 1/2 1/2 (1 + 1/4 + 1/64) = 0.875 + 0.31640625
  EXPECT_DOUBLE_EQ(d.kinetic, 0.875 + 0.31640625);
  // |x1 - x2|^2 = 4 + 4 + 4 = 12; U = -G m1 m2 / sqrt(12 + eps^2) = -1.5 / sqrt(12.25) = -1.5 / 3.5
  EXPECT_NEAR(d.potential, -1.5 / 3.5, 1e-15);
  EXPECT_DOUBLE_EQ(d.total(), d.kinetic + d.potential);
  // P = 2 (1/4, -1/2, 3/4) + 1/2 (-1, 1/2, 1/8) = (0, -3/4, 25/16)
  EXPECT_DOUBLE_EQ(d.momentum[0], 0.0);
  EXPECT_DOUBLE_EQ(d.momentum[1], -0.75);
  EXPECT_DOUBLE_EQ(d.momentum[2], 1.5625);
  // x1 x v1 = (2*0.75 - 3*(-0.5), 3*0.25 - 1*0.75, 1*(-0.5) - 2*0.25) = (3, 0, -1), times m1 = 2: (6, 0, -2)
  // x2 x v2 = (0*0.125 - 1*0.5, 1*(-1) - (-1)*0.125, (-1)*0.5 - 0*(-1)) = (-0.5, -0.875, -0.5), times 1/2
  EXPECT_DOUBLE_EQ(d.angularMomentum[0], 6.0 - 0.25);
  EXPECT_DOUBLE_EQ(d.angularMomentum[1], -0.4375);
  EXPECT_DOUBLE_EQ(d.angularMomentum[2], -2.0 - 0.25);
  // Scales: sum m|v| and sum m|x x v|
  EXPECT_NEAR(d.momentumScale, 2.0 * std::sqrt(0.875) + 0.5 * std::sqrt(1.265625), 1e-15);
  EXPECT_NEAR(d.angularMomentumScale, 2.0 * std::sqrt(10.0) + 0.5 * std::sqrt(0.25 + 0.765625 + 0.25), 1e-14);
}

TEST(Diagnostics, HalfStepVelocitiesAreResynchronisedWithTheAccelerations) {
  // v(t) = v(t - dt/2) + a dt/2: with dt = 0.5 and a = (4, 0, -4), (8, 8, 0) the velocities become
  // (1.25, -0.5, -0.25) and (1, 2.5, 0.125).
  NBodyParams params;
  params.dt = 0.5f;
  params.softening = 0.5f;
  const std::vector<Float4> accel = {{4.0f, 0.0f, -4.0f, 0.0f}, {8.0f, 8.0f, 0.0f, 0.0f}};
  const DiagnosticSums d = computeDiagnostics(twoBodies(), accel, params);
  EXPECT_DOUBLE_EQ(d.kinetic, 0.5 * 2.0 * (1.5625 + 0.25 + 0.0625) + 0.5 * 0.5 * (1.0 + 6.25 + 0.015625));
  EXPECT_DOUBLE_EQ(d.momentum[0], 2.0 * 1.25 + 0.5 * 1.0);
  EXPECT_DOUBLE_EQ(d.momentum[1], 2.0 * -0.5 + 0.5 * 2.5);
  const DiagnosticSums plain = computeDiagnostics(twoBodies(), {}, params);
  EXPECT_DOUBLE_EQ(d.potential, plain.potential); // U depends on the positions only
  EXPECT_THROW(computeDiagnostics(twoBodies(), std::vector<Float4>(3), params), std::invalid_argument);
}

TEST(Diagnostics, SofteningIsTheForcesPlummerForm) {
  // The pair potential -G m1 m2 / sqrt(r^2 + eps^2), whose gradient is the forces stage's G m2 d / (r^2 + eps^2)^1.5:
  // moving body 1 by h along the separation changes U by -F h to first order (central difference, h = 1e-3).
  NBodyParams params;
  params.softening = 0.3f;
  BodyState s;
  s.posMass = {{0.4f, 0.0f, 0.0f, 0.5f}, {-0.4f, 0.0f, 0.0f, 0.5f}};
  s.vel = {Float4{}, Float4{}};
  const auto potentialAt = [&](float x) {
    BodyState moved = s;
    moved.posMass[0].x = x;
    return computeDiagnostics(moved, {}, params).potential;
  };
  const double h = 1.0 / 1024; // exact in float
  const double dUdx = (potentialAt(0.4f + float(h)) - potentialAt(0.4f - float(h))) / (2 * h);
  std::vector<Float4> accel;
  startLeapfrog(s, params, accel);                   // a(0) by the double direct sum
  const double force = 0.5 * accel[0].x;             // m1 a1
  EXPECT_NEAR(-dUdx, force, 1e-5 * std::abs(force)); // central-difference error ~h^2 U''' ~ 1e-7 relative
}

// A state whose coordinates are multiples of 1/64 below 4 in magnitude: sums and differences of them, and the
// translations and quarter turns below, are exact in float.
BodyState gridState(int n) {
  BodyState s;
  std::uint32_t r = 12345;
  const auto next = [&] {
    r = r * 1664525u + 1013904223u;
    return static_cast<float>(static_cast<int>(r >> 24) - 128) / 64.0f; // [-2, 2)
  };
  for (int i = 0; i < n; ++i) {
    s.posMass.push_back({next(), next(), next(), 1.0f / static_cast<float>(n)});
    s.vel.push_back({next() / 4, next() / 4, next() / 4, 0.0f});
  }
  return s;
}

TEST(Diagnostics, QuarterTurnAndTranslationLeaveEnergyUnchanged) {
  NBodyParams params;
  params.softening = 0.05f;
  const BodyState s = gridState(100);
  const DiagnosticSums d = computeDiagnostics(s, {}, params);

  // A quarter turn about z, (x, y, z) -> (-y, x, z), exact in float: every distance keeps its bits (dx^2 and dy^2
  // swap, and addition commutes exactly), so K and U are bit-identical; P and L turn with it.
  BodyState turned = s;
  for (std::size_t i = 0; i < s.size(); ++i) {
    turned.posMass[i].x = -s.posMass[i].y;
    turned.posMass[i].y = s.posMass[i].x;
    turned.vel[i].x = -s.vel[i].y;
    turned.vel[i].y = s.vel[i].x;
  }
  const DiagnosticSums t = computeDiagnostics(turned, {}, params);
  EXPECT_EQ(t.kinetic, d.kinetic);
  EXPECT_EQ(t.potential, d.potential);
  EXPECT_NEAR(t.momentum[0], -d.momentum[1], 1e-15);
  EXPECT_NEAR(t.momentum[1], d.momentum[0], 1e-15);
  EXPECT_NEAR(t.angularMomentum[0], -d.angularMomentum[1], 1e-14);
  EXPECT_NEAR(t.angularMomentum[1], d.angularMomentum[0], 1e-14);
  EXPECT_NEAR(t.angularMomentum[2], d.angularMomentum[2], 1e-14);

  // A translation by (1, -2, 0.5), exact on this grid: K, U and P unchanged, L about the origin gains c x P.
  const double c[3] = {1.0, -2.0, 0.5};
  BodyState moved = s;
  for (Float4& p : moved.posMass) {
    p.x += 1.0f;
    p.y -= 2.0f;
    p.z += 0.5f;
  }
  const DiagnosticSums m = computeDiagnostics(moved, {}, params);
  EXPECT_EQ(m.kinetic, d.kinetic);
  EXPECT_NEAR(m.potential, d.potential, 1e-15 * std::abs(d.potential)); // same distances, same order
  for (int k = 0; k < 3; ++k) EXPECT_EQ(m.momentum[k], d.momentum[k]);
  const double cxP[3] = {c[1] * d.momentum[2] - c[2] * d.momentum[1], c[2] * d.momentum[0] - c[0] * d.momentum[2],
                         c[0] * d.momentum[1] - c[1] * d.momentum[0]};
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(m.angularMomentum[k], d.angularMomentum[k] + cxP[k], 1e-14) << k;
}

TEST(Diagnostics, MatchesMeasureOnAPlummerSphere) {
  // measure() (nbody_initial_conditions.h) computes a(t) itself in double; the backend's accelerations are that a(0)
  // rounded to float (startLeapfrog), so K differs by ~1e-7 of the half-kick term only and U not at all beyond
  // the summation order (measure() sums every pair twice, computeDiagnostics once). Measured: relative differences
  // 1.1e-15 (U) and 9.3e-13 (K); bounds 1e-12 and 1e-9.
  NBodyCpuBackend backend(gravityOnly("plummer", 512, 3));
  const NBodyParams& params = backend.config().params;
  const DiagnosticSums d = computeDiagnostics(backend.state(), backend.downloadAccelerations(), params);
  const Diagnostics m = measure(backend.state(), params);
  std::printf("[ measured ] against measure(): U %.1e, K %.1e, sum m|x x v| %.1e (relative)\n",
              std::abs(d.potential / m.potential - 1), std::abs(d.kinetic / m.kinetic - 1),
              std::abs(d.angularMomentumScale / m.angularMomentumScale - 1));
  EXPECT_NEAR(d.potential, m.potential, 1e-12 * std::abs(m.potential));
  EXPECT_NEAR(d.kinetic, m.kinetic, 1e-9 * m.kinetic);
  EXPECT_NEAR(d.angularMomentumScale, m.angularMomentumScale, 1e-9 * m.angularMomentumScale);
  EXPECT_NEAR(d.total(), -0.25, 0.02); // standard N-body units, up to sampling noise and softening
}

TEST(Diagnostics, DriftAndTrack) {
  DiagnosticSums a{};
  a.kinetic = 0.25;
  a.potential = -0.5;
  a.momentum[1] = 1e-9;
  a.momentumScale = 2.0;
  a.angularMomentum[2] = 0.5;
  a.angularMomentumScale = 1.0;
  DiagnosticSums b = a;
  b.kinetic = 0.2495; // E -0.25 -> -0.2505
  b.momentum[0] = 3e-6;
  b.momentum[1] = 1e-9 + 4e-6; // |dP| = 5e-6, over sum m|v| = 2
  b.angularMomentum[2] = 0.5 - 1e-4;
  const DiagnosticsDrift d = relativeDrift(a, b);
  EXPECT_NEAR(d.energy, -0.2505 / -0.25 - 1.0, 1e-15);
  EXPECT_NEAR(d.momentum, 2.5e-6, 1e-15);
  EXPECT_NEAR(d.angularMomentum, 1e-4, 1e-15);

  DiagnosticsTrack track;
  EXPECT_FALSE(track.update(std::nullopt));
  EXPECT_TRUE(track.summary().empty());
  EXPECT_TRUE(track.update(DiagnosticsSample{0, 1, a}));
  EXPECT_FALSE(track.update(DiagnosticsSample{0, 1, a})); // the same sample again
  EXPECT_FALSE(track.driftPer1000Frames());               // one sample: no rate
  EXPECT_TRUE(track.update(DiagnosticsSample{500, 1, b}));
  EXPECT_EQ(track.samples(), 2u);
  ASSERT_TRUE(track.driftPer1000Frames());
  EXPECT_NEAR(track.driftPer1000Frames()->energy, 2.0 * d.energy, 1e-15);
  EXPECT_NE(track.summary().find("2 samples, frames 0..500"), std::string::npos) << track.summary();
  EXPECT_TRUE(track.update(DiagnosticsSample{500, 2, b})); // another series: starts over
  EXPECT_EQ(track.samples(), 1u);
  EXPECT_EQ(track.first()->series, 2u);
  EXPECT_EQ(track.drift().energy, 0.0);
}

NBodyConfig sampled(NBodyConfig config, int every) {
  config.diagnosticsEvery = every;
  return config;
}

TEST(Diagnostics, CpuBackendSamplesEveryKFramesAfterTheFirstForces) {
  NBodyCpuBackend backend(sampled(gravityOnly("plummer", 64, 2), 3));
  std::vector<std::uint64_t> sampledFrames;
  for (std::uint64_t k = 0; k < 8; ++k) {
    const BodyState before = backend.state();
    backend.stepFrame(k);
    const std::optional<DiagnosticsSample> s = backend.diagnostics();
    ASSERT_TRUE(s.has_value());
    if (s->frame != k) continue;
    sampledFrames.push_back(k);
    // The state frame k started from, with the accelerations its forces stage computed (one substep: still there).
    const DiagnosticSums want = computeDiagnostics(before, backend.downloadAccelerations(), backend.config().params);
    EXPECT_EQ(s->sums.total(), want.total()) << "frame " << k;
    EXPECT_EQ(s->sums.momentum[0], want.momentum[0]) << "frame " << k;
  }
  EXPECT_EQ(sampledFrames, (std::vector<std::uint64_t>{0, 3, 6}));

  // Off: no sample, the last stays readable; on again: the next due frame.
  backend.setDiagnosticsEnabled(false);
  backend.stepFrame(9);
  EXPECT_EQ(backend.diagnostics()->frame, 6u);
  backend.setDiagnosticsEnabled(true);
  backend.stepFrame(10);
  EXPECT_EQ(backend.diagnostics()->frame, 6u); // 10 % 3 != 0
  backend.stepFrame(12);
  EXPECT_EQ(backend.diagnostics()->frame, 12u);

  // Forces off or dt 0 (paused): no sample (the half-step correction needs a fresh a(t) and a dt).
  backend.setStageEnabled(NBodyStage::Forces, false);
  backend.stepFrame(15);
  EXPECT_EQ(backend.diagnostics()->frame, 12u);
  backend.setStageEnabled(NBodyStage::Forces, true);
  NBodyParams paused = backend.config().params;
  paused.dt = 0.0f;
  backend.setParams(paused);
  backend.stepFrame(18);
  EXPECT_EQ(backend.diagnostics()->frame, 12u);

  // A reset: a new series, whose first sample is the first frame that may take one, whatever its number.
  const std::uint64_t series = backend.diagnostics()->series;
  backend.reset(sampled(gravityOnly("plummer", 64, 2), 3));
  EXPECT_FALSE(backend.diagnostics().has_value());
  backend.stepFrame(19);
  ASSERT_TRUE(backend.diagnostics().has_value());
  EXPECT_EQ(backend.diagnostics()->frame, 19u);
  EXPECT_NE(backend.diagnostics()->series, series);
}

TEST(Diagnostics, CpuBackendListsTheNodeAfterTheFirstForces) {
  NBodyConfig config = sampled(gravityOnly("plummer", 16), 10);
  config.substeps = 2;
  NBodyCpuBackend backend(config);
  const std::vector<NodeInfo>& nodes = backend.nodes();
  ASSERT_EQ(nodes.size(), static_cast<std::size_t>(stageInstanceCount(2)) + 1);
  EXPECT_EQ(nodes[0].name, "forces");
  EXPECT_EQ(nodes[1].name, kDiagnosticsNodeName);
  EXPECT_TRUE(nodes[1].diagnostics);
  EXPECT_EQ(nodes[1].step, -1);
  EXPECT_TRUE(nodes[1].togglable);
  EXPECT_TRUE(nodes[1].enabled);
  EXPECT_EQ(nodes[2].name, "attractor");
  backend.setDiagnosticsEnabled(false);
  EXPECT_FALSE(backend.nodes()[1].enabled);
  // Profiled frames time it like a stage (0 ms on a frame that does not sample).
  ASSERT_TRUE(backend.setProfiling(true));
  backend.setDiagnosticsEnabled(true);
  backend.stepFrame(0);
  EXPECT_GE(backend.nodes()[1].ms, 0.0);
  // Interval 0: no node.
  config.diagnosticsEvery = 0;
  backend.reset(config);
  EXPECT_EQ(backend.nodes().size(), static_cast<std::size_t>(stageInstanceCount(2)));
  for (const NodeInfo& n : backend.nodes()) EXPECT_FALSE(n.diagnostics) << n.name;
}

TEST(Diagnostics, SamplingChangesNoState) {
  const auto run = [](int every) {
    NBodyConfig config;
    config.bodies = 300;
    config.diagnosticsEvery = every;
    NBodyCpuBackend backend(config);
    for (int i = 0; i < 12; ++i) backend.step();
    return backend.state();
  };
  const BodyState with = run(1), without = run(0);
  EXPECT_TRUE(with.posMass == without.posMass);
  EXPECT_TRUE(with.vel == without.vel);
}

// Conservation as the backend's own samples see it: gravity only (no damping, attractor or boundary), leapfrog.
struct Conservation {
  double energy = 0, momentum = 0, angularMomentum = 0; // worst |drift| over the samples
  std::uint64_t samples = 0;
};
Conservation conservation(NBodyConfig config, int frames, int every) {
  config.diagnosticsEvery = every;
  NBodyCpuBackend backend(config);
  DiagnosticsTrack track;
  Conservation worst;
  for (int k = 0; k < frames; ++k) {
    backend.step();
    if (!track.update(backend.diagnostics())) continue;
    const DiagnosticsDrift d = track.drift();
    worst.energy = std::max(worst.energy, std::abs(d.energy));
    worst.momentum = std::max(worst.momentum, d.momentum);
    worst.angularMomentum = std::max(worst.angularMomentum, d.angularMomentum);
  }
  worst.samples = track.samples();
  std::printf("[ measured ] %s %lld bodies, %d frames: worst drift energy %.2e, momentum %.2e, angular momentum %.2e\n",
              config.initial.c_str(), static_cast<long long>(config.bodies), frames, worst.energy, worst.momentum,
              worst.angularMomentum);
  return worst;
}

TEST(Diagnostics, TwoBodyOrbitConservesEnergyMomentumAndAngularMomentum) {
  // The circular orbit of physics_test (period 2 pi, dt = 2 pi / 6283, no softening), one period, sampled every 10
  // steps with the re-synchronised velocities. Leapfrog's own energy error on this orbit is ~(omega dt)^2 / 8 ~ 1e-7;
  // what dominates is the float rounding of the positions, a random walk of the radius that physics_test measured
  // at up to 1.9e-6 (bound 2e-5): |dE/E| = |dU/U| |U/E| = 2 |dr/r|. P is exactly 0 throughout (equal masses, a
  // mirrored state and exactly antisymmetric float forces); L moves with the same rounding. Measured worst: energy
  // 2.7e-06, momentum 0, angular momentum 1.4e-06; bounds 2e-5, 1e-12 and 1e-5 (7x margin).
  NBodyConfig config = gravityOnly("two-body", 2);
  config.params.dt = static_cast<float>(2.0 * std::numbers::pi / 6283);
  config.params.softening = 0.0f;
  const Conservation c = conservation(config, 6283, 10);
  EXPECT_EQ(c.samples, 629u);
  EXPECT_LT(c.energy, 2e-5);
  EXPECT_LT(c.momentum, 1e-12);
  EXPECT_LT(c.angularMomentum, 1e-5);
}

TEST(Diagnostics, PlummerSphereDriftsLittle) {
  // Plummer N = 256 at the default dt 0.0015 and softening 0.025, 1000 frames (about half a crossing time), every 10
  // frames: the backend's own samples (the float forces' a(t)), against physics_test's LeapfrogEnergyDriftIsSmall,
  // which measured |dE/E| up to 1.9e-6 over seeds 1-8 with measure() and bounds it by 2e-5. Momentum: pairwise forces
  // cancel in exact arithmetic, float leaves ~eps_float |m a| per body and step (physics_test: |dP| <= 1.1e-8 over
  // 100 steps against sum m|v| = 0.63). Measured worst: energy 1.7e-06, momentum 6.9e-08, angular momentum 1.2e-07
  // (of their scales); bounds 2e-5, 1e-6 and 2e-6 (12-17x margin).
  const Conservation c = conservation(gravityOnly("plummer", 256, 3), 1000, 10);
  EXPECT_EQ(c.samples, 100u);
  EXPECT_LT(c.energy, 2e-5);
  EXPECT_LT(c.momentum, 1e-6);
  EXPECT_LT(c.angularMomentum, 2e-6);
}

} // namespace
} // namespace graphsim
