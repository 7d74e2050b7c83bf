// Blow-up checks shared by the CPU (tests/unit/blow_up_test.cpp) and CUDA (tests/gpu/blow_up_test.cpp) tests: both
// backends must report the same frame, stage instance and quantity for the same run.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "compute/nbody/nbody_backend.h"

namespace graphsim::test {

// damping = -1e5 makes the damping factor exp(1e5 * dt) overflow to +inf: the damping stage itself writes inf/NaN.
inline constexpr float kExplodingDamping = -1e5f;

// `params` with that damping.
inline NBodyParams explodingParams(NBodyParams params) {
  params.damping = kExplodingDamping;
  return params;
}

// A blow-up was reported, in `frame` by instance `substep` of `stage`, its description containing `what`.
inline void expectBlowUp(const std::optional<NBodyBlowUp>& b, std::uint64_t frame, NBodyStage stage, int substep,
                         const char* what) {
  ASSERT_TRUE(b.has_value()) << "no blow-up reported";
  EXPECT_EQ(b->frame, frame) << describe(*b);
  EXPECT_EQ(b->stage, stage) << describe(*b);
  EXPECT_EQ(b->substep, substep) << describe(*b);
  EXPECT_NE(b->what.find(what), std::string::npos) << describe(*b);
}

} // namespace graphsim::test
