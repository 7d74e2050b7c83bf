// The fluid scene's live diagnostics (issue 15, compute/fluid/fluid_diagnostics.h, docs/DIAGNOSTICS.md) on the CPU:
// the quantities of hand-made states, the order-preserving bits the maxima use, the CPU backend's sample against an
// independent computation of the same state, its schedule (every K frames, the switch, paused frames, resets), its
// node list, that sampling changes no state, and the track of a series.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/fluid/fluid_cpu_backend.h"
#include "compute/fluid/fluid_diagnostics.h"

namespace graphsim::fluid {
namespace {

namespace fdm = fluid_diagnostics_math;

FluidConfig damBreak(std::int64_t particles, int every) {
  FluidConfig c;
  c.particles = particles;
  c.initial = "dam-break";
  c.solver = FluidSolver::Wcsph; // the diagnostics' figures were worked out on WCSPH's flow
  c.diagnosticsEvery = every;
  return c;
}

// A state of n particles at distinct finite positions, at rest, at rest density.
FluidState handMade(std::size_t n, float rho0) {
  FluidState s;
  for (std::size_t i = 0; i < n; ++i) s.pos.push_back({0.1f * static_cast<float>(i + 1), 0.2f, 0.3f, 0.0f});
  s.vel.assign(n, Float4{});
  s.density.assign(n, rho0);
  return s;
}

// What the definitions say, written out here without fluid_diagnostics.h's helpers: over the finite particles, the
// largest |v|, |rho/rho0 - 1| and rho/rho0 - 1, and their count.
struct Independent {
  std::uint64_t particles = 0;
  double maxSpeed = 0, maxError = 0, maxCompression = -std::numeric_limits<double>::infinity();
};
Independent independent(const FluidState& s, float rho0) {
  Independent r;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const Float4 p = s.pos[i], v = s.vel[i];
    const float rho = s.density[i];
    if (!(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z) && std::isfinite(v.x) && std::isfinite(v.y) &&
          std::isfinite(v.z) && std::isfinite(rho)))
      continue;
    ++r.particles;
    const double vx = v.x, vy = v.y, vz = v.z;
    r.maxSpeed = std::max(r.maxSpeed, std::sqrt(vx * vx + vy * vy + vz * vz));
    const double c = double(rho) / double(rho0) - 1.0;
    r.maxError = std::max(r.maxError, std::fabs(c));
    r.maxCompression = std::max(r.maxCompression, c);
  }
  return r;
}

TEST(FluidDiagnostics, HandMadeStateGivesTheDefinedValues) {
  FluidParams p;
  p.spacing = 0.02f;
  const float m = particleMass(p);
  FluidState s = handMade(4, p.restDensity);
  s.vel[1] = {3.0f, 0.0f, -4.0f, 0.0f};  // |v| = 5
  s.vel[2] = {0.0f, -2.0f, 0.0f, 0.0f};  // |v| = 2
  s.density[0] = 0.97f * p.restDensity;  // -3 %
  s.density[3] = 1.015f * p.restDensity; // +1.5 %
  const FluidDiagnosticSums d = computeFluidDiagnostics(s, p);
  EXPECT_EQ(d.particles, 4u);
  EXPECT_EQ(d.mass, 4.0 * double(m)) << "every particle has the mass m";
  EXPECT_EQ(d.maxSpeed, 5.0);
  EXPECT_DOUBLE_EQ(d.maxDensityDeviation, 1.0 - double(0.97f * p.restDensity) / double(p.restDensity));
  EXPECT_NEAR(d.maxDensityDeviation, 0.03, 1e-6);
  EXPECT_DOUBLE_EQ(d.maxCompression, double(1.015f * p.restDensity) / double(p.restDensity) - 1.0);
  EXPECT_NEAR(d.maxCompression, 0.015, 1e-6);
}

TEST(FluidDiagnostics, CompressionIsSignedWhenEveryParticleIsBelowRestDensity) {
  FluidParams p;
  p.spacing = 0.02f;
  FluidState s = handMade(3, p.restDensity);
  s.density = {0.5f * p.restDensity, 0.9f * p.restDensity, 0.8f * p.restDensity};
  const FluidDiagnosticSums d = computeFluidDiagnostics(s, p);
  EXPECT_NEAR(d.maxCompression, -0.1, 1e-6) << "the least rarefied particle";
  EXPECT_NEAR(d.maxDensityDeviation, 0.5, 1e-6) << "the most rarefied particle";
}

TEST(FluidDiagnostics, ANonFiniteParticleCountsInNone) {
  FluidParams p;
  p.spacing = 0.02f;
  const float m = particleMass(p);
  FluidState s = handMade(5, p.restDensity);
  s.vel[0] = {1.0f, 0.0f, 0.0f, 0.0f};
  s.vel[2].y = std::numeric_limits<float>::quiet_NaN(); // would be the fastest and the densest
  s.density[2] = 10.0f * p.restDensity;
  s.pos[3].z = std::numeric_limits<float>::infinity();
  s.vel[3].x = 100.0f;
  s.density[4] = std::numeric_limits<float>::quiet_NaN();
  const FluidDiagnosticSums d = computeFluidDiagnostics(s, p);
  EXPECT_EQ(d.particles, 2u);
  EXPECT_EQ(d.mass, 2.0 * double(m)) << "mass drops by m per non-finite particle";
  EXPECT_EQ(d.maxSpeed, 1.0);
  EXPECT_EQ(d.maxDensityDeviation, 0.0);
  EXPECT_EQ(d.maxCompression, 0.0);

  for (Float4& v : s.vel) v.x = std::numeric_limits<float>::quiet_NaN();
  const FluidDiagnosticSums none = computeFluidDiagnostics(s, p);
  EXPECT_EQ(none.particles, 0u);
  EXPECT_EQ(none.mass, 0.0);
  EXPECT_EQ(none.maxSpeed, 0.0) << "no particle: maxima 0";
  EXPECT_EQ(none.maxCompression, 0.0);
}

TEST(FluidDiagnostics, OrderedBitsOrderAsTheDoublesAndRoundTrip) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1e3, 1e3);
  std::vector<double> values = {0.0,
                                1.0,
                                -1.0,
                                1e-300,
                                -1e-300,
                                std::numeric_limits<double>::max(),
                                -std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity()};
  for (int i = 0; i < 200; ++i) values.push_back(u(rng));
  for (double a : values) {
    EXPECT_EQ(fdm::fromOrderedBits(fdm::orderedBits(a)), a);
    EXPECT_GT(fdm::orderedBits(a), 0u) << a << ": 0 is kept for 'no value'";
    for (double b : values) EXPECT_EQ(a < b, fdm::orderedBits(a) < fdm::orderedBits(b)) << a << " vs " << b;
  }
}

// An isolated particle sees only itself: rho = m W(0) = m 21 / (2 pi h^3), far below rho0 (no neighbours).
TEST(FluidDiagnostics, DensityErrorOfIsolatedParticlesAfterTheDensityStage) {
  FluidParams p;
  p.spacing = 0.02f;
  FluidState s;
  s.pos = {{0.2f, 0.2f, 0.2f, 0.0f}, {0.6f, 0.5f, 0.4f, 0.0f}}; // 0.5 m apart, h = 0.04 m
  s.vel.assign(2, Float4{});
  s.density.assign(2, 0.0f);
  FluidWorkspace work;
  buildSortedGrid(p, s, work);
  computeDensity(p, s, work.grid);
  const double h = 2.0 * double(p.spacing);
  const double pi = 3.14159265358979323846;
  const double expected = 1.0 - double(particleMass(p)) * 21.0 / (2.0 * pi * h * h * h) / double(p.restDensity);
  const FluidDiagnosticSums d = computeFluidDiagnostics(s, p);
  EXPECT_NEAR(d.maxDensityDeviation, expected, 1e-6);
  EXPECT_NEAR(d.maxCompression, -expected, 1e-6);
  EXPECT_GT(expected, 0.3) << "sanity: an isolated particle lacks most of its density";
}

// Frame k's sample from the CPU backend is the state frame k ended with, as computed here independently.
TEST(FluidDiagnostics, CpuBackendSampleOfFrameKEqualsAnIndependentComputation) {
  FluidCpuBackend cpu(damBreak(4096, 5));
  for (std::uint64_t k = 0; k <= 10; ++k) cpu.stepFrame(k);
  const std::optional<FluidDiagnosticsSample> got = cpu.diagnostics();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->frame, 10u);
  const FluidParams& p = cpu.config().params;
  const Independent want = independent(cpu.state(), p.restDensity);
  EXPECT_EQ(got->sums.particles, 4096u);
  EXPECT_EQ(want.particles, 4096u);
  EXPECT_EQ(got->sums.mass, 4096.0 * double(particleMass(p))) << "mass = N m exactly";
  EXPECT_EQ(got->sums.maxSpeed, want.maxSpeed);
  EXPECT_EQ(got->sums.maxDensityDeviation, want.maxError);
  EXPECT_EQ(got->sums.maxCompression, want.maxCompression);
  EXPECT_GT(got->sums.maxSpeed, 0.5) << "the dam has started to fall after 11 frames";
  EXPECT_LT(got->sums.maxCompression, 0.1) << "WCSPH at the default stiffness compresses by a few % at most";
}

TEST(FluidDiagnostics, CpuBackendSamplesFramesZeroKAndTwoK) {
  FluidCpuBackend cpu(damBreak(2048, 5));
  std::vector<std::uint64_t> sampled;
  for (std::uint64_t k = 0; k < 12; ++k) {
    cpu.stepFrame(k);
    const auto s = cpu.diagnostics();
    if (s && (sampled.empty() || sampled.back() != s->frame)) sampled.push_back(s->frame);
  }
  EXPECT_EQ(sampled, (std::vector<std::uint64_t>{0, 5, 10}));
}

TEST(FluidDiagnostics, TogglingTheNodeOffYieldsNoNewSamples) {
  FluidCpuBackend cpu(damBreak(2048, 5));
  for (std::uint64_t k = 0; k <= 5; ++k) cpu.stepFrame(k);
  ASSERT_EQ(cpu.diagnostics()->frame, 5u);
  const FluidDiagnosticSums before = cpu.diagnostics()->sums;
  cpu.setDiagnosticsEnabled(false);
  EXPECT_FALSE(cpu.diagnosticsEnabled());
  const auto row =
      std::find_if(cpu.nodes().begin(), cpu.nodes().end(), [](const NodeInfo& n) { return n.diagnostics; });
  ASSERT_NE(row, cpu.nodes().end());
  EXPECT_FALSE(row->enabled) << "the node list shows the switch";
  for (std::uint64_t k = 6; k <= 20; ++k) cpu.stepFrame(k);
  ASSERT_TRUE(cpu.diagnostics().has_value()) << "the last sample stays readable";
  EXPECT_EQ(cpu.diagnostics()->frame, 5u) << "no new sample while off";
  EXPECT_EQ(cpu.diagnostics()->sums.maxSpeed, before.maxSpeed);
  cpu.setDiagnosticsEnabled(true);
  for (std::uint64_t k = 21; k <= 24; ++k) cpu.stepFrame(k);
  EXPECT_EQ(cpu.diagnostics()->frame, 5u) << "the series goes on at the next multiple of K";
  cpu.stepFrame(25);
  EXPECT_EQ(cpu.diagnostics()->frame, 25u);
}

TEST(FluidDiagnostics, PausedFramesTakeNoSampleAndTheFirstWaitsForOneThatSimulates) {
  FluidCpuBackend cpu(damBreak(2048, 5));
  cpu.setFrameDt(0.0f);
  cpu.stepFrame(0);
  EXPECT_FALSE(cpu.diagnostics().has_value()) << "frame 0 ran no substep";
  cpu.setFrameDt(1.0f / 60.0f);
  cpu.stepFrame(1);
  ASSERT_TRUE(cpu.diagnostics().has_value());
  EXPECT_EQ(cpu.diagnostics()->frame, 1u) << "a new series' first sample: the first frame that simulates";
  for (std::uint64_t k = 2; k <= 9; ++k) cpu.stepFrame(k);
  cpu.setFrameDt(0.0f);
  cpu.stepFrame(10);
  EXPECT_EQ(cpu.diagnostics()->frame, 5u) << "paused frame 10 does not sample";
}

TEST(FluidDiagnostics, ResetAndReplacedStateStartNewSeries) {
  FluidCpuBackend cpu(damBreak(2048, 5));
  cpu.stepFrame(0);
  const std::uint64_t first = cpu.diagnostics()->series;
  cpu.reset(damBreak(2048, 5));
  EXPECT_FALSE(cpu.diagnostics().has_value()) << "the sample described a state that is gone";
  cpu.stepFrame(3);
  ASSERT_TRUE(cpu.diagnostics().has_value());
  EXPECT_EQ(cpu.diagnostics()->frame, 3u);
  EXPECT_NE(cpu.diagnostics()->series, first);
  const std::uint64_t second = cpu.diagnostics()->series;
  cpu.setState(cpu.state());
  EXPECT_FALSE(cpu.diagnostics().has_value());
  cpu.stepFrame(4);
  EXPECT_EQ(cpu.diagnostics()->frame, 4u);
  EXPECT_NE(cpu.diagnostics()->series, second);
}

TEST(FluidDiagnostics, NodeListHasTheDiagnosticsRowAfterWallsOnlyWhenConfigured) {
  const auto names = [](const FluidCpuBackend& b) {
    std::vector<std::string> out;
    for (const NodeInfo& n : b.nodes()) out.push_back(n.name);
    return out;
  };
  FluidCpuBackend cpu(damBreak(2048, 0));
  std::vector<std::string> without = names(cpu);
  EXPECT_EQ(std::count(without.begin(), without.end(), "diagnostics"), 0);
  for (std::uint64_t k = 0; k < 3; ++k) cpu.stepFrame(k);
  EXPECT_FALSE(cpu.diagnostics().has_value()) << "K = 0: no sample";
  cpu.reset(damBreak(2048, 10));
  const std::vector<std::string> with = names(cpu);
  const auto walls = std::find(with.begin(), with.end(), "walls");
  ASSERT_NE(walls, with.end());
  ASSERT_NE(walls + 1, with.end());
  EXPECT_EQ(*(walls + 1), "diagnostics");
  EXPECT_EQ(with.size(), without.size() + 1);
  const NodeInfo& row = cpu.nodes()[static_cast<std::size_t>(walls + 1 - with.begin())];
  EXPECT_TRUE(row.diagnostics);
  EXPECT_TRUE(row.togglable);
  EXPECT_EQ(row.step, -1);
}

TEST(FluidDiagnostics, SamplingChangesNoState) {
  FluidCpuBackend with(damBreak(2048, 1)), without(damBreak(2048, 0));
  for (std::uint64_t k = 0; k < 8; ++k) {
    with.stepFrame(k);
    without.stepFrame(k);
  }
  EXPECT_EQ(with.state().pos, without.state().pos);
  EXPECT_EQ(with.state().vel, without.state().vel);
  EXPECT_EQ(with.diagnostics()->frame, 7u);
}

TEST(FluidDiagnostics, BadIntervalsAreRefusedNamingTheField) {
  for (int every : {-1, kMaxDiagnosticsEvery + 1}) {
    try {
      validateFluidConfig(damBreak(2048, every));
      ADD_FAILURE() << every << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("diagnosticsEvery = " + std::to_string(every)), std::string::npos)
          << e.what();
    }
  }
  EXPECT_NO_THROW(validateFluidConfig(damBreak(2048, kMaxDiagnosticsEvery)));
}

FluidDiagnosticsSample sample(std::uint64_t frame, std::uint64_t series, double mass, double error, double speed) {
  FluidDiagnosticsSample s;
  s.frame = frame;
  s.series = series;
  s.sums.mass = mass;
  s.sums.particles = 10;
  s.sums.maxDensityDeviation = error;
  s.sums.maxCompression = error / 2;
  s.sums.maxSpeed = speed;
  return s;
}

TEST(FluidDiagnostics, TrackKeepsFirstLastAndPeaksOfTheSeries) {
  FluidDiagnosticsTrack t;
  EXPECT_FALSE(t.update(std::nullopt));
  EXPECT_TRUE(t.summary().empty());
  EXPECT_TRUE(t.update(sample(0, 1, 10.0, 0.1, 1.0)));
  EXPECT_FALSE(t.update(sample(0, 1, 10.0, 0.1, 1.0))) << "the same sample again";
  EXPECT_TRUE(t.update(sample(5, 1, 10.0, 0.4, 3.0)));
  EXPECT_TRUE(t.update(sample(10, 1, 9.0, 0.2, 2.0)));
  EXPECT_EQ(t.samples(), 3u);
  EXPECT_EQ(t.first()->frame, 0u);
  EXPECT_EQ(t.last()->frame, 10u);
  EXPECT_EQ(t.peak().maxDensityDeviation, 0.4);
  EXPECT_EQ(t.peak().maxCompression, 0.2);
  EXPECT_EQ(t.peak().maxSpeed, 3.0);
  EXPECT_EQ(t.peak().mass, 9.0) << "the smallest mass";
  EXPECT_DOUBLE_EQ(t.massChange(), -0.1);
  const std::string line = t.summary();
  EXPECT_EQ(line.rfind("diagnostics: 3 samples, frames 0..10: mass 10 -> 9 kg (change -1.000e-01), ", 0), 0u) << line;
  EXPECT_NE(line.find("max density deviation 10 % -> 20 % (peak 40 %)"), std::string::npos) << line;
  EXPECT_NE(line.find("max speed 1 -> 2 m/s (peak 3)"), std::string::npos) << line;

  EXPECT_TRUE(t.update(sample(12, 2, 5.0, 0.01, 0.5))) << "another series starts over";
  EXPECT_EQ(t.samples(), 1u);
  EXPECT_EQ(t.first()->frame, 12u);
  EXPECT_EQ(t.peak().maxSpeed, 0.5);
  EXPECT_EQ(t.massChange(), 0.0);
}

} // namespace
} // namespace graphsim::fluid
