// The desktop window (GLFW, X11/Wayland as the Debian build supports). Only this file pair includes GLFW.
#pragma once

#include <cstdint>
#include <string>

#include "app/ui/window.h"

struct GLFWwindow;

namespace graphsim::app {

class GlfwWindow final : public Window {
public:
  // width x height in screen coordinates (scaled to the monitor's content scale on HiDPI). Throws
  // EnvironmentError when there is no display or GLFW has no Vulkan support.
  GlfwWindow(std::uint32_t width, std::uint32_t height, const std::string& title);
  ~GlfwWindow() override;

  bool headless() const override { return false; }
  void pollEvents() override;
  void waitEvents(std::chrono::milliseconds timeout) override;
  bool closeRequested() const override;
  VkExtent2D framebufferSize() const override;
  std::vector<std::string> vulkanInstanceExtensions() const override;
  VkSurfaceKHR createSurface(VkInstance instance) override;
  void imguiInit() override;
  void imguiNewFrame() override;
  void imguiShutdown() override;
  void requestSize(std::uint32_t width, std::uint32_t height) override;
  void setMinimised(bool minimised) override;

private:
  GLFWwindow* window_ = nullptr;
  bool imgui_ = false;
  // Set by setMinimised(true) until restored: a window system without a window manager (Xvfb in CI) ignores
  // iconify requests, so a scripted minimise also reports the zero size that a real one would.
  bool scriptedMinimise_ = false;
};

} // namespace graphsim::app
