// Blow-up detection on the CPU backend (issue 12): the first non-finite position, velocity or acceleration is
// reported with its frame and the earliest stage instance that wrote it; a healthy run reports nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "compute/nbody/nbody_cpu_backend.h"
#include "compute/nbody/nbody_cpu_stages.h"
#include "tests/support/blow_up_checks.h"
#include "unit_helpers.h"

namespace graphsim {
namespace {

using test::expectBlowUp;
using test::gravityOnly;
using test::kExplodingDamping;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(NBodyBlowUp, FirstNonFiniteFindsInfAndNaNInXyzOnly) {
  std::vector<Float4> v(37, Float4{1, -2, 3, 4});
  EXPECT_EQ(cpu::firstNonFinite(v), v.size());
  EXPECT_EQ(cpu::firstNonFinite({}), 0u);
  v[3].w = kNaN; // mass, or an unused lane: not a position or velocity component
  EXPECT_EQ(cpu::firstNonFinite(v), v.size());
  v[30].z = -kInf;
  EXPECT_EQ(cpu::firstNonFinite(v), 30u);
  v[12].y = kNaN;
  EXPECT_EQ(cpu::firstNonFinite(v), 12u);
  v[0].x = std::numeric_limits<float>::max(); // large is not non-finite
  EXPECT_EQ(cpu::firstNonFinite(v), 12u);
}

TEST(NBodyBlowUp, HealthyRunReportsNothing) {
  NBodyConfig config = gravityOnly("plummer", 256, 5);
  for (NBodyStage s : {NBodyStage::Attractor, NBodyStage::Damping, NBodyStage::Boundary, NBodyStage::Colour})
    test::enable(config, s);
  config.substeps = 2;
  NBodyCpuBackend backend(config);
  for (int k = 0; k < 200; ++k) backend.step();
  EXPECT_FALSE(backend.blowUp().has_value()) << describe(*backend.blowUp());
  for (const Float4& p : backend.state().posMass) ASSERT_TRUE(std::isfinite(p.x + p.y + p.z));
}

TEST(NBodyBlowUp, NaNVelocityIsReportedAtItsFrameByIntegrate) {
  NBodyCpuBackend backend(gravityOnly("plummer", 64));
  for (int k = 0; k < 3; ++k) backend.step(); // frames 0, 1, 2
  ASSERT_FALSE(backend.blowUp().has_value());
  BodyState state = backend.state();
  state.vel[5].x = kNaN;
  backend.setState(state);
  ASSERT_FALSE(backend.blowUp().has_value()) << "setState itself runs no stage";
  backend.step(); // frame 3: forces reads only positions (finite); integrate kicks the NaN velocity
  expectBlowUp(backend.blowUp(), 3, NBodyStage::Integrate, 0, "non-finite velocity, body 5");

  // The first report wins: later frames are non-finite everywhere (forces included) and change nothing.
  for (int k = 0; k < 3; ++k) backend.step();
  expectBlowUp(backend.blowUp(), 3, NBodyStage::Integrate, 0, "velocity");

  backend.reset(backend.config());
  EXPECT_FALSE(backend.blowUp().has_value()) << "reset starts a new state";
  backend.step();
  EXPECT_FALSE(backend.blowUp().has_value());
}

TEST(NBodyBlowUp, CoincidentBodiesWithTinySofteningBlowUpInForces) {
  // Below the scene files' bound (kMinSoftening), set directly: eps^2 = 1e-30 makes the pair weight m / eps^3
  // overflow to inf, and d * w = 0 * inf = NaN for bodies at the same place.
  NBodyConfig config = gravityOnly("two-body", 2);
  config.params.softening = 1e-15f;
  ASSERT_LT(config.params.softening, kMinSoftening);
  NBodyCpuBackend backend(config);
  BodyState state;
  state.posMass = {{0.5f, 0, 0, 0.5f}, {0.5f, 0, 0, 0.5f}};
  state.vel = {{0, 0.1f, 0, 0}, {0, -0.1f, 0, 0}};
  backend.setState(state);
  backend.step();
  expectBlowUp(backend.blowUp(), 0, NBodyStage::Forces, 0, "non-finite acceleration, body 0");
}

TEST(NBodyBlowUp, EarliestStageInstanceWinsAcrossSubsteps) {
  // The exploding damping factor makes damping#0 write inf first; forces#1 and integrate#1 follow in the same frame,
  // earlier in stage order but later in the frame. The report must name damping#0.
  NBodyConfig config = gravityOnly("plummer", 64);
  test::enable(config, NBodyStage::Damping);
  config.substeps = 3;
  NBodyCpuBackend backend(config);
  backend.step();
  backend.step();
  NBodyParams params = backend.config().params;
  params.damping = kExplodingDamping;
  ASSERT_TRUE(std::isinf(dampingFactor(params)));
  backend.setParams(params);
  backend.step();
  expectBlowUp(backend.blowUp(), 2, NBodyStage::Damping, 0, "non-finite velocity");

  // An overflow that appears only in the second substep: a massless body drifting at 2e38 per unit time reaches
  // 4e38 (> FLT_MAX) in integrate#1.
  NBodyConfig drift = gravityOnly("two-body", 2);
  drift.substeps = 2;
  drift.params.dt = 1.0f;
  NBodyCpuBackend runaway(drift);
  BodyState state;
  state.posMass = {{0, 0, 0, 1.0f}, {0, 0, 0.5f, 0.0f}};
  state.vel = {{0, 0, 0, 0}, {2e38f, 0, 0, 0}};
  runaway.setState(state);
  runaway.step();
  expectBlowUp(runaway.blowUp(), 0, NBodyStage::Integrate, 1, "non-finite position, body 1");
}

TEST(NBodyBlowUp, DisabledStagesAreNeitherRunNorBlamed) {
  // Forces off: a NaN position is first written by integrate's drift (x + v dt), not by a forces stage that did not
  // run. The accelerations are taken as given (finite), so the velocity stays finite.
  NBodyConfig config = gravityOnly("plummer", 32);
  NBodyCpuBackend backend(config);
  backend.setStageEnabled(NBodyStage::Forces, false);
  BodyState state = backend.state();
  std::vector<Float4> accel = backend.downloadAccelerations();
  state.posMass[7].y = kNaN;
  backend.setState(state, accel);
  backend.step();
  expectBlowUp(backend.blowUp(), 0, NBodyStage::Integrate, 0, "non-finite position, body 7");
}

TEST(NBodyBlowUp, StepFrameReportsTheFrameLoopsIndex) {
  NBodyCpuBackend backend(gravityOnly("plummer", 16));
  backend.stepFrame(40); // the loop skipped frames while paused
  BodyState state = backend.state();
  state.vel[0].z = kInf;
  backend.setState(state);
  backend.stepFrame(41);
  expectBlowUp(backend.blowUp(), 41, NBodyStage::Integrate, 0, "velocity");

  NBodyCpuBackend counted(gravityOnly("plummer", 16));
  counted.stepFrame(9);
  state = counted.state();
  state.vel[0].z = kInf;
  counted.setState(state);
  counted.step(); // step() continues after the last stepFrame
  expectBlowUp(counted.blowUp(), 10, NBodyStage::Integrate, 0, "velocity");
}

TEST(NBodyBlowUp, DescribeNamesFrameStageInstanceAndWhat) {
  const NBodyBlowUp b{12, NBodyStage::Integrate, 1, "non-finite velocity"};
  EXPECT_EQ(describe(b), "frame 12, stage integrate#1: non-finite velocity");
  EXPECT_EQ(describe(NBodyBlowUp{0, NBodyStage::Forces, 0, "non-finite acceleration"}),
            "frame 0, stage forces: non-finite acceleration");
}

} // namespace
} // namespace graphsim
