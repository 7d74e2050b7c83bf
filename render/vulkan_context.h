// Vulkan instance, debug messenger, physical-device choice and logical device. One owner for all of them.
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compute/errors.h"

namespace graphsim::render {

using Uuid = std::array<std::uint8_t, VK_UUID_SIZE>;
std::string formatUuid(const Uuid& uuid); // 8-4-4-4-12 hex, as nvidia-smi prints it

// The renderer throws graphsim::EnvironmentError (compute/errors.h) when the machine lacks what was asked for (no
// device, no matching UUID, missing extension or feature): exit 3.

struct DeviceRequest {
  std::optional<Uuid> uuid;    // pick exactly the device with this deviceUUID (CUDA interop)
  std::optional<int> index;    // else --gpu INDEX among the Vulkan devices
  bool requireInterop = false; // VK_KHR_external_memory_fd, VK_KHR_external_semaphore_fd, timeline semaphores
  bool validation = false;     // Khronos validation layer (+ synchronisation validation) and a counting messenger
  // Further device extensions the caller needs; a device without one of them is refused with EnvironmentError
  // (graphsim run --inject missing-extension asks for one that no driver has).
  std::vector<std::string> requiredExtensions;
  // Windowed: the instance extensions the window system needs (glfwGetRequiredInstanceExtensions) and a callback that
  // creates the window's surface on the new instance. The context then owns the surface, picks a queue family that
  // presents to it and enables VK_KHR_swapchain; a device that cannot present is refused with EnvironmentError.
  std::vector<std::string> instanceExtensions;
  std::function<VkSurfaceKHR(VkInstance)> createSurface;
};

struct PhysicalDeviceInfo {
  int index = 0;
  std::string name;
  std::string type; // "discrete", "integrated", "cpu", "virtual", "other"
  Uuid uuid{};
  std::uint32_t apiVersion = 0;
  std::string missingForInterop; // empty when the device can do Vulkan<->CUDA interop; else what it lacks
};

// Lists every Vulkan physical device (its own short-lived instance). Throws EnvironmentError when there is no loader.
std::vector<PhysicalDeviceInfo> listPhysicalDevices();

class VulkanContext {
public:
  // Default choice without uuid/index: the first discrete GPU, else the first device (lavapipe on CI). Says which on
  // stderr. Throws EnvironmentError naming what was missing and listing the devices seen.
  explicit VulkanContext(const DeviceRequest& request);
  ~VulkanContext();
  VulkanContext(const VulkanContext&) = delete;
  VulkanContext& operator=(const VulkanContext&) = delete;

  VkInstance instance() const;
  VkPhysicalDevice physicalDevice() const;
  VkDevice device() const;
  VkQueue queue() const; // one graphics queue, also used for transfers
  std::uint32_t queueFamily() const;
  const PhysicalDeviceInfo& info() const;
  bool interopEnabled() const;  // the interop extensions were enabled on the device
  VkSurfaceKHR surface() const; // VK_NULL_HANDLE unless the request had createSurface

  // Validation warnings and errors seen so far (0 when validation is off). Each is also printed to stderr.
  std::uint64_t validationMessages() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace graphsim::render
