// One stage at a time: each CPU stage loop against its equation on small hand-made states, and the stage toggles
// as the backend applies them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "compute/nbody/nbody_cpu_backend.h"
#include "compute/nbody/nbody_cpu_stages.h"
#include "compute/nbody/nbody_initial_conditions.h"
#include "compute/nbody/nbody_math.h"
#include "unit_helpers.h"

namespace graphsim {
namespace {

using test::gravityOnly;

// The forces equation as the plainest loop: one body at a time, j ascending. Built without the library's
// vectorisation flags, so agreement shows that those flags and the lane blocking change no bit.
std::vector<Float4> scalarForces(const std::vector<Float4>& p, const NBodyParams& params) {
  std::vector<Float4> a(p.size());
  const float eps2 = params.softening * params.softening;
  for (std::size_t i = 0; i < p.size(); ++i) {
    float ax = 0, ay = 0, az = 0;
    for (std::size_t j = 0; j < p.size(); ++j) {
      const float dx = p[j].x - p[i].x, dy = p[j].y - p[i].y, dz = p[j].z - p[i].z;
      const float w = nbody_math::gravityWeight(dx, dy, dz, p[j].w, eps2);
      ax += dx * w;
      ay += dy * w;
      az += dz * w;
    }
    a[i] = {params.G * ax, params.G * ay, params.G * az, 0.0f};
  }
  return a;
}

TEST(Stages, ForcesMatchScalarLoopBitExactly) {
  for (float softening : {0.025f, 0.0f}) {            // 0: the j == i term must add 0, not NaN
    NBodyConfig config = gravityOnly("plummer", 203); // not a multiple of the 16-body lane block
    config.params.softening = softening;
    config.params.G = 1.5f;
    const BodyState state = makeInitialConditions(config);
    cpu::ForceScratch scratch;
    std::vector<Float4> accel;
    cpu::computeForces(state.posMass, config.params, scratch, accel);
    const std::vector<Float4> expected = scalarForces(state.posMass, config.params);
    ASSERT_EQ(accel.size(), expected.size());
    for (std::size_t i = 0; i < accel.size(); ++i) {
      ASSERT_TRUE(std::isfinite(accel[i].x)) << "body " << i << " softening " << softening;
      ASSERT_EQ(accel[i], expected[i]) << "body " << i << " softening " << softening;
    }
  }
}

#if defined(_OPENMP)
TEST(Stages, ForcesDoNotDependOnThreadCount) {
  const NBodyConfig config = gravityOnly("galaxy-pair", 1000);
  const BodyState state = makeInitialConditions(config);
  const int threads = omp_get_max_threads();
  std::vector<Float4> one, three;
  cpu::ForceScratch scratch;
  omp_set_num_threads(1);
  cpu::computeForces(state.posMass, config.params, scratch, one);
  omp_set_num_threads(3); // an uneven split of the 63 blocks
  cpu::computeForces(state.posMass, config.params, scratch, three);
  omp_set_num_threads(threads);
  EXPECT_TRUE(one == three);
}
#endif

TEST(Stages, DisablingIntegrateFreezesPositionsBitExactly) {
  NBodyConfig config; // default stage list plus attractor and damping: they still run and change velocities
  config.bodies = 500;
  test::enable(config, NBodyStage::Attractor);
  test::enable(config, NBodyStage::Damping);
  NBodyCpuBackend backend(config);
  backend.step();
  backend.setStageEnabled(NBodyStage::Integrate, false);
  const BodyState frozen = backend.state();
  for (int i = 0; i < 10; ++i) backend.step();
  EXPECT_TRUE(backend.state().posMass == frozen.posMass);
  EXPECT_FALSE(backend.state().vel == frozen.vel); // the other stages did run
  backend.setStageEnabled(NBodyStage::Integrate, true);
  backend.step();
  EXPECT_FALSE(backend.state().posMass == frozen.posMass); // and integrate resumes
}

TEST(Stages, DisabledForcesKeepLastAcceleration) {
  // With forces off, integrate keeps kicking with the accel of the last forces run, so every step adds the same
  // a * dt to a velocity: the second difference of v over steps is rounding only (measured 4.7e-10 with |v| <= 1.3).
  // With forces on it is the change of a over a step times dt (measured 9e-4), far above the bound.
  auto secondDifference = [](bool forces) {
    NBodyCpuBackend backend(gravityOnly("plummer", 64));
    backend.step();
    backend.setStageEnabled(NBodyStage::Forces, forces);
    std::vector<BodyState> s;
    for (int i = 0; i < 3; ++i) {
      s.push_back(backend.state());
      backend.step();
    }
    float worst = 0;
    for (std::size_t i = 0; i < s[0].size(); ++i) {
      worst = std::max(worst, std::abs((s[2].vel[i].x - s[1].vel[i].x) - (s[1].vel[i].x - s[0].vel[i].x)));
      worst = std::max(worst, std::abs((s[2].vel[i].y - s[1].vel[i].y) - (s[1].vel[i].y - s[0].vel[i].y)));
    }
    return worst;
  };
  const float off = secondDifference(false), on = secondDifference(true);
  EXPECT_LT(off, 1e-7f);
  EXPECT_GT(on, 1e-6f);
}

TEST(Stages, DampingReducesKineticEnergy) {
  NBodyConfig config = gravityOnly("plummer", 128);
  BodyState state = makeInitialConditions(config);
  const double before = test::storedKinetic(state);
  NBodyParams params;
  params.damping = 2.0f;
  params.dt = 0.01f;
  const float f = dampingFactor(params);
  EXPECT_FLOAT_EQ(f, std::exp(-0.02f));
  cpu::damp(state.vel, f);
  EXPECT_NEAR(test::storedKinetic(state), before * f * f, 1e-6 * before); // KE scales with f^2

  // Through the backend: the same run with damping on ends with less kinetic energy than with it off.
  NBodyConfig damped = config;
  test::enable(damped, NBodyStage::Damping);
  damped.params.damping = 5.0f;
  NBodyCpuBackend withDamping(damped), without(config);
  for (int i = 0; i < 50; ++i) {
    withDamping.step();
    without.step();
  }
  EXPECT_LT(test::storedKinetic(withDamping.state()), 0.8 * test::storedKinetic(without.state()));
}

TEST(Stages, BoundaryKeepsBodiesInsideAndReflectsOutwardVelocity) {
  const float radius = 2.0f;
  std::vector<Float4> pos = {{3, 0, 0, 1}, {0, -4, 3, 1}, {1, 1, 1, 1}, {0, 0, 2.5f, 1}};
  std::vector<Float4> vel = {{1, 2, 0, 0}, {0, -1, 0.5f, 0}, {5, 5, 5, 0}, {0, 1, -1, 0}};
  const std::vector<Float4> pos0 = pos, vel0 = vel;
  cpu::applyBoundary(pos, vel, radius);
  for (const Float4& p : pos) EXPECT_LE(test::length(p), radius + 1e-5f);
  // Body 0 leaves along +x: the normal component flips, the tangential one stays.
  EXPECT_FLOAT_EQ(pos[0].x, 2.0f);
  EXPECT_FLOAT_EQ(vel[0].x, -1.0f);
  EXPECT_FLOAT_EQ(vel[0].y, 2.0f);
  // Body 1 at (0, -4, 3), n = (0, -0.8, 0.6): vn = 0.8 + 0.3 = 1.1 > 0, v - 2 vn n = (0, 0.76, -0.82).
  EXPECT_NEAR(vel[1].y, 0.76f, 1e-6f);
  EXPECT_NEAR(vel[1].z, -0.82f, 1e-6f);
  EXPECT_LE(vel[1].y * pos[1].y + vel[1].z * pos[1].z, 0.0f);
  // Body 2 is inside: untouched, bit for bit.
  EXPECT_EQ(pos[2], pos0[2]);
  EXPECT_EQ(vel[2], vel0[2]);
  // Body 3 is outside but already moving inwards: moved onto the sphere, velocity kept.
  EXPECT_FLOAT_EQ(pos[3].z, 2.0f);
  EXPECT_EQ(vel[3], vel0[3]);

  // Through the backend with a boundary well inside the initial sphere: every body ends within R.
  NBodyConfig config = gravityOnly("plummer", 256);
  test::enable(config, NBodyStage::Boundary);
  config.params.boundaryRadius = 0.5f;
  NBodyCpuBackend backend(config);
  for (int i = 0; i < 20; ++i) backend.step();
  for (const Float4& p : backend.state().posMass) EXPECT_LE(test::length(p), 0.5f + 1e-5f);
}

TEST(Stages, ColourIsInUnitRangeAndMonotoneInSpeed) {
  std::vector<Float4> vel;
  for (int i = 0; i <= 100; ++i) vel.push_back({0.03f * float(i), 0.01f * float(i), 0, 0});
  std::vector<float> colour;
  cpu::computeColour(vel, 1.0f, colour);
  ASSERT_EQ(colour.size(), vel.size());
  EXPECT_EQ(colour.front(), 0.0f);
  EXPECT_EQ(colour.back(), 1.0f); // |v| = 3.16: clamped
  for (std::size_t i = 0; i < colour.size(); ++i) {
    EXPECT_GE(colour[i], 0.0f);
    EXPECT_LE(colour[i], 1.0f);
    if (i > 0) {
      EXPECT_GE(colour[i], colour[i - 1]);
    }
  }
  cpu::computeColour({{1, 0, 0, 0}}, 1.0f, colour);
  EXPECT_FLOAT_EQ(colour[0], 0.5f); // |v| * scale / 2
  cpu::computeColour({{1, 0, 0, 0}}, 0.5f, colour);
  EXPECT_FLOAT_EQ(colour[0], 0.25f);
}

TEST(Stages, AttractorPullsBodyAtRestTowardsItsPosition) {
  NBodyParams params;
  params.attractorPos[0] = 1.0f;
  params.attractorPos[1] = 2.0f;
  params.attractorStrength = 3.0f;
  params.dt = 0.01f;
  std::vector<Float4> pos = {{1, 0, 0, 1}}, vel = {{0, 0, 0, 0}};
  cpu::applyAttractor(pos, vel, params);
  // d = (0, 2, 0): kick = S dt d / (4 + 0.25^2)^(3/2).
  const double expected = 3.0 * 0.01 * 2.0 / std::pow(4.0 + 0.0625, 1.5);
  EXPECT_EQ(vel[0].x, 0.0f);
  EXPECT_NEAR(vel[0].y, expected, 1e-7);
  EXPECT_EQ(vel[0].z, 0.0f);

  // Through the backend, attractor and integrate only: a body at rest at (2, 0, 0) moves towards p = (0, 0, 0).
  NBodyConfig config = gravityOnly("two-body", 2);
  test::enable(config, NBodyStage::Forces, false);
  test::enable(config, NBodyStage::Attractor);
  NBodyCpuBackend backend(config);
  backend.setState({{{2, 0, 0, 0.5f}, {-2, 0, 0, 0.5f}}, {{}, {}}});
  for (int i = 0; i < 100; ++i) backend.step();
  EXPECT_LT(backend.state().posMass[0].x, 2.0f);
  EXPECT_GT(backend.state().posMass[0].x, 0.0f);
  EXPECT_GT(backend.state().posMass[1].x, -2.0f);
}

// The soak restarts its CPU replay from a CUDA state downloaded while forces may be off: the given accelerations,
// not ones recomputed from the positions, must drive the next kick.
TEST(Stages, SetStateWithAccelerationsUsesThem) {
  NBodyConfig config = gravityOnly("two-body", 2);
  test::enable(config, NBodyStage::Forces, false);
  NBodyCpuBackend backend(config);
  const BodyState state{{{2, 0, 0, 0.5f}, {-2, 0, 0, 0.5f}}, {{}, {}}};
  backend.setState(state);
  EXPECT_LT(backend.downloadAccelerations()[0].x, 0.0f); // recomputed: body 0 is pulled towards body 1
  const std::vector<Float4> given{{0, 1, 0, 0}, {0, -1, 0, 0}};
  backend.setState(state, given);
  EXPECT_EQ(backend.downloadAccelerations(), given);
  backend.step();
  EXPECT_GT(backend.state().vel[0].y, 0.0f); // the kick used the given acceleration (forces off: not recomputed)
  EXPECT_EQ(backend.state().vel[0].x, 0.0f);
  EXPECT_THROW(backend.setState(state, {{0, 0, 0, 0}}), std::invalid_argument);
}

TEST(Stages, WriteRenderPacksPositionAndColour) {
  static_assert(sizeof(Float4) == 16 && alignof(Float4) == 16, "render buffer layout is 4 packed floats");
  NBodyConfig config;
  config.bodies = 300;
  NBodyCpuBackend backend(config);
  backend.step();
  BodyState state;
  std::vector<float> colour;
  backend.download(state, colour);
  ASSERT_EQ(colour.size(), state.size());
  std::vector<Float4> render(state.size(), Float4{-1, -1, -1, -1});
  backend.writeRender(render.data());
  for (std::size_t i = 0; i < state.size(); ++i) {
    const Float4 expected = {state.posMass[i].x, state.posMass[i].y, state.posMass[i].z, colour[i]};
    ASSERT_EQ(render[i], expected) << i;
  }
}

} // namespace
} // namespace graphsim
