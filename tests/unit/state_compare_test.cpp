// compareStates (compute/nbody/nbody_state_compare.h), which the soak's checkpoints and the GPU tests judge CUDA
// against the CPU with: its figures on hand-made states, and a NaN that must fail every tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "compute/nbody/nbody_state_compare.h"

namespace graphsim {
namespace {

// n bodies on the x axis at 0, 1, ..., n-1, at rest.
BodyState line(int n) {
  BodyState s;
  for (int i = 0; i < n; ++i) {
    s.posMass.push_back({float(i), 0.0f, 0.0f, 1.0f});
    s.vel.push_back({});
  }
  return s;
}

TEST(CompareStates, EqualStatesAreBitIdenticalWithTheirScale) {
  const StateDifference d = compareStates(line(4), line(4));
  EXPECT_TRUE(d.sameSize);
  EXPECT_TRUE(d.bitIdentical);
  EXPECT_EQ(d.maxAbs, 0.0);
  EXPECT_EQ(d.p99, 0.0);
  EXPECT_EQ(d.rms, 0.0);
  EXPECT_DOUBLE_EQ(d.scale, std::sqrt(1.25)); // positions 0..3 around 1.5: (2.25 + 0.25 + 0.25 + 2.25) / 4
}

TEST(CompareStates, NamesTheWorstBodyAndThe99thPercentile) {
  BodyState a = line(200), b = line(200);
  b.posMass[17].y = 3.0f;
  b.posMass[150].z = 4.0f;
  b.vel[3].x = 1.0f; // velocities count for bit-identity only
  const StateDifference d = compareStates(a, b);
  EXPECT_FALSE(d.bitIdentical);
  EXPECT_EQ(d.maxAbs, 4.0);
  EXPECT_EQ(d.worst, 150u);
  EXPECT_EQ(d.p99, 3.0); // sorted distances: 198 zeros, 3, 4; index 198
  EXPECT_DOUBLE_EQ(d.rms, std::sqrt(25.0 / 200.0));
}

TEST(CompareStates, NanCountsAsInfinityAndFailsEveryTolerance) {
  BodyState a = line(100), b = line(100);
  b.posMass[42].x = std::numeric_limits<float>::quiet_NaN();
  const StateDifference d = compareStates(a, b);
  EXPECT_TRUE(std::isinf(d.maxAbs));
  EXPECT_EQ(d.worst, 42u);
  EXPECT_FALSE(d.bitIdentical);
  EXPECT_FALSE(d.maxAbs < 1e-5 * d.scale);
  // The same NaN on both sides is still no agreement.
  const StateDifference same = compareStates(b, b);
  EXPECT_FALSE(same.bitIdentical);
  EXPECT_TRUE(std::isinf(same.maxAbs));
}

TEST(CompareStates, DifferentSizesAreNeverBitIdentical) {
  const StateDifference d = compareStates(line(5), line(3));
  EXPECT_FALSE(d.sameSize);
  EXPECT_FALSE(d.bitIdentical);
  EXPECT_EQ(d.maxAbs, 0.0); // the first three bodies agree
  const StateDifference empty = compareStates(BodyState{}, line(2));
  EXPECT_FALSE(empty.sameSize);
  EXPECT_FALSE(empty.bitIdentical);
}

} // namespace
} // namespace graphsim
