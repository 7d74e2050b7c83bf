// The platform layer: a window that gives the renderer a Vulkan surface and feeds input to ImGui, and its headless
// twin (no surface, a fixed size, input injected by tests). GLFW appears only in glfw_window.cpp.
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace graphsim::app {

class Window {
public:
  virtual ~Window() = default;
  Window() = default;
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  virtual bool headless() const = 0;
  // Processes pending window-system events; input reaches ImGui's io (between imguiInit and imguiShutdown).
  virtual void pollEvents() = 0;
  // Blocks until an event arrives or the timeout passes (used while minimised).
  virtual void waitEvents(std::chrono::milliseconds timeout) = 0;
  virtual bool closeRequested() const = 0;
  // Size to render at, in pixels (HiDPI: the framebuffer, not screen coordinates). {0, 0} while minimised.
  virtual VkExtent2D framebufferSize() const = 0;

  // Windowed only (headless: empty / VK_NULL_HANDLE): what VulkanContext needs to present.
  virtual std::vector<std::string> vulkanInstanceExtensions() const = 0;
  virtual VkSurfaceKHR createSurface(VkInstance instance) = 0;

  // ImGui platform side: display size, scale, time step and input.
  virtual void imguiInit() = 0;
  virtual void imguiNewFrame() = 0;
  virtual void imguiShutdown() = 0;

  // Scripted window changes (the smoke and resize tests, --window-script): a new size in screen coordinates, or
  // minimise / restore.
  virtual void requestSize(std::uint32_t width, std::uint32_t height) = 0;
  virtual void setMinimised(bool minimised) = 0;
};

// Input for one frame of the headless twin, written to ImGui's io before that frame (ImGui 1.86 input model).
struct InjectedInput {
  float mouseX = -1, mouseY = -1; // pixels; negative: no mouse
  std::array<bool, 3> buttons{};  // left, right, middle
  float wheel = 0;
  std::vector<int> keysDown; // app/ui/keys.h codes held during this frame
};

class HeadlessWindow final : public Window {
public:
  HeadlessWindow(std::uint32_t width, std::uint32_t height) : width_(width), height_(height) {}

  bool headless() const override { return true; }
  void pollEvents() override;
  void waitEvents(std::chrono::milliseconds) override {}
  bool closeRequested() const override { return false; }
  VkExtent2D framebufferSize() const override { return minimised_ ? VkExtent2D{0, 0} : VkExtent2D{width_, height_}; }
  std::vector<std::string> vulkanInstanceExtensions() const override { return {}; }
  VkSurfaceKHR createSurface(VkInstance) override { return VK_NULL_HANDLE; }
  void imguiInit() override;
  void imguiNewFrame() override;
  void imguiShutdown() override {}
  void requestSize(std::uint32_t width, std::uint32_t height) override {
    width_ = width;
    height_ = height;
  }
  void setMinimised(bool minimised) override { minimised_ = minimised; }

  // Queues input for the coming frames, one entry per frame; with the queue empty the last input is held.
  void inject(const InjectedInput& input) { pending_.push_back(input); }

private:
  std::uint32_t width_, height_;
  bool minimised_ = false;
  bool imgui_ = false;
  std::deque<InjectedInput> pending_;
  InjectedInput current_;
};

} // namespace graphsim::app
