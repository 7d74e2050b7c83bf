// Physical-device facts and choice, shared by listPhysicalDevices() and VulkanContext. Internal to render/.
#pragma once

#include <vulkan/vulkan.h>

#include <string>
#include <vector>

#include "render/vulkan_context.h"

namespace graphsim::render::detail {

// Extensions the interop path needs on the device. Their dependencies (VK_KHR_external_memory,
// VK_KHR_external_semaphore, VK_KHR_get_physical_device_properties2) are core in the Vulkan 1.2 we require.
inline constexpr const char* kInteropDeviceExtensions[] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                                                           VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME};

std::vector<VkPhysicalDevice> enumeratePhysicalDevices(VkInstance instance);
bool hasDeviceExtension(VkPhysicalDevice device, const char* name);

// Name, type, UUID, API version and what the device lacks for interop (index = position in enumeration order).
PhysicalDeviceInfo describePhysicalDevice(VkPhysicalDevice device, int index);

// What the device lacks for a VulkanContext: Vulkan 1.2 and the timelineSemaphore feature always, the interop
// extensions when asked. Empty when nothing is missing; else a comma-separated list a user can act on.
std::string missingCapabilities(VkPhysicalDevice device, bool interop);

// "  [0] llvmpipe (LLVM 15.0.6, 256 bits)  cpu  UUID 6d657361-...  Vulkan 1.3.230" one line per device.
std::string formatDeviceList(const std::vector<PhysicalDeviceInfo>& devices);

struct DeviceChoice {
  int index = 0;
  std::string reason; // why this device: "UUID match", "--gpu 1", "first discrete GPU", "first device (...)"
};

// The device the request names (uuid, then index), else the first discrete GPU, else the first device.
// Throws EnvironmentError naming what did not match and listing every device.
DeviceChoice chooseDevice(const std::vector<PhysicalDeviceInfo>& devices, const DeviceRequest& request);

} // namespace graphsim::render::detail
