// graphsim soak: live graph edits through the SimController, checked at checkpoints against a CPU replay. The CPU
// soak must match its replay bit for bit (a determinism check); the CUDA one within the GPU tests' tolerance.
#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>

#include "tests/reliability/test_support.h"

namespace graphsim::test {
namespace {

// graphsim soak with 1024 bodies and validation on, which must pass; its report goes to the test's log. Fatal only
// when it hung: call it in ASSERT_NO_FATAL_FAILURE.
void runPassingSoak(const char* backend, const char* frames, ProcessResult& r) {
  r = runGraphsim({"soak", "--backend", backend, "--frames", frames, "--bodies", "1024", "--validation", "--quiet"},
                  600);
  ASSERT_FALSE(r.timedOut) << r.err;
  std::printf("%s", r.out.c_str());
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "result: PASS")) << r.out;
}

// Report counts that must not be zero, e.g. "body counts 0," where the sequence made no body-count change.
void expectNoneZero(const ProcessResult& r, std::initializer_list<const char*> zeroCounts) {
  for (const char* zero : zeroCounts) EXPECT_FALSE(contains(r.out, zero)) << zero << " in:\n" << r.out;
}

TEST(Soak, CpuSoak2000FramesMatchesItsReplayBitForBit) {
  ProcessResult r;
  ASSERT_NO_FATAL_FAILURE(runPassingSoak("cpu", "2000", r));
  EXPECT_TRUE(contains(r.out, "graphsim soak: 2000 of 2000 frames")) << r.out;
  EXPECT_TRUE(contains(r.out, "200 every 10 frames against the cpu replay (bit for bit), 0 failed, 200 bit-identical"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "validation messages: 0")) << r.out;
  // The sequence exercised every kind of change.
  expectNoneZero(r, {"stage toggles 0,", "parameter moves 0,", "body counts 0,", "substep counts 0)"});
}

// Issue 13: the fluid soak, live edits and particle-count resets, bit for bit against its CPU replay, with the
// invariants (count, finite, inside the box, no blow-up) at every checkpoint.
TEST(Soak, FluidCpuSoakMatchesItsReplayBitForBit) {
  const ProcessResult r = runGraphsim({"soak", "--scene", "fluid", "--backend", "cpu", "--frames", "420", "--particles",
                                       "2048", "--validation", "--quiet"},
                                      600);
  ASSERT_FALSE(r.timedOut) << r.err;
  std::printf("%s", r.out.c_str());
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "result: PASS")) << r.out;
  EXPECT_TRUE(contains(r.out, "graphsim soak: 420 of 420 frames, fluid scene")) << r.out;
  EXPECT_TRUE(contains(r.out, "42 every 10 frames against the cpu replay (bit for bit), 0 failed, 42 bit-identical"))
      << r.out;
  expectNoneZero(r, {"(toggles 0,", "parameter moves 0,", "particle counts 0)"});
}

TEST(Soak, CudaSoak1000FramesMatchesTheCpuReplayWithinTolerance) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE_FOR_CLI();
  ProcessResult r;
  ASSERT_NO_FATAL_FAILURE(runPassingSoak("cuda", "1000", r));
  // Both structural kinds happened: a body count (a whole-graph update) and a substep count (a re-instantiation).
  expectNoneZero(r, {"body counts 0,", "substep counts 0)", "whole-graph updates 0,", "re-instantiations 0"});
}

} // namespace
} // namespace graphsim::test
