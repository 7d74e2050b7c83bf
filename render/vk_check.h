// One error path for Vulkan: VK_CHECK turns any result other than VK_SUCCESS into a VulkanError (compute/errors.h)
// carrying the expression, file, line and the result's name ("Vulkan error: VK_ERROR_DEVICE_LOST from …"). Results
// that are expected somewhere (VK_TIMEOUT from a bounded wait, VK_NOT_READY from a query) are handled where they
// happen, not through VK_CHECK.
#pragma once

#include <vulkan/vulkan.h>

#include <string>

#include "compute/errors.h"

namespace graphsim::render {

// "VK_ERROR_DEVICE_LOST", ...; "VkResult(<n>)" for values this build does not know.
std::string vkResultName(VkResult result);

[[noreturn]] void throwVulkanError(VkResult result, const char* expression, const char* file, int line);

// vkCreateInstance's results that mean the machine has no usable driver (VK_ERROR_INCOMPATIBLE_DRIVER: none, or none
// of `apiVersion`; VK_ERROR_INITIALIZATION_FAILED: the loader or a driver could not start) throw EnvironmentError
// (exit 3) saying what to install or check; any other failure goes through VK_CHECK.
void checkInstanceCreated(VkResult result, const char* apiVersion);

} // namespace graphsim::render

#define VK_CHECK(expr)                                                                                                 \
  do {                                                                                                                 \
    const VkResult vkCheckResult_ = (expr);                                                                            \
    if (vkCheckResult_ != VK_SUCCESS) {                                                                                \
      ::graphsim::render::throwVulkanError(vkCheckResult_, #expr, __FILE__, __LINE__);                                 \
    }                                                                                                                  \
  } while (false)
