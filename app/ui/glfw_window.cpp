#include "app/ui/glfw_window.h"

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>

#include <cstdio>
#include <stdexcept>

#include "app/ui/keys.h"
#include "render/vk_check.h"
#include "render/vulkan_context.h"

namespace graphsim::app {
namespace {

static_assert(keys::kSpace == GLFW_KEY_SPACE && keys::kA == GLFW_KEY_A && keys::kR == GLFW_KEY_R &&
              keys::kS == GLFW_KEY_S && keys::kEscape == GLFW_KEY_ESCAPE && keys::kF1 == GLFW_KEY_F1 &&
              keys::kF5 == GLFW_KEY_F5 && keys::kF12 == GLFW_KEY_F12);

std::string glfwErrorText() {
  const char* description = nullptr;
  const int code = glfwGetError(&description);
  return code == GLFW_NO_ERROR ? "no GLFW error reported" : (description ? description : "unknown GLFW error");
}

} // namespace

GlfwWindow::GlfwWindow(std::uint32_t width, std::uint32_t height, const std::string& title) {
  if (glfwInit() != GLFW_TRUE) {
    throw EnvironmentError("cannot open a window (" + glfwErrorText() +
                           "); is a display available (DISPLAY / WAYLAND_DISPLAY)? Use --headless without one");
  }
  if (glfwVulkanSupported() != GLFW_TRUE) {
    glfwTerminate();
    throw EnvironmentError("GLFW found no Vulkan loader with window-system support; use --headless");
  }
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);     // Vulkan draws, not OpenGL
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE); // HiDPI: the size is in logical units
  window_ = glfwCreateWindow(static_cast<int>(width), static_cast<int>(height), title.c_str(), nullptr, nullptr);
  if (window_ == nullptr) {
    const std::string why = glfwErrorText();
    glfwTerminate();
    throw EnvironmentError("cannot create a window: " + why);
  }
}

GlfwWindow::~GlfwWindow() {
  if (imgui_) imguiShutdown();
  glfwDestroyWindow(window_);
  glfwTerminate();
}

void GlfwWindow::pollEvents() { glfwPollEvents(); }

void GlfwWindow::waitEvents(std::chrono::milliseconds timeout) {
  glfwWaitEventsTimeout(static_cast<double>(timeout.count()) / 1000.0);
}

bool GlfwWindow::closeRequested() const { return glfwWindowShouldClose(window_) == GLFW_TRUE; }

VkExtent2D GlfwWindow::framebufferSize() const {
  if (scriptedMinimise_ || glfwGetWindowAttrib(window_, GLFW_ICONIFIED) == GLFW_TRUE) return {0, 0};
  int width = 0, height = 0;
  glfwGetFramebufferSize(window_, &width, &height);
  return {static_cast<std::uint32_t>(width > 0 ? width : 0), static_cast<std::uint32_t>(height > 0 ? height : 0)};
}

std::vector<std::string> GlfwWindow::vulkanInstanceExtensions() const {
  std::uint32_t count = 0;
  const char** names = glfwGetRequiredInstanceExtensions(&count);
  if (names == nullptr) throw EnvironmentError("GLFW cannot name the Vulkan surface extensions: " + glfwErrorText());
  return {names, names + count};
}

VkSurfaceKHR GlfwWindow::createSurface(VkInstance instance) {
  VkSurfaceKHR surface = VK_NULL_HANDLE;
  VK_CHECK(glfwCreateWindowSurface(instance, window_, nullptr, &surface));
  return surface;
}

void GlfwWindow::imguiInit() {
  if (!ImGui_ImplGlfw_InitForVulkan(window_, /*install_callbacks=*/true))
    throw std::runtime_error("ImGui's GLFW backend failed to initialise");
  imgui_ = true;
}

void GlfwWindow::imguiNewFrame() { ImGui_ImplGlfw_NewFrame(); }

void GlfwWindow::imguiShutdown() {
  if (!imgui_) return;
  ImGui_ImplGlfw_Shutdown();
  imgui_ = false;
}

void GlfwWindow::requestSize(std::uint32_t width, std::uint32_t height) {
  glfwSetWindowSize(window_, static_cast<int>(width), static_cast<int>(height));
}

void GlfwWindow::setMinimised(bool minimised) {
  scriptedMinimise_ = minimised;
  if (minimised) {
    glfwIconifyWindow(window_);
  } else {
    glfwRestoreWindow(window_);
  }
}

} // namespace graphsim::app
