// Exported mode (CUDA interop): fds for the body buffers and the two timeline semaphores.
#include <unistd.h>

#include <cstdio>
#include <optional>

#include "tests/render/render_test_support.h"

namespace graphsim::render::test {
namespace {

TEST_F(RenderTest, ExportedModeNeedsAnInteropContext) {
  RendererConfig config;
  config.width = 16;
  config.height = 16;
  config.maxBodies = 4;
  config.mode = BodyBufferMode::Exported;
  EXPECT_THROW(ParticleRenderer(*context, config), EnvironmentError);
}

// The first device that can export memory and semaphores as fds, or a reason to skip naming what each lacks.
std::optional<int> interopDevice(std::string& whyNot) {
  for (const PhysicalDeviceInfo& device : listPhysicalDevices()) {
    if (device.missingForInterop.empty()) {
      return device.index;
    }
    whyNot += "[" + std::to_string(device.index) + "] " + device.name + " lacks " + device.missingForInterop + "; ";
  }
  return std::nullopt;
}

// Declares `device`, the index of that device, or skips the test naming what each device lacks.
#define REQUIRE_INTEROP_DEVICE(device)                                                                                 \
  std::string whyNot_;                                                                                                 \
  const std::optional<int> device = interopDevice(whyNot_);                                                            \
  if (!device) GTEST_SKIP() << "no Vulkan device supports external memory/semaphore fds: " << whyNot_

DeviceRequest interopRequest(int index) {
  DeviceRequest request;
  request.index = index;
  request.requireInterop = true;
  request.validation = true;
  return request;
}

RendererConfig exportedConfig() {
  return {.width = 32, .height = 32, .maxBodies = 1000, .framesInFlight = 2, .mode = BodyBufferMode::Exported};
}

TEST_F(RenderTest, ExportedModeYieldsFdsAndSizes) {
  REQUIRE_INTEROP_DEVICE(device);
  VulkanContext interop(interopRequest(*device));
  ASSERT_TRUE(interop.interopEnabled());
  {
    ParticleRenderer exported(interop, exportedConfig());
    EXPECT_THROW(exported.mappedBodies(0), std::logic_error);
    const InteropDesc exports = exported.exportInterop();
    ASSERT_EQ(exports.renderBuffers.size(), 2u);
    for (std::uint32_t slot = 0; slot < 2; ++slot) {
      const InteropDesc::Buffer& memory = exports.renderBuffers[slot];
      EXPECT_GE(memory.fd, 0);
      EXPECT_EQ(memory.bufferSize, 1000u * 16u);
      EXPECT_GE(memory.allocationSize, memory.offset + memory.bufferSize);
      std::fprintf(stderr, "slot %u: fd %d, allocationSize %llu, offset %llu, dedicated %d\n", slot, memory.fd,
                   static_cast<unsigned long long>(memory.allocationSize),
                   static_cast<unsigned long long>(memory.offset), memory.dedicated ? 1 : 0);
      close(memory.fd);
    }
    const int simDoneFd = exports.simDoneFd;
    const int renderDoneFd = exports.renderDoneFd;
    EXPECT_GE(simDoneFd, 0);
    EXPECT_GE(renderDoneFd, 0);
    close(simDoneFd);
    close(renderDoneFd);
    // A frame without a producer (no simDone wait) still renders from the exported buffer.
    exported.submit({.frame = 0, .bodyCount = 10, .capture = true});
    EXPECT_EQ(exported.finishCapture(0).size(), 32u * 32u * 4u);
  }
  EXPECT_EQ(interop.validationMessages(), 0u);
}

// The producer side of the protocol without CUDA: the exported simDone fd is imported into a second semaphore
// (as CUDA would import it) and signalled through that; the frame waiting on simDone >= 1 then completes.
TEST_F(RenderTest, SubmitWaitsForSimDoneSignalledThroughTheExportedFd) {
  REQUIRE_INTEROP_DEVICE(device);
  VulkanContext interop(interopRequest(*device));
  const VkDevice vkDevice = interop.device();
  {
    ParticleRenderer exported(interop, exportedConfig());
    VkSemaphoreTypeCreateInfo typeInfo{.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                       .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    const VkSemaphoreCreateInfo createInfo{.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &typeInfo};
    VkSemaphore producer = VK_NULL_HANDLE;
    ASSERT_EQ(vkCreateSemaphore(vkDevice, &createInfo, nullptr, &producer), VK_SUCCESS);
    const auto importFd =
        reinterpret_cast<PFN_vkImportSemaphoreFdKHR>(vkGetDeviceProcAddr(vkDevice, "vkImportSemaphoreFdKHR"));
    ASSERT_NE(importFd, nullptr);
    const InteropDesc exports = exported.exportInterop(); // only simDone is used: the other fds are closed
    for (const InteropDesc::Buffer& b : exports.renderBuffers) close(b.fd);
    close(exports.renderDoneFd);
    const VkImportSemaphoreFdInfoKHR importInfo{.sType = VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR,
                                                .semaphore = producer,
                                                .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
                                                .fd = exports.simDoneFd}; // Vulkan owns it on success
    ASSERT_EQ(importFd(vkDevice, &importInfo), VK_SUCCESS);

    exported.submit({.frame = 0, .bodyCount = 10, .waitSimDone = 1});
    EXPECT_EQ(exported.renderDoneValue(), 0u) << "frame 0 must wait for the producer";
    const VkSemaphoreSignalInfo signalInfo{.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
                                           .semaphore = producer,
                                           .value = 1};
    ASSERT_EQ(vkSignalSemaphore(vkDevice, &signalInfo), VK_SUCCESS);
    EXPECT_NO_THROW(exported.waitRenderDone(1));
    exported.drain();
    vkDestroySemaphore(vkDevice, producer, nullptr);
  }
  EXPECT_EQ(interop.validationMessages(), 0u);
}

TEST_F(RenderTest, HostVisibleModeDoesNotExport) {
  ParticleRenderer& r = makeRenderer(16, 16, 4, 1);
  EXPECT_THROW(r.exportInterop(), std::logic_error);
  EXPECT_NE(r.mappedBodies(0), nullptr);
}

} // namespace
} // namespace graphsim::render::test
