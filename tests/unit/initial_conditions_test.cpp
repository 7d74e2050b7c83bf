// Initial conditions: what each named setup promises (masses, centre, shape, units), the leapfrog start, and the
// inputs that are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "compute/nbody/nbody_cpu_backend.h"
#include "compute/nbody/nbody_initial_conditions.h"
#include "unit_helpers.h"

namespace graphsim {
namespace {

using test::gravityOnly;

struct Moments {
  double mass = 0, com[3] = {0, 0, 0}, comVel[3] = {0, 0, 0};
};

Moments moments(const BodyState& s, std::size_t begin, std::size_t end) {
  Moments m;
  for (std::size_t i = begin; i < end; ++i) {
    const double w = s.posMass[i].w;
    m.mass += w;
    m.com[0] += w * s.posMass[i].x;
    m.com[1] += w * s.posMass[i].y;
    m.com[2] += w * s.posMass[i].z;
    m.comVel[0] += w * s.vel[i].x;
    m.comVel[1] += w * s.vel[i].y;
    m.comVel[2] += w * s.vel[i].z;
  }
  for (int k = 0; k < 3; ++k) {
    m.com[k] /= m.mass;
    m.comVel[k] /= m.mass;
  }
  return m;
}

double distance(const Float4& p, double x, double y, double z) { return std::hypot(p.x - x, p.y - y, p.z - z); }

TEST(InitialConditions, GalaxyPairHasUnitMassZeroCentreAndTwoClusters) {
  const BodyState s = makeInitialConditions(gravityOnly("galaxy-pair", 2001));
  ASSERT_EQ(s.size(), 2001u);
  const std::size_t first = 1001; // the first galaxy takes the odd body
  const Moments all = moments(s, 0, s.size()), a = moments(s, 0, first), b = moments(s, first, s.size());
  EXPECT_NEAR(all.mass, 1.0, 1e-5);
  EXPECT_NEAR(a.mass, 0.5, 1e-5);
  EXPECT_NEAR(b.mass, 0.5, 1e-5);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(all.com[k], 0.0, 1e-5) << k;
    EXPECT_NEAR(all.comVel[k], 0.0, 1e-6) << k;
  }
  // Each galaxy sits at its own centre, approaching the other, and no body strays to the other one: the disks are
  // truncated at radius 3 and 3 sigma of thickness adds < 0.1 (measured farthest 3.03).
  EXPECT_NEAR(a.com[0], 3.0, 1e-5);
  EXPECT_NEAR(a.com[1], 0.5, 1e-5);
  EXPECT_NEAR(b.com[0], -3.0, 1e-5);
  EXPECT_NEAR(a.comVel[0], -0.25, 1e-6);
  EXPECT_NEAR(b.comVel[0], 0.25, 1e-6);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool inFirst = i < first;
    EXPECT_LT(distance(s.posMass[i], inFirst ? 3.0 : -3.0, inFirst ? 0.5 : -0.5, 0.0), 3.2) << i;
  }
  // Each galaxy's heaviest body is its centre (20% of the galaxy's mass).
  EXPECT_NEAR(s.posMass[0].w, 0.1f, 1e-6f);
  EXPECT_NEAR(s.posMass[first].w, 0.1f, 1e-6f);
}

TEST(InitialConditions, GalaxyDisksAreThinTiltedAndRotating) {
  const BodyState s = makeInitialConditions(gravityOnly("galaxy-pair", 4000));
  auto spin = [&](std::size_t begin, std::size_t end, double out[3]) {
    const Float4 c = s.posMass[begin], cv = s.vel[begin]; // the central body
    double l[3] = {0, 0, 0};
    for (std::size_t i = begin + 1; i < end; ++i) {
      const double x = s.posMass[i].x - c.x, y = s.posMass[i].y - c.y, z = s.posMass[i].z - c.z;
      const double vx = s.vel[i].x - cv.x, vy = s.vel[i].y - cv.y, vz = s.vel[i].z - cv.z;
      l[0] += y * vz - z * vy;
      l[1] += z * vx - x * vz;
      l[2] += x * vy - y * vx;
    }
    const double n = std::hypot(l[0], l[1], l[2]);
    double thickness = 0;
    for (std::size_t i = begin + 1; i < end; ++i) {
      const double h =
          ((s.posMass[i].x - c.x) * l[0] + (s.posMass[i].y - c.y) * l[1] + (s.posMass[i].z - c.z) * l[2]) / n;
      thickness += h * h;
    }
    for (int k = 0; k < 3; ++k) out[k] = l[k] / n;
    return std::sqrt(thickness / double(end - begin - 1));
  };
  double la[3], lb[3];
  // Measured rms height 0.031 and 0.030 (the disk is drawn with sigma_z = 0.03 about its spin plane).
  EXPECT_NEAR(spin(0, 2000, la), 0.03, 0.005);
  EXPECT_NEAR(spin(2000, 4000, lb), 0.03, 0.005);
  // Spins: +z tilted 20 deg about x, and -35 deg about y.
  EXPECT_NEAR(la[2], std::cos(20.0 * std::numbers::pi / 180.0), 0.01);
  EXPECT_NEAR(lb[2], std::cos(35.0 * std::numbers::pi / 180.0), 0.01);
  EXPECT_LT(la[0] * lb[0] + la[1] * lb[1] + la[2] * lb[2], std::cos(30.0 * std::numbers::pi / 180.0));
}

TEST(InitialConditions, GalaxyDisksStayCoherentForThreeHundredFrames) {
  // Default parameters and stage list, 300 frames (t = 0.45): no disk body leaves its galaxy. Measured farthest body
  // from its central body: 2.98 and 3.01 (the disks are cut at 3); bound 3.5.
  NBodyConfig config;
  config.bodies = 2048;
  NBodyCpuBackend backend(config);
  for (int i = 0; i < 300; ++i) backend.step();
  const BodyState& s = backend.state();
  for (std::size_t g = 0; g < 2; ++g) {
    const std::size_t begin = g * 1024, end = begin + 1024;
    const Float4 c = s.posMass[begin];
    for (std::size_t i = begin + 1; i < end; ++i) {
      ASSERT_LT(distance(s.posMass[i], c.x, c.y, c.z), 3.5) << "galaxy " << g << " body " << i;
    }
  }
}

TEST(InitialConditions, PlummerIsInStandardNbodyUnits) {
  // Standard units: M = 1, E = -1/4, virial ratio 2K/|W| = 1, half-mass radius 0.769. With 4096 bodies sampling
  // noise is a few percent (measured E = -0.2516, 2K/|W| = 0.997, r_half = 0.764).
  NBodyConfig config = gravityOnly("plummer", 4096, 5);
  config.params.softening = 0.0f;
  const BodyState s = makeInitialConditions(config);
  const Moments m = moments(s, 0, s.size());
  EXPECT_NEAR(m.mass, 1.0, 1e-5);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(m.com[k], 0.0, 1e-6);
    EXPECT_NEAR(m.comVel[k], 0.0, 1e-6);
  }
  for (const Float4& p : s.posMass) EXPECT_EQ(p.w, s.posMass[0].w);
  config.params.dt = 0.0f; // measure() then reads the velocities as they are
  const Diagnostics d = measure(s, config.params);
  EXPECT_NEAR(d.total(), -0.25, 0.0125);
  EXPECT_NEAR(2.0 * d.kinetic / -d.potential, 1.0, 0.08);
  std::vector<float> radii;
  for (const Float4& p : s.posMass) radii.push_back(test::length(p));
  std::nth_element(radii.begin(), radii.begin() + 2048, radii.end());
  EXPECT_NEAR(radii[2048], 0.769, 0.05);
}

TEST(InitialConditions, TwoBodyIsACircularOrbit) {
  const BodyState s = makeInitialConditions(gravityOnly("two-body", 2));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s.posMass[0], (Float4{0.5f, 0, 0, 0.5f}));
  EXPECT_EQ(s.posMass[1], (Float4{-0.5f, 0, 0, 0.5f}));
  EXPECT_EQ(s.vel[0], (Float4{0, -0.5f, 0, 0}));
  EXPECT_EQ(s.vel[1], (Float4{0, 0.5f, 0, 0}));
}

TEST(InitialConditions, StartLeapfrogGoesBackHalfAStep) {
  // Body 0 of the two-body orbit feels a(0) = (-0.5, 0, 0); v(-dt/2) = v(0) - a dt/2 = (0.0025, -0.5, 0) at dt = 0.01.
  NBodyParams params;
  params.dt = 0.01f;
  params.softening = 0.0f;
  BodyState s = makeInitialConditions(gravityOnly("two-body", 2));
  std::vector<Float4> accel;
  startLeapfrog(s, params, accel);
  EXPECT_FLOAT_EQ(accel[0].x, -0.5f);
  EXPECT_FLOAT_EQ(accel[1].x, 0.5f);
  EXPECT_FLOAT_EQ(s.vel[0].x, 0.0025f);
  EXPECT_FLOAT_EQ(s.vel[0].y, -0.5f);
  EXPECT_FLOAT_EQ(s.vel[1].x, -0.0025f);
  // measure() re-synchronises: K = 2 * 1/2 * 1/2 * 1/4 = 1/8, U = -G m m / r = -1/4.
  const Diagnostics d = measure(s, params);
  EXPECT_NEAR(d.kinetic, 0.125, 1e-7);
  EXPECT_NEAR(d.potential, -0.25, 1e-7);
  EXPECT_NEAR(d.momentum[0], 0.0, 1e-12);
}

TEST(InitialConditions, UnknownNamesAndBadCountsAreRefused) {
  EXPECT_THROW(makeInitialConditions(gravityOnly("spiral", 10)), std::invalid_argument);
  EXPECT_THROW(makeInitialConditions(gravityOnly("galaxy-pair", -1)), std::invalid_argument);
  EXPECT_THROW(makeInitialConditions(gravityOnly("plummer", kMaxBodies + 1)), std::invalid_argument);
  for (std::int64_t n : {0, 1, 3}) {
    EXPECT_THROW(makeInitialConditions(gravityOnly("two-body", n)), std::invalid_argument);
  }
  for (const char* name : {"galaxy-pair", "plummer"}) {
    EXPECT_EQ(makeInitialConditions(gravityOnly(name, 0)).size(), 0u) << name;
    const BodyState one = makeInitialConditions(gravityOnly(name, 1));
    ASSERT_EQ(one.size(), 1u);
    EXPECT_FLOAT_EQ(one.posMass[0].w, 1.0f) << name; // a lone body carries all the mass
  }
  EXPECT_EQ(kInitialConditionNames[0], NBodyConfig{}.initial); // the default comes first
}

// makeDisk samples 70001 bodies in chunks, with a tabulated first part of the radius bisection and a parallel
// second pass: the bodies must be exactly those of the plain sequential loop it replaced (whose bytes this hash is
// of, glibc's libm on x86-64). A change here changes every seeded scene, golden image and reference run.
TEST(InitialConditions, GalaxyPairBytesMatchTheSequentialSampler) {
  NBodyConfig c;
  c.bodies = 70001;
  c.seed = 5;
  const BodyState s = makeInitialConditions(c);
  std::uint64_t h = 1469598103934665603ull; // FNV-1a over posMass and vel of each body in turn
  const auto eat = [&](const Float4& f) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(&f);
    for (std::size_t i = 0; i < sizeof f; ++i) {
      h ^= bytes[i];
      h *= 1099511628211ull;
    }
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    eat(s.posMass[i]);
    eat(s.vel[i]);
  }
  EXPECT_EQ(h, 0xc50c793369281e66ull);
}

} // namespace
} // namespace graphsim
