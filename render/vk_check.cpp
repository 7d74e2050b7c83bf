#include "render/vk_check.h"

#include <filesystem>

namespace graphsim::render {

std::string vkResultName(VkResult result) {
  switch (result) {
#define GRAPHSIM_RESULT_NAME(name)                                                                                     \
  case name: return #name;
    GRAPHSIM_RESULT_NAME(VK_SUCCESS)
    GRAPHSIM_RESULT_NAME(VK_NOT_READY)
    GRAPHSIM_RESULT_NAME(VK_TIMEOUT)
    GRAPHSIM_RESULT_NAME(VK_EVENT_SET)
    GRAPHSIM_RESULT_NAME(VK_EVENT_RESET)
    GRAPHSIM_RESULT_NAME(VK_INCOMPLETE)
    GRAPHSIM_RESULT_NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
    GRAPHSIM_RESULT_NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    GRAPHSIM_RESULT_NAME(VK_ERROR_INITIALIZATION_FAILED)
    GRAPHSIM_RESULT_NAME(VK_ERROR_DEVICE_LOST)
    GRAPHSIM_RESULT_NAME(VK_ERROR_MEMORY_MAP_FAILED)
    GRAPHSIM_RESULT_NAME(VK_ERROR_LAYER_NOT_PRESENT)
    GRAPHSIM_RESULT_NAME(VK_ERROR_EXTENSION_NOT_PRESENT)
    GRAPHSIM_RESULT_NAME(VK_ERROR_FEATURE_NOT_PRESENT)
    GRAPHSIM_RESULT_NAME(VK_ERROR_INCOMPATIBLE_DRIVER)
    GRAPHSIM_RESULT_NAME(VK_ERROR_TOO_MANY_OBJECTS)
    GRAPHSIM_RESULT_NAME(VK_ERROR_FORMAT_NOT_SUPPORTED)
    GRAPHSIM_RESULT_NAME(VK_ERROR_FRAGMENTED_POOL)
    GRAPHSIM_RESULT_NAME(VK_ERROR_UNKNOWN)
    GRAPHSIM_RESULT_NAME(VK_ERROR_OUT_OF_POOL_MEMORY)
    GRAPHSIM_RESULT_NAME(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    GRAPHSIM_RESULT_NAME(VK_ERROR_FRAGMENTATION)
    GRAPHSIM_RESULT_NAME(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    GRAPHSIM_RESULT_NAME(VK_PIPELINE_COMPILE_REQUIRED)
    GRAPHSIM_RESULT_NAME(VK_ERROR_SURFACE_LOST_KHR)
    GRAPHSIM_RESULT_NAME(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
    GRAPHSIM_RESULT_NAME(VK_SUBOPTIMAL_KHR)
    GRAPHSIM_RESULT_NAME(VK_ERROR_OUT_OF_DATE_KHR)
    GRAPHSIM_RESULT_NAME(VK_ERROR_INCOMPATIBLE_DISPLAY_KHR)
    GRAPHSIM_RESULT_NAME(VK_ERROR_VALIDATION_FAILED_EXT)
    GRAPHSIM_RESULT_NAME(VK_ERROR_INVALID_SHADER_NV)
#undef GRAPHSIM_RESULT_NAME
  default: return "VkResult(" + std::to_string(static_cast<int>(result)) + ")";
  }
}

void checkInstanceCreated(VkResult result, const char* apiVersion) {
  const std::string install = "install a GPU driver, or mesa-vulkan-drivers for the lavapipe CPU device";
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER) {
    throw EnvironmentError(std::string("no Vulkan ") + apiVersion +
                           " driver found (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER); " + install);
  }
  if (result == VK_ERROR_INITIALIZATION_FAILED) {
    throw EnvironmentError(
        "the Vulkan loader could not start a driver (vkCreateInstance: "
        "VK_ERROR_INITIALIZATION_FAILED); check VK_DRIVER_FILES / VK_ICD_FILENAMES, or " +
        install);
  }
  VK_CHECK(result);
}

void throwVulkanError(VkResult result, const char* expression, const char* file, int line) {
  // Only the file name: build-tree absolute paths make messages long without helping the reader.
  const std::string fileName = std::filesystem::path(file).filename().string();
  throw VulkanError(static_cast<int>(result), "Vulkan error: " + vkResultName(result) + " from " + expression + " (" +
                                                  fileName + ":" + std::to_string(line) + ")");
}

} // namespace graphsim::render
