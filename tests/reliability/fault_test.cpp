// Injected faults (hidden `graphsim run --inject FAULT[@FRAME]`, docs/RELIABILITY.md): each must end in bounded time,
// with a message naming the cause, a non-zero exit code and nothing half-written. The CPU-backend cases run
// everywhere; the CUDA ones skip without a CUDA device (the GPU machine runs them, see docs/RELIABILITY.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>

#include "app/faults/fault_injection.h"
#include "tests/reliability/child_process.h"
#include "tests/reliability/test_support.h"

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Timed {
  ProcessResult result;
  double seconds = 0;
};

Timed runTimed(const std::vector<std::string>& args, int timeoutSeconds = 120) {
  const auto t0 = Clock::now();
  Timed t{runGraphsim(args, timeoutSeconds), 0};
  t.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("[ measured ] exit %d after %.2f s\n", t.result.exitCode, t.seconds);
  return t;
}

std::vector<std::string> headless(const char* backend, const std::string& inject) {
  return {"run",     "--backend",         backend, "--headless", "--bodies", "512", "--frames", "200",
          "--quiet", "--wait-timeout-ms", "500",   "--inject",   inject};
}

// With 500 ms per wait, a stall costs at most a handful of waits (the stalled one, the shutdown's drains): far less
// than this bound, which is there to catch a hang.
constexpr double kStallBoundSeconds = 20;

// The run failed (exit 1) within the bound instead of hanging. Fatal when it hung: ASSERT_NO_FATAL_FAILURE.
void expectFailedInBoundedTime(const Timed& t) {
  ASSERT_FALSE(t.result.timedOut) << "hung:\n" << t.result.err;
  EXPECT_EQ(t.result.exitCode, 1) << t.result.err;
  EXPECT_LT(t.seconds, kStallBoundSeconds);
}

TEST(Faults, VulkanSemaphoreStallTimesOutNamingTheRenderSideAndFrame) {
  const Timed t = runTimed(headless("cpu", "vulkan-semaphore-stall@10"));
  ASSERT_NO_FATAL_FAILURE(expectFailedInBoundedTime(t));
  EXPECT_EQ(t.result.signal, 0) << t.result.err;
  // Frame 10 signals renderDone = 11; with 3 frames in flight frame 13 is the first to wait for it.
  EXPECT_TRUE(contains(t.result.err, "timeout: render side stalled: renderDone did not reach 11")) << t.result.err;
  EXPECT_TRUE(contains(t.result.err, "for frame 13")) << t.result.err;
  EXPECT_TRUE(contains(t.result.err,
                       "frame 10's render submit waits for simDone >= 1048587, past the frame's own "
                       "value 11"))
      << t.result.err;
}

TEST(Faults, VulkanSemaphoreStallWithCudaBackendTimesOut) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE_FOR_CLI();
  const Timed t = runTimed(headless("cuda", "vulkan-semaphore-stall@10"));
  ASSERT_NO_FATAL_FAILURE(expectFailedInBoundedTime(t));
  EXPECT_TRUE(contains(t.result.err, "render side stalled: renderDone did not reach 11")) << t.result.err;
}

TEST(Faults, CudaSemaphoreStallTimesOutNamingTheSimSide) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE_FOR_CLI();
  const Timed t = runTimed(headless("cuda", "cuda-semaphore-stall@10"));
  ASSERT_NO_FATAL_FAILURE(expectFailedInBoundedTime(t));
  // Frame 10's graph is never launched: frame 13 waits for renderDone = 11, whose submit waits for simDone = 11.
  EXPECT_TRUE(contains(t.result.err, "timeout: sim side stalled: renderDone did not reach 11 for frame 13"))
      << t.result.err;
  EXPECT_TRUE(contains(t.result.err, "simDone is at 10: the simulation has not signalled frame 10's simDone = 11"))
      << t.result.err;
}

TEST(Faults, KernelFailIsReportedWithTheStageName) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE_FOR_CLI();
  const Timed t = runTimed(headless("cuda", "kernel-fail:forces@10"));
  ASSERT_NO_FATAL_FAILURE(expectFailedInBoundedTime(t));
  EXPECT_TRUE(contains(t.result.err, "graphsim: CUDA error: ")) << t.result.err; // not an "internal error"
  EXPECT_TRUE(contains(t.result.err, "node forces")) << t.result.err;
}

TEST(Faults, CudaOnlyFaultsOnTheCpuBackendAreUsageErrors) {
  for (const char* fault : {"kernel-fail", "cuda-semaphore-stall", "import-fail"}) {
    const ProcessResult r = runGraphsim(headless("cpu", fault));
    EXPECT_EQ(r.exitCode, 2) << fault << ": " << r.err;
    EXPECT_TRUE(contains(r.err, std::string("--inject ") + fault + ": needs --backend cuda")) << r.err;
  }
}

TEST(Faults, CaptureDirectoryBecomingUnwritableFailsCleanly) {
  const fs::path dir = freshDir("capture-unwritable");
  std::vector<std::string> args = headless("cpu", "capture-unwritable@10");
  args.insert(args.end(), {"--capture", (dir / "c.png").string(), "--capture-every", "2"});
  const Timed t = runTimed(args);
  // Put things back for the next run whichever way the fault was injected (chmod, or as root a moved directory).
  const fs::path moved = dir.string() + ".inject-moved";
  std::error_code ec;
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add, ec);
  ASSERT_FALSE(t.result.timedOut) << "hung:\n" << t.result.err;
  EXPECT_EQ(t.result.signal, 0) << t.result.err;
  EXPECT_EQ(t.result.exitCode, 1) << t.result.err;
  // Frames 2..10 were captured; frame 12 (k = 11) is the first capture after the fault.
  EXPECT_TRUE(contains(t.result.err, "graphsim: cannot write output: " + (dir / "c_000012.png").string() + ": "))
      << t.result.err;
  const fs::path written = fs::is_directory(moved) ? moved : dir;
  EXPECT_TRUE(fs::exists(written / "c_000010.png")) << "the captures before the fault are missing";
  EXPECT_EQ(findPartialFiles(written, "c"), "");
  fs::remove_all(moved, ec);
}

// Blow-up detection (docs/FRAME.md): headless, the run ends with exit 1 naming the frame and the stage that first
// wrote a non-finite value. Frame 5 (0-based) gets dt = NaN, so integrate writes NaN velocities in frame 6.
void expectBlowUpReported(const Timed& t) {
  ASSERT_NO_FATAL_FAILURE(expectFailedInBoundedTime(t));
  EXPECT_TRUE(
      contains(t.result.err, "graphsim: the simulation blew up in frame 6, stage integrate: non-finite velocity"))
      << t.result.err;
}

TEST(Faults, NonFiniteStateEndsAHeadlessRunNamingFrameAndStage) {
  expectBlowUpReported(runTimed(headless("cpu", "non-finite@5")));
}

TEST(Faults, NonFiniteStateIsDetectedOnTheGpuWithoutAStall) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE_FOR_CLI();
  expectBlowUpReported(runTimed(headless("cuda", "non-finite@5")));
}

// Issue 31: the fluid's faults on CUDA end as the n-body's do. Its kernel-fail default is density_errors, a node
// inside the DFSPH density WHILE inside the substep WHILE.
std::vector<std::string> fluidRun(const char* backend, const std::string& inject) {
  return {"run",      "--scene", "fluid",   "--particles",       "4096", "--backend", backend, "--headless",
          "--frames", "100",     "--quiet", "--wait-timeout-ms", "500",  "--inject",  inject};
}

TEST(Faults, FluidNonFiniteStateEndsAHeadlessRunNamingTheFrame) {
  const Timed t = runTimed(fluidRun("cpu", "non-finite@5"));
  ASSERT_NO_FATAL_FAILURE(expectFailedInBoundedTime(t));
  EXPECT_TRUE(contains(t.result.err, "graphsim: the simulation blew up in frame 5, substep 0, stage advect"))
      << t.result.err;
}

TEST(Faults, FluidNonFiniteStateIsDetectedOnTheGpu) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE_FOR_CLI();
  const Timed t = runTimed(fluidRun("cuda", "non-finite@5"));
  ASSERT_NO_FATAL_FAILURE(expectFailedInBoundedTime(t));
  EXPECT_TRUE(contains(t.result.err, "graphsim: the simulation blew up in frame 5")) << t.result.err;
}

TEST(Faults, FluidKernelFailInsideTheWhileBodiesNamesTheNode) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE_FOR_CLI();
  const Timed t = runTimed(fluidRun("cuda", "kernel-fail@10"));
  ASSERT_NO_FATAL_FAILURE(expectFailedInBoundedTime(t));
  EXPECT_TRUE(contains(t.result.err, "graphsim: CUDA error: ")) << t.result.err;
  EXPECT_TRUE(contains(t.result.err, "node density_errors")) << t.result.err;
}

TEST(Faults, FluidCudaSemaphoreStallTimesOutNamingTheSimSide) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE_FOR_CLI();
  const Timed t = runTimed(fluidRun("cuda", "cuda-semaphore-stall@10"));
  ASSERT_NO_FATAL_FAILURE(expectFailedInBoundedTime(t));
  EXPECT_TRUE(contains(t.result.err, "timeout: sim side stalled")) << t.result.err;
}

TEST(Faults, AKernelNodeTheSceneLacksIsRefusedListingItsOwn) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE_FOR_CLI();
  const ProcessResult fluid = runGraphsim(fluidRun("cuda", "kernel-fail:damping@10")); // n-body's
  EXPECT_EQ(fluid.exitCode, 2) << fluid.err;
  EXPECT_TRUE(contains(fluid.err,
                       "--inject kernel-fail:damping: the fluid scene has no such kernel node (its kernel "
                       "nodes: frame_begin, cfl, cell_keys, cell_ranges"))
      << fluid.err;
  const ProcessResult notKernel = runGraphsim(fluidRun("cuda", "kernel-fail:sort@10")); // a child graph node
  EXPECT_EQ(notKernel.exitCode, 2) << notKernel.err;
  EXPECT_TRUE(contains(notKernel.err, "unknown stage 'sort': no scene has a kernel node of that name"))
      << notKernel.err;
  const ProcessResult nbody = runGraphsim(headless("cuda", "kernel-fail:density@10"));
  EXPECT_EQ(nbody.exitCode, 2) << nbody.err;
  EXPECT_TRUE(contains(nbody.err, "the nbody scene has no such kernel node")) << nbody.err;
}

void expectBothDeviceLists(const ProcessResult& r) {
  EXPECT_EQ(r.exitCode, 3) << r.err;
  EXPECT_TRUE(contains(r.err, "this machine lacks what was asked for")) << r.err;
  EXPECT_TRUE(contains(r.err, "Vulkan devices seen:")) << r.err;
  EXPECT_TRUE(contains(r.err, "CUDA devices:")) << r.err;
}

TEST(Faults, UuidMismatchExitsThreeNamingBothDeviceLists) {
  const ProcessResult r = runGraphsim(headless("cpu", "uuid-mismatch"));
  expectBothDeviceLists(r);
  EXPECT_TRUE(contains(r.err, "no Vulkan device has UUID a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf")) << r.err;
}

TEST(Faults, MissingExtensionExitsThreeNamingItAndBothDeviceLists) {
  const ProcessResult r = runGraphsim(headless("cpu", "missing-extension"));
  expectBothDeviceLists(r);
  EXPECT_TRUE(contains(r.err, std::string("lacks extension ") + app::kInjectedMissingExtension)) << r.err;
}

TEST(Faults, UuidMismatchAndMissingExtensionWithCudaAndInteropOnExitThree) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE_FOR_CLI();
  for (const char* fault : {"uuid-mismatch", "missing-extension"}) {
    std::vector<std::string> args = headless("cuda", fault);
    args.insert(args.end(), {"--interop", "on"}); // under auto (the default) the run falls back to host copy
    const ProcessResult r = runGraphsim(args);
    expectBothDeviceLists(r);
    EXPECT_TRUE(contains(r.err, "CUDA 0: ")) << fault << ": the CUDA list is empty:\n" << r.err;
  }
}

} // namespace
} // namespace graphsim::test
