#include "render/timeline_semaphore.h"

#include <algorithm>
#include <stdexcept>

#include "render/vk_check.h"

namespace graphsim::render {

namespace {
constexpr VkExternalSemaphoreHandleTypeFlagBits kHandleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
}

TimelineSemaphore::TimelineSemaphore(const VulkanContext& context, bool exportable) : device_(context.device()) {
  VkSemaphoreTypeCreateInfo typeInfo{.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                     .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
                                     .initialValue = 0};
  const VkExportSemaphoreCreateInfo exportInfo{.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
                                               .handleTypes = kHandleType};
  if (exportable) {
    if (!context.interopEnabled()) {
      throw EnvironmentError(
          "exportable semaphores need a VulkanContext created with requireInterop "
          "(VK_KHR_external_semaphore_fd)");
    }
    // Binary and timeline export support differ on some drivers: ask about timelines specifically.
    const VkPhysicalDeviceExternalSemaphoreInfo query{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO,
        .pNext = &typeInfo,
        .handleType = kHandleType};
    VkExternalSemaphoreProperties properties{.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
    vkGetPhysicalDeviceExternalSemaphoreProperties(context.physicalDevice(), &query, &properties);
    if (!(properties.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT)) {
      throw EnvironmentError("the Vulkan device cannot export timeline semaphores as OPAQUE_FD");
    }
    getSemaphoreFd_ = reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(vkGetDeviceProcAddr(device_, "vkGetSemaphoreFdKHR"));
    if (!getSemaphoreFd_) {
      throw EnvironmentError("vkGetSemaphoreFdKHR is missing although VK_KHR_external_semaphore_fd is enabled");
    }
    typeInfo.pNext = &exportInfo;
  }
  const VkSemaphoreCreateInfo createInfo{.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &typeInfo};
  VkSemaphore semaphore = VK_NULL_HANDLE;
  VK_CHECK(vkCreateSemaphore(device_, &createInfo, nullptr, &semaphore));
  semaphore_ = OwnedSemaphore(device_, semaphore);
}

std::uint64_t TimelineSemaphore::value() const {
  std::uint64_t value = 0;
  VK_CHECK(vkGetSemaphoreCounterValue(device_, semaphore_.get(), &value));
  return value;
}

bool TimelineSemaphore::hostWait(std::uint64_t value, std::chrono::nanoseconds timeout) const {
  const VkSemaphore semaphore = semaphore_.get();
  const VkSemaphoreWaitInfo waitInfo{.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                                     .semaphoreCount = 1,
                                     .pSemaphores = &semaphore,
                                     .pValues = &value};
  const VkResult result =
      vkWaitSemaphores(device_, &waitInfo, static_cast<std::uint64_t>(std::max<std::int64_t>(timeout.count(), 0)));
  if (result == VK_TIMEOUT) return false;
  VK_CHECK(result);
  return true;
}

void TimelineSemaphore::hostSignal(std::uint64_t value) const {
  const VkSemaphoreSignalInfo signalInfo{.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
                                         .semaphore = semaphore_.get(),
                                         .value = value};
  VK_CHECK(vkSignalSemaphore(device_, &signalInfo));
}

int TimelineSemaphore::exportFd() const {
  if (!getSemaphoreFd_) {
    throw std::logic_error("semaphore fds need BodyBufferMode::Exported (exportable semaphores)");
  }
  const VkSemaphoreGetFdInfoKHR getFdInfo{.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
                                          .semaphore = semaphore_.get(),
                                          .handleType = kHandleType};
  int fd = -1;
  VK_CHECK(getSemaphoreFd_(device_, &getFdInfo, &fd));
  return fd;
}

} // namespace graphsim::render
