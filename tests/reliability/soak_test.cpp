// graphsim soak: live graph edits through the SimController, checked at checkpoints against a CPU replay. The CPU
// soak must match its replay bit for bit (a determinism check); the CUDA one within the GPU tests' tolerance.
#include <gtest/gtest.h>

#include "tests/reliability/test_support.h"

namespace graphsim::test {
namespace {

TEST(Soak, CpuSoak2000FramesMatchesItsReplayBitForBit) {
  const ProcessResult r =
      runGraphsim({"soak", "--backend", "cpu", "--frames", "2000", "--bodies", "1024", "--validation", "--quiet"}, 600);
  ASSERT_FALSE(r.timedOut) << r.err;
  std::printf("%s", r.out.c_str());
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "graphsim soak: 2000 of 2000 frames")) << r.out;
  EXPECT_TRUE(contains(r.out, "200 every 10 frames against the cpu replay (bit for bit), 0 failed, 200 bit-identical"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "validation messages: 0")) << r.out;
  EXPECT_TRUE(contains(r.out, "result: PASS")) << r.out;
  // The sequence exercised every kind of change.
  EXPECT_FALSE(contains(r.out, "stage toggles 0,")) << r.out;
  EXPECT_FALSE(contains(r.out, "parameter moves 0,")) << r.out;
  EXPECT_FALSE(contains(r.out, "body counts 0,")) << r.out;
  EXPECT_FALSE(contains(r.out, "substep counts 0)")) << r.out;
}

TEST(Soak, CudaSoak1000FramesMatchesTheCpuReplayWithinTolerance) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE_FOR_CLI();
  const ProcessResult r =
      runGraphsim({"soak", "--backend", "cuda", "--frames", "1000", "--bodies", "1024", "--validation", "--quiet"}, 600);
  ASSERT_FALSE(r.timedOut) << r.err;
  std::printf("%s", r.out.c_str());
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "result: PASS")) << r.out;
  // Both structural kinds happened: a body count (a whole-graph update) and a substep count (a re-instantiation).
  EXPECT_FALSE(contains(r.out, "body counts 0,")) << r.out;
  EXPECT_FALSE(contains(r.out, "substep counts 0)")) << r.out;
  EXPECT_FALSE(contains(r.out, "whole-graph updates 0,")) << r.out;
  EXPECT_FALSE(contains(r.out, "re-instantiations 0")) << r.out;
}

} // namespace
} // namespace graphsim::test
