#include <imgui.h>

#include "app/ui/window.h"

namespace graphsim::app {

void HeadlessWindow::imguiInit() {
  ImGuiIO& io = ImGui::GetIO();
  io.BackendPlatformName = "graphsim_headless";
  imgui_ = true;
}

void HeadlessWindow::pollEvents() {
  if (!pending_.empty()) {
    current_ = pending_.front();
    pending_.pop_front();
  }
  if (!imgui_) return;
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = current_.mouseX >= 0 ? ImVec2(current_.mouseX, current_.mouseY) : ImVec2(-FLT_MAX, -FLT_MAX);
  for (int b = 0; b < 3; ++b) io.MouseDown[b] = current_.buttons[static_cast<std::size_t>(b)];
  io.MouseWheel = current_.wheel;
  current_.wheel = 0; // a wheel step happens once, held buttons and keys persist
  for (bool& down : io.KeysDown) down = false;
  for (const int key : current_.keysDown) {
    if (key >= 0 && key < static_cast<int>(IM_ARRAYSIZE(io.KeysDown))) io.KeysDown[key] = true;
  }
}

void HeadlessWindow::imguiNewFrame() {
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(width_), static_cast<float>(height_));
  io.DisplayFramebufferScale = ImVec2(1.0f, 1.0f);
  io.DeltaTime = 1.0f / 60.0f; // fixed: scripted input must not depend on how fast the machine renders
}

} // namespace graphsim::app
