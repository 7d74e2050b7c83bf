// What the benchmark report says about the Vulkan side: the driver's own name and version string
// (VkPhysicalDeviceDriverProperties, core in Vulkan 1.2), e.g. "NVIDIA" / "580.95.05" or "llvmpipe" / "Mesa 22.3.6".
#pragma once

#include <string>

#include "render/vulkan_context.h"

namespace graphsim::render {

struct DriverInfo {
  std::string deviceName; // VkPhysicalDeviceProperties::deviceName
  std::string driverName; // VkPhysicalDeviceDriverProperties::driverName
  std::string driverInfo; // VkPhysicalDeviceDriverProperties::driverInfo (the version string for NVIDIA and Mesa)
  std::string apiVersion; // "1.4.312"
};

DriverInfo describeDriver(const VulkanContext& context);

} // namespace graphsim::render
