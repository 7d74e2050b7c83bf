// --interop auto|on|off (app/run/open_devices.h). In process, on whatever Vulkan device the machine has (lavapipe in
// CI): the device choice for a CUDA GPU is driven with a stand-in CUDA device whose UUID is the Vulkan device's, and
// the injected faults break the interop attempt the way a foreign GPU or an old driver would. End to end with the
// CUDA backend (the GPU machine): the run finishes on host copy and says so, or exits 3 under --interop on.
#include <gtest/gtest.h>

#include <optional>

#include "app/faults/fault_injection.h"
#include "app/run/open_devices.h"
#include "tests/reliability/child_process.h"
#include "tests/reliability/test_support.h"

namespace graphsim::test {
namespace {

using app::Fault;
using app::FaultPlan;
using app::InteropMode;

// A CUDA device that is the first Vulkan device (same UUID), as on a machine where both APIs see one GPU.
struct StandIn {
  CudaDeviceInfo cuda;
  CudaDeviceList all;
};

std::optional<StandIn> standInForFirstVulkanDevice() {
  std::vector<render::PhysicalDeviceInfo> devices;
  try {
    devices = render::listPhysicalDevices();
  } catch (const EnvironmentError&) {
    return std::nullopt;
  }
  if (devices.empty()) return std::nullopt;
  StandIn s;
  s.cuda.index = 0;
  s.cuda.name = "stand-in CUDA device";
  s.cuda.uuid = devices.front().uuid;
  s.all.devices = {s.cuda};
  return s;
}

FaultPlan fault(Fault f) {
  FaultPlan plan;
  plan.fault = f;
  return plan;
}

#define REQUIRE_VULKAN_STAND_IN(var)                                                                                   \
  const std::optional<StandIn> var = standInForFirstVulkanDevice();                                                    \
  if (!var) GTEST_SKIP() << "no Vulkan device"

// Opens the render device for the stand-in under `mode` with fault `f` injected, expecting a device on the host-copy
// path. Fatal when no device opened: call it in ASSERT_NO_FATAL_FAILURE.
void openOnHostCopy(const StandIn& s, InteropMode mode, Fault f, std::optional<render::VulkanContext>& context,
                    app::DataPath& path) {
  path = app::openCudaRenderDevice({}, s.cuda, s.all, mode, fault(f), context);
  ASSERT_TRUE(context.has_value());
  EXPECT_FALSE(path.interop);
}

TEST(InteropFallback, AutoFallsBackToHostCopyNamingBothDevicesWhenNoVulkanDeviceHasTheUuid) {
  REQUIRE_VULKAN_STAND_IN(s);
  std::optional<render::VulkanContext> context;
  app::DataPath path;
  ASSERT_NO_FATAL_FAILURE(openOnHostCopy(*s, InteropMode::Auto, Fault::UuidMismatch, context, path));
  EXPECT_EQ(path.name(), "cuda host copy");
  EXPECT_NE(path.fallbackReason.find("no Vulkan device has UUID"), std::string::npos) << path.fallbackReason;
  EXPECT_NE(path.fallbackReason.find("CUDA 0: stand-in CUDA device"), std::string::npos) << path.fallbackReason;
  EXPECT_NE(path.fallbackReason.find("Vulkan devices seen:"), std::string::npos) << path.fallbackReason;
  EXPECT_FALSE(context->interopEnabled()); // opened without the interop requirement
}

TEST(InteropFallback, AutoFallsBackWhenAnExtensionIsMissing) {
  REQUIRE_VULKAN_STAND_IN(s);
  std::optional<render::VulkanContext> context;
  app::DataPath path;
  ASSERT_NO_FATAL_FAILURE(openOnHostCopy(*s, InteropMode::Auto, Fault::MissingExtension, context, path));
  EXPECT_NE(path.fallbackReason.find(app::kInjectedMissingExtension), std::string::npos) << path.fallbackReason;
}

TEST(InteropFallback, OnKeepsTheEnvironmentError) {
  REQUIRE_VULKAN_STAND_IN(s);
  for (Fault f : {Fault::UuidMismatch, Fault::MissingExtension}) {
    std::optional<render::VulkanContext> context;
    try {
      app::openCudaRenderDevice({}, s->cuda, s->all, InteropMode::On, fault(f), context);
      ADD_FAILURE() << app::faultName(f) << ": --interop on opened a device";
    } catch (const EnvironmentError& e) {
      EXPECT_NE(std::string(e.what()).find("CUDA devices:"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(context.has_value());
  }
}

TEST(InteropFallback, OffNeverTriesInterop) {
  REQUIRE_VULKAN_STAND_IN(s);
  std::optional<render::VulkanContext> context;
  app::DataPath path;
  // The fault would break an interop attempt; off makes none, so it cannot strike.
  ASSERT_NO_FATAL_FAILURE(openOnHostCopy(*s, InteropMode::Off, Fault::MissingExtension, context, path));
  EXPECT_EQ(path.fallbackReason, "--interop off");
  EXPECT_EQ(context->info().uuid, s->cuda.uuid); // the CUDA GPU itself when Vulkan has it
}

TEST(InteropFallback, AutoUsesInteropWhenTheDeviceHasIt) {
  REQUIRE_VULKAN_STAND_IN(s);
  const std::vector<render::PhysicalDeviceInfo> devices = render::listPhysicalDevices();
  if (!devices.front().missingForInterop.empty())
    GTEST_SKIP() << devices.front().name << " cannot do interop: " << devices.front().missingForInterop;
  std::optional<render::VulkanContext> context;
  const app::DataPath path = app::openCudaRenderDevice({}, s->cuda, s->all, InteropMode::Auto, {}, context);
  EXPECT_TRUE(path.interop);
  EXPECT_TRUE(path.fallbackReason.empty());
  EXPECT_TRUE(context->interopEnabled());
}

// End to end on the GPU machine: each way interop can fail.
std::vector<std::string> cudaRun(const char* interop, const std::string& inject = "") {
  std::vector<std::string> args = {"run",   "--backend",         "cuda", "--headless", "--bodies",
                                   "4096",  "--frames",          "60",   "--quiet",    "--interop",
                                   interop, "--wait-timeout-ms", "2000"};
  if (!inject.empty()) args.insert(args.end(), {"--inject", inject});
  return args;
}

TEST(InteropFallback, CudaRunFinishesOnHostCopyUnderAuto) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE_FOR_CLI();
  for (const char* inject : {"uuid-mismatch", "missing-extension", "import-fail"}) {
    const ProcessResult r = runGraphsim(cudaRun("auto", inject), 120);
    ASSERT_FALSE(r.timedOut) << inject << " hung:\n" << r.err;
    EXPECT_EQ(r.exitCode, 0) << inject << ":\n" << r.err;
    EXPECT_TRUE(contains(r.err, "graphsim: Vulkan-CUDA interop unavailable: ")) << inject << ":\n" << r.err;
    EXPECT_TRUE(contains(r.err, "frames are copied through the host")) << inject << ":\n" << r.err;
    EXPECT_TRUE(contains(r.err, "CUDA 0: ")) << inject << ":\n" << r.err;
    EXPECT_TRUE(contains(r.err, "60 frames")) << inject << ":\n" << r.err;
    EXPECT_TRUE(contains(r.err, "cuda host copy")) << inject << ": the summary does not say which path:\n" << r.err;
  }
}

TEST(InteropFallback, CudaRunExitsThreeUnderOn) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE_FOR_CLI();
  for (const char* inject : {"uuid-mismatch", "missing-extension"}) {
    const ProcessResult r = runGraphsim(cudaRun("on", inject), 120);
    EXPECT_EQ(r.exitCode, 3) << inject << ":\n" << r.err;
    EXPECT_TRUE(contains(r.err, "Vulkan devices seen:")) << r.err;
    EXPECT_TRUE(contains(r.err, "CUDA devices:")) << r.err;
  }
  const ProcessResult r = runGraphsim(cudaRun("on", "import-fail"), 120);
  EXPECT_EQ(r.exitCode, 1) << r.err; // a failed CUDA call, named
  EXPECT_TRUE(contains(r.err, "graphsim: CUDA error: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "importing render buffer 0")) << r.err;
}

TEST(InteropFallback, CudaRunOffCopiesThroughTheHostWithoutANotice) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE_FOR_CLI();
  const ProcessResult r = runGraphsim(cudaRun("off"), 120);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "interop unavailable")) << r.err;
  EXPECT_TRUE(contains(r.err, "cuda host copy")) << r.err;
}

} // namespace
} // namespace graphsim::test
