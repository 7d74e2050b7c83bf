#include "render/vulkan_context.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include "render/device_selection.h"
#include "render/vk_check.h"

namespace graphsim::render {

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

bool hasLayer(const char* name) {
  std::uint32_t count = 0;
  VK_CHECK(vkEnumerateInstanceLayerProperties(&count, nullptr));
  std::vector<VkLayerProperties> layers(count);
  VK_CHECK(vkEnumerateInstanceLayerProperties(&count, layers.data()));
  layers.resize(count);
  return std::any_of(layers.begin(), layers.end(),
                     [&](const VkLayerProperties& layer) { return std::strcmp(layer.layerName, name) == 0; });
}

// Counts every warning and error; the counter lives in VulkanContext::Impl, whose address never changes.
VKAPI_ATTR VkBool32 VKAPI_CALL countValidationMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                      VkDebugUtilsMessageTypeFlagsEXT /*types*/,
                                                      const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                      void* userData) {
  if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
    static_cast<std::atomic<std::uint64_t>*>(userData)->fetch_add(1, std::memory_order_relaxed);
    const bool error = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    std::fprintf(stderr, "[vulkan validation] %s: %s\n", error ? "error" : "warning",
                 data && data->pMessage ? data->pMessage : "(no message)");
  }
  return VK_FALSE; // never abort the call that triggered the message
}

} // namespace

struct VulkanContext::Impl {
  // Destruction order is the reverse of creation: device, messenger, instance (see ~Impl).
  VkInstance instance = VK_NULL_HANDLE;
  VkSurfaceKHR surface = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  PFN_vkDestroyDebugUtilsMessengerEXT destroyMessenger = nullptr;
  VkPhysicalDevice physicalDevice = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  std::uint32_t queueFamily = 0;
  PhysicalDeviceInfo info;
  bool interop = false;
  std::vector<std::string> requiredExtensions; // enabled on the device with the interop and swapchain ones
  std::atomic<std::uint64_t> validationMessages{0};

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  // No GPU wait here: the owners of submitted work (ParticleRenderer, the app) drain with bounded waits before the
  // context goes; an unbounded vkDeviceWaitIdle could hang exit when a producer died mid-frame.
  ~Impl() {
    if (device != VK_NULL_HANDLE) vkDestroyDevice(device, nullptr);
    if (surface != VK_NULL_HANDLE) vkDestroySurfaceKHR(instance, surface, nullptr);
    if (messenger != VK_NULL_HANDLE) destroyMessenger(instance, messenger, nullptr);
    if (instance != VK_NULL_HANDLE) vkDestroyInstance(instance, nullptr);
  }

  void createInstance(const DeviceRequest& request);
  void pickPhysicalDevice(const DeviceRequest& request);
  void rejectMultiGpuGroup(const std::string& reason, const std::vector<PhysicalDeviceInfo>& devices) const;
  void createDevice();
};

void VulkanContext::Impl::createInstance(const DeviceRequest& request) {
  const bool validation = request.validation;
  if (validation && !hasLayer(kValidationLayer)) {
    throw EnvironmentError(std::string("validation was requested but the Vulkan layer ") + kValidationLayer +
                           " is not installed; install the Debian package vulkan-validationlayers");
  }
  const VkApplicationInfo appInfo{.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                  .pApplicationName = "graphsim",
                                  .applicationVersion = VK_MAKE_API_VERSION(0, 0, 1, 0),
                                  .pEngineName = "graphsim",
                                  .apiVersion = VK_API_VERSION_1_2};

  // Chained into instance creation too, so messages from vkCreateInstance/vkDestroyInstance are counted.
  const VkDebugUtilsMessengerCreateInfoEXT messengerInfo{
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
      .messageSeverity =
          VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
      .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
      .pfnUserCallback = countValidationMessage,
      .pUserData = &validationMessages};
  // Synchronisation validation is off by default in the layer; the frame protocol is exactly what it checks.
  const VkValidationFeatureEnableEXT enabledFeatures[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  const VkValidationFeaturesEXT validationFeatures{.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
                                                   .pNext = &messengerInfo,
                                                   .enabledValidationFeatureCount = 1,
                                                   .pEnabledValidationFeatures = enabledFeatures};
  const char* layers[] = {kValidationLayer};
  std::vector<const char*> extensions;
  for (const std::string& name : request.instanceExtensions) extensions.push_back(name.c_str());
  if (validation) {
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
  }

  VkInstanceCreateInfo createInfo{.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                  .pApplicationInfo = &appInfo,
                                  .enabledExtensionCount = static_cast<std::uint32_t>(extensions.size()),
                                  .ppEnabledExtensionNames = extensions.data()};
  if (validation) {
    createInfo.pNext = &validationFeatures;
    createInfo.enabledLayerCount = 1;
    createInfo.ppEnabledLayerNames = layers;
  }
  const VkResult result = vkCreateInstance(&createInfo, nullptr, &instance);
  if (result == VK_ERROR_EXTENSION_NOT_PRESENT) {
    std::string names;
    for (const char* name : extensions) names += std::string(names.empty() ? "" : ", ") + name;
    throw EnvironmentError("the Vulkan loader lacks one of the instance extensions " + names +
                           " (window-system extensions come from the driver; the debug ones from the Debian package "
                           "vulkan-validationlayers)");
  }
  checkInstanceCreated(result, "1.2");

  if (validation) {
    const auto createMessenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
    destroyMessenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
    if (!createMessenger || !destroyMessenger) {
      throw EnvironmentError("VK_EXT_debug_utils was enabled but its functions are missing from the loader");
    }
    VK_CHECK(createMessenger(instance, &messengerInfo, nullptr, &messenger));
  }
}

// CUDA imports memory of one GPU: a device that Vulkan drives as part of a linked group of several GPUs would put
// the shared buffers somewhere CUDA's device cannot be sure to see.
void VulkanContext::Impl::rejectMultiGpuGroup(const std::string& reason,
                                              const std::vector<PhysicalDeviceInfo>& devices) const {
  std::uint32_t groupCount = 0;
  VK_CHECK(vkEnumeratePhysicalDeviceGroups(instance, &groupCount, nullptr));
  std::vector<VkPhysicalDeviceGroupProperties> groups(groupCount,
                                                      {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES});
  VK_CHECK(vkEnumeratePhysicalDeviceGroups(instance, &groupCount, groups.data()));
  for (std::uint32_t g = 0; g < groupCount; ++g) {
    const auto& group = groups[g];
    const bool ours = std::find(group.physicalDevices, group.physicalDevices + group.physicalDeviceCount,
                                physicalDevice) != group.physicalDevices + group.physicalDeviceCount;
    if (ours && group.physicalDeviceCount > 1) {
      throw EnvironmentError("Vulkan device [" + std::to_string(info.index) + "] " + info.name + " (chosen because " +
                             reason + ") is part of a device group of " + std::to_string(group.physicalDeviceCount) +
                             " GPUs; CUDA interop needs a single-GPU device. Vulkan devices seen:\n" +
                             detail::formatDeviceList(devices));
    }
  }
}

void VulkanContext::Impl::pickPhysicalDevice(const DeviceRequest& request) {
  const auto handles = detail::enumeratePhysicalDevices(instance);
  std::vector<PhysicalDeviceInfo> devices;
  for (std::size_t i = 0; i < handles.size(); ++i) {
    devices.push_back(detail::describePhysicalDevice(handles[i], static_cast<int>(i)));
  }
  const detail::DeviceChoice choice = detail::chooseDevice(devices, request);
  physicalDevice = handles[static_cast<std::size_t>(choice.index)];
  info = devices[static_cast<std::size_t>(choice.index)];

  std::string missing = detail::missingCapabilities(physicalDevice, request.requireInterop);
  for (const std::string& name : request.requiredExtensions) {
    if (!detail::hasDeviceExtension(physicalDevice, name.c_str())) {
      missing += (missing.empty() ? "extension " : ", extension ") + name;
    }
  }
  if (!missing.empty()) {
    throw EnvironmentError("Vulkan device [" + std::to_string(info.index) + "] " + info.name + " (chosen because " +
                           choice.reason + ") lacks " + missing + ". Vulkan devices seen:\n" +
                           detail::formatDeviceList(devices));
  }
  if (request.requireInterop) rejectMultiGpuGroup(choice.reason, devices);
  interop = request.requireInterop;
  requiredExtensions = request.requiredExtensions;

  std::uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physicalDevice, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(physicalDevice, &familyCount, families.data());
  // One queue does everything: graphics, transfers and, with a window, presentation.
  const auto presents = [&](std::uint32_t family) {
    if (surface == VK_NULL_HANDLE) return true;
    VkBool32 supported = VK_FALSE;
    VK_CHECK(vkGetPhysicalDeviceSurfaceSupportKHR(physicalDevice, family, surface, &supported));
    return supported == VK_TRUE;
  };
  std::optional<std::uint32_t> chosen;
  for (std::uint32_t f = 0; f < familyCount && !chosen; ++f) {
    if ((families[f].queueFlags & VK_QUEUE_GRAPHICS_BIT) && families[f].queueCount > 0 && presents(f)) chosen = f;
  }
  if (!chosen) {
    throw EnvironmentError("Vulkan device [" + std::to_string(info.index) + "] " + info.name +
                           " has no graphics queue" +
                           (surface != VK_NULL_HANDLE ? " that can present to the window" : "") +
                           ". Vulkan devices seen:\n" + detail::formatDeviceList(devices));
  }
  queueFamily = *chosen;
  if (surface != VK_NULL_HANDLE && !detail::hasDeviceExtension(physicalDevice, VK_KHR_SWAPCHAIN_EXTENSION_NAME)) {
    throw EnvironmentError("Vulkan device [" + std::to_string(info.index) + "] " + info.name + " lacks " +
                           VK_KHR_SWAPCHAIN_EXTENSION_NAME + ", needed to show a window (try --headless)");
  }

  std::fprintf(stderr, "[graphsim] Vulkan device [%d] %s (%s, UUID %s): %s\n", info.index, info.name.c_str(),
               info.type.c_str(), formatUuid(info.uuid).c_str(), choice.reason.c_str());
}

void VulkanContext::Impl::createDevice() {
  const float priority = 1.0f;
  const VkDeviceQueueCreateInfo queueInfo{.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                          .queueFamilyIndex = queueFamily,
                                          .queueCount = 1,
                                          .pQueuePriorities = &priority};
  // Timeline semaphores carry the whole frame protocol (renderDone/simDone), with or without CUDA.
  VkPhysicalDeviceVulkan12Features features12{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                              .timelineSemaphore = VK_TRUE};
  const VkPhysicalDeviceFeatures2 features{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &features12};
  std::vector<const char*> extensions;
  if (interop)
    extensions.assign(std::begin(detail::kInteropDeviceExtensions), std::end(detail::kInteropDeviceExtensions));
  if (surface != VK_NULL_HANDLE) extensions.push_back(VK_KHR_SWAPCHAIN_EXTENSION_NAME);
  for (const std::string& name : requiredExtensions) extensions.push_back(name.c_str());
  const VkDeviceCreateInfo createInfo{.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                      .pNext = &features,
                                      .queueCreateInfoCount = 1,
                                      .pQueueCreateInfos = &queueInfo,
                                      .enabledExtensionCount = static_cast<std::uint32_t>(extensions.size()),
                                      .ppEnabledExtensionNames = extensions.data()};
  VK_CHECK(vkCreateDevice(physicalDevice, &createInfo, nullptr, &device));
  vkGetDeviceQueue(device, queueFamily, 0, &queue);
}

VulkanContext::VulkanContext(const DeviceRequest& request) : impl_(std::make_unique<Impl>()) {
  // A throw below leaves impl_ owning what was created so far; ~Impl releases it in reverse order.
  impl_->createInstance(request);
  if (request.createSurface) {
    impl_->surface = request.createSurface(impl_->instance);
    if (impl_->surface == VK_NULL_HANDLE) throw EnvironmentError("the window system could not create a Vulkan surface");
  }
  impl_->pickPhysicalDevice(request);
  impl_->createDevice();
}

VulkanContext::~VulkanContext() = default;

VkInstance VulkanContext::instance() const { return impl_->instance; }
VkPhysicalDevice VulkanContext::physicalDevice() const { return impl_->physicalDevice; }
VkDevice VulkanContext::device() const { return impl_->device; }
VkQueue VulkanContext::queue() const { return impl_->queue; }
std::uint32_t VulkanContext::queueFamily() const { return impl_->queueFamily; }
const PhysicalDeviceInfo& VulkanContext::info() const { return impl_->info; }
bool VulkanContext::interopEnabled() const { return impl_->interop; }
VkSurfaceKHR VulkanContext::surface() const { return impl_->surface; }
std::uint64_t VulkanContext::validationMessages() const {
  return impl_->validationMessages.load(std::memory_order_relaxed);
}

} // namespace graphsim::render
