#include "render/driver_info.h"

namespace graphsim::render {

DriverInfo describeDriver(const VulkanContext& context) {
  VkPhysicalDeviceDriverProperties driver{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 properties{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &driver};
  vkGetPhysicalDeviceProperties2(context.physicalDevice(), &properties);
  const std::uint32_t v = properties.properties.apiVersion;
  return DriverInfo{.deviceName = properties.properties.deviceName,
                    .driverName = driver.driverName,
                    .driverInfo = driver.driverInfo,
                    .apiVersion = std::to_string(VK_API_VERSION_MAJOR(v)) + "." +
                                  std::to_string(VK_API_VERSION_MINOR(v)) + "." +
                                  std::to_string(VK_API_VERSION_PATCH(v))};
}

} // namespace graphsim::render
