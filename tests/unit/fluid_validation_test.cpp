// The fluid against experiment on the CPU reference (issue 28): the `column` initial condition and the collapse of a
// square water column against Martin & Moyce 1952 (compute/fluid/fluid_validation.h), at a resolution CI can afford;
// the GPU test (tests/gpu/fluid_dfsph_gpu_test.cpp) runs 65,536 particles and prints the comparison with the 10 %
// target.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/fluid/fluid_cpu_backend.h"
#include "compute/fluid/fluid_validation.h"

namespace graphsim::fluid {
namespace {

TEST(FluidColumn, IsASquareColumnTwiceAsHighAsWideAgainstTheWall) {
  const FluidConfig c = martinMoyceColumn(2000);
  const FluidState s = makeInitialState(c);
  ASSERT_EQ(s.size(), 2000u);
  float hi[3] = {0, 0, 0};
  for (const Float4& x : s.pos)
    hi[0] = std::max(hi[0], x.x), hi[1] = std::max(hi[1], x.y), hi[2] = std::max(hi[2], x.z);
  const float d = spacingFor(c);
  EXPECT_NEAR(hi[0] + 0.5f * d, 0.1f, 0.5f * d) << "a wide";
  EXPECT_NEAR(hi[1] + 0.5f * d, 0.2f, 0.5f * d) << "2a high";
  EXPECT_NEAR(hi[2] + 0.5f * d, 0.1f, 0.5f * d) << "a deep";
  FluidConfig flat = c;
  flat.params.boxSize[1] = 0.15f; // lower than 2a
  try {
    makeInitialState(flat);
    FAIL() << "a box lower than the column was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("boxSize.y >= 2a"), std::string::npos) << e.what();
  }
}

TEST(FluidColumn, SurgeFrontFollowsMartinAndMoyceOnTheCpuReference) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "-O0 with ASan is ~20x slower (~15 minutes here); the memory checks run the same stages in the "
                  "DFSPH dam-break test";
#endif
  const FluidConfig c = martinMoyceColumn(2000); // spacing 1 cm: 10 x 20 x 10
  FluidCpuBackend cpu(c);
  const std::vector<SurgeComparison> rows = runMartinMoyce(cpu);
  ASSERT_EQ(rows.size(), std::size(kMartinMoyce)) << "every published point within the run";
  const double worst = printSurgeComparison(rows);
  RecordProperty("worst_relative_error", std::to_string(worst));
  // At 2,000 particles the surge is one or two spacings thick; the 65,536-particle GPU run is held to 10 %.
  EXPECT_LT(worst, 0.2) << "the surge front against experiment";
}

} // namespace
} // namespace graphsim::fluid
