#include "render/device_selection.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "render/vk_check.h"

namespace graphsim::render {

std::string formatUuid(const Uuid& uuid) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  for (std::size_t i = 0; i < uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    text += kHex[uuid[i] >> 4];
    text += kHex[uuid[i] & 0xF];
  }
  return text;
}

namespace detail {

namespace {

const char* deviceTypeName(VkPhysicalDeviceType type) {
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
  case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
  default: return "other";
  }
}

std::string formatApiVersion(std::uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." + std::to_string(VK_API_VERSION_MINOR(version)) + "." +
         std::to_string(VK_API_VERSION_PATCH(version));
}

bool hasExtension(const std::vector<VkExtensionProperties>& extensions, const char* name) {
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

std::vector<VkExtensionProperties> deviceExtensions(VkPhysicalDevice device) {
  std::uint32_t count = 0;
  VK_CHECK(vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr));
  std::vector<VkExtensionProperties> extensions(count);
  VK_CHECK(vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data()));
  extensions.resize(count);
  return extensions;
}

// Owns the short-lived instance that listPhysicalDevices() enumerates with.
struct ListingInstance {
  VkInstance instance = VK_NULL_HANDLE;
  ListingInstance() {
    const VkApplicationInfo appInfo{.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                    .pApplicationName = "graphsim list-gpus",
                                    .apiVersion = VK_API_VERSION_1_2};
    const VkInstanceCreateInfo createInfo{.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                          .pApplicationInfo = &appInfo};
    const VkResult result = vkCreateInstance(&createInfo, nullptr, &instance);
    checkInstanceCreated(result, "1.2");
  }
  ~ListingInstance() { vkDestroyInstance(instance, nullptr); }
  ListingInstance(const ListingInstance&) = delete;
  ListingInstance& operator=(const ListingInstance&) = delete;
};

} // namespace

std::vector<VkPhysicalDevice> enumeratePhysicalDevices(VkInstance instance) {
  std::uint32_t count = 0;
  VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, nullptr));
  std::vector<VkPhysicalDevice> devices(count);
  VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, devices.data()));
  devices.resize(count);
  return devices;
}

bool hasDeviceExtension(VkPhysicalDevice device, const char* name) {
  return hasExtension(deviceExtensions(device), name);
}

std::string missingCapabilities(VkPhysicalDevice device, bool interop) {
  std::vector<std::string> missing;
  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(device, &properties);
  if (properties.apiVersion < VK_API_VERSION_1_2) {
    // Without 1.2 the timeline feature cannot be queried through VkPhysicalDeviceVulkan12Features either.
    missing.push_back("Vulkan 1.2 (device supports " + formatApiVersion(properties.apiVersion) + ")");
  } else {
    VkPhysicalDeviceVulkan12Features features12{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 features{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &features12};
    vkGetPhysicalDeviceFeatures2(device, &features);
    if (!features12.timelineSemaphore) missing.emplace_back("timelineSemaphore feature");
  }
  if (interop) {
    const auto extensions = deviceExtensions(device);
    for (const char* name : kInteropDeviceExtensions) {
      if (!hasExtension(extensions, name)) missing.push_back(std::string("extension ") + name);
    }
  }
  std::string text;
  for (const auto& item : missing) text += (text.empty() ? "" : ", ") + item;
  return text;
}

PhysicalDeviceInfo describePhysicalDevice(VkPhysicalDevice device, int index) {
  VkPhysicalDeviceIDProperties idProperties{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  VkPhysicalDeviceProperties2 properties{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                         .pNext = &idProperties};
  vkGetPhysicalDeviceProperties2(device, &properties);

  PhysicalDeviceInfo info;
  info.index = index;
  info.name = properties.properties.deviceName;
  info.type = deviceTypeName(properties.properties.deviceType);
  std::copy(std::begin(idProperties.deviceUUID), std::end(idProperties.deviceUUID), info.uuid.begin());
  info.apiVersion = properties.properties.apiVersion;
  info.missingForInterop = missingCapabilities(device, /*interop=*/true);
  return info;
}

std::string formatDeviceList(const std::vector<PhysicalDeviceInfo>& devices) {
  if (devices.empty()) return "  (no Vulkan devices)\n";
  std::ostringstream out;
  for (const auto& device : devices) {
    out << "  [" << device.index << "] " << device.name << "  " << device.type << "  UUID " << formatUuid(device.uuid)
        << "  Vulkan " << formatApiVersion(device.apiVersion);
    if (!device.missingForInterop.empty()) out << "  (no CUDA interop: lacks " << device.missingForInterop << ")";
    out << '\n';
  }
  return out.str();
}

DeviceChoice chooseDevice(const std::vector<PhysicalDeviceInfo>& devices, const DeviceRequest& request) {
  const std::string deviceList = "Vulkan devices seen:\n" + formatDeviceList(devices);
  if (devices.empty()) {
    throw EnvironmentError(
        "no Vulkan physical device found; install a GPU driver, or mesa-vulkan-drivers for the "
        "lavapipe CPU device");
  }
  if (request.uuid) {
    for (const auto& device : devices) {
      if (device.uuid == *request.uuid) {
        return {device.index, "its UUID matches the requested " + formatUuid(*request.uuid)};
      }
    }
    throw EnvironmentError("no Vulkan device has UUID " + formatUuid(*request.uuid) + " (the CUDA device's). " +
                           deviceList);
  }
  if (request.index) {
    const int index = *request.index;
    if (index < 0 || index >= static_cast<int>(devices.size())) {
      throw EnvironmentError("Vulkan device index " + std::to_string(index) + " is out of range (" +
                             std::to_string(devices.size()) + " device(s), valid 0.." +
                             std::to_string(devices.size() - 1) + "). " + deviceList);
    }
    return {index, "index " + std::to_string(index) + " was requested"};
  }
  for (const auto& device : devices) {
    if (device.type == "discrete") return {device.index, "first discrete GPU"};
  }
  return {devices.front().index, "no discrete GPU, so the first device"};
}

} // namespace detail

std::vector<PhysicalDeviceInfo> listPhysicalDevices() {
  detail::ListingInstance listing;
  const auto handles = detail::enumeratePhysicalDevices(listing.instance);
  std::vector<PhysicalDeviceInfo> devices;
  devices.reserve(handles.size());
  for (std::size_t i = 0; i < handles.size(); ++i) {
    devices.push_back(detail::describePhysicalDevice(handles[i], static_cast<int>(i)));
  }
  return devices;
}

} // namespace graphsim::render
