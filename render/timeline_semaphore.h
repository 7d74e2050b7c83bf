// An owned timeline semaphore, optionally exportable as OPAQUE_FD (CUDA imports it as
// cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd). Values only grow.
#pragma once

#include <vulkan/vulkan.h>

#include <chrono>
#include <cstdint>

#include "render/vk_handle.h"
#include "render/vulkan_context.h"

namespace graphsim::render {

class TimelineSemaphore {
public:
  // exportable needs a context with interop; throws EnvironmentError when the driver cannot export timelines.
  TimelineSemaphore(const VulkanContext& context, bool exportable);

  VkSemaphore get() const { return semaphore_.get(); }
  std::uint64_t value() const; // vkGetSemaphoreCounterValue: no wait

  // Host wait for value >= `value`, bounded. False on timeout. Only for values this process's queue signals:
  // host waits on CUDA-signalled values were seen returning ~10 ms late (docs: measured pitfall).
  bool hostWait(std::uint64_t value, std::chrono::nanoseconds timeout) const;
  // Host signal; only used at shutdown to release a queue stuck on a producer that went away.
  void hostSignal(std::uint64_t value) const;

  int exportFd() const; // a new fd the caller owns

private:
  VkDevice device_;
  PFN_vkGetSemaphoreFdKHR getSemaphoreFd_ = nullptr;
  OwnedSemaphore semaphore_;
};

} // namespace graphsim::render
