#include "app/ui/panel.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include <glm/glm.hpp>

#include "app/ui/keys.h"
#include "app/ui/plot_ring.h"

namespace graphsim::app {
namespace {

// The point under the mouse on the plane through the orbit target that faces the camera.
glm::vec3 mouseOnTargetPlane(const render::Camera& camera, ImVec2 mouse, ImVec2 display) {
  const float aspect = display.x / std::max(display.y, 1.0f);
  const glm::mat4 inverse = glm::inverse(camera.projection(aspect) * camera.view());
  const float x = 2.0f * mouse.x / display.x - 1.0f, y = 2.0f * mouse.y / display.y - 1.0f; // Vulkan: y down
  const glm::vec4 nearH = inverse * glm::vec4(x, y, 0.0f, 1.0f), farH = inverse * glm::vec4(x, y, 1.0f, 1.0f);
  const glm::vec3 nearP = glm::vec3(nearH) / nearH.w, farP = glm::vec3(farH) / farH.w;
  const glm::vec3 normal = glm::normalize(camera.eye() - camera.target);
  const glm::vec3 dir = farP - nearP;
  const float denom = glm::dot(dir, normal);
  if (std::fabs(denom) < 1e-6f) return camera.target;
  return nearP + dir * (glm::dot(camera.target - nearP, normal) / denom);
}

// One node's enable checkbox (disabled with the reason as a tooltip when it cannot be toggled); its place goes into
// the layout as "node:<name>" for the UI tests.
void drawNodeCheckbox(const NodeInfo& node, SceneProducer& scene, PanelLayout& layout) {
  bool enabled = node.enabled;
  const bool togglable = scene.nodeTogglable(node);
  if (!togglable) ImGui::BeginDisabled();
  // "##node:forces#1": the checkbox's ImGui id; without the "##", its key in the layout. On the stack, so that
  // drawing the node list allocates nothing.
  char id[96];
  std::snprintf(id, sizeof id, "##node:%s", node.name.c_str());
  if (ImGui::Checkbox(id, &enabled) && togglable) scene.setNodeEnabled(node, enabled);
  if (!togglable) ImGui::EndDisabled();
  recordWidget(layout, std::string_view(id).substr(2));
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    const std::string tooltip = scene.nodeTooltip(node); // allocates only while hovered
    if (!tooltip.empty()) ImGui::SetTooltip("%s", tooltip.c_str());
  }
}

void drawGraph(const PanelInfo& info, SceneProducer& scene, PanelLayout& layout) {
  const std::vector<NodeInfo>& nodes = scene.nodes();
  if (!ImGui::BeginTable("nodes", info.profiling ? 5 : 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit))
    return;
  // The checkbox comes right after the index: long node types (the fluid graph's "child graph: CUB radix sort, …")
  // pushed a last column past the panel's edge, where it could not be clicked.
  ImGui::TableSetupColumn("#");
  ImGui::TableSetupColumn("on");
  ImGui::TableSetupColumn("node");
  if (info.profiling) ImGui::TableSetupColumn(info.backend == "cuda" ? "GPU ms" : "ms");
  ImGui::TableSetupColumn("type", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  int index = 0;
  for (const NodeInfo& node : nodes) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%d", index++);
    ImGui::TableNextColumn();
    drawNodeCheckbox(node, scene, layout);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(node.name.c_str());
    if (info.profiling) {
      ImGui::TableNextColumn();
      if (node.ms >= 0) {
        ImGui::Text("%.3f", node.ms);
      } else {
        ImGui::TextDisabled("-");
      }
    }
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(node.type.c_str());
  }
  ImGui::EndTable();
}

void drawStats(const PanelInfo& info, const FrameStats& stats, SceneProducer& scene) {
  ImGui::Text("%.1f fps", stats.fps);
  if (stats.count > 0) {
    float maxMs = 0;
    for (std::size_t i = 0; i < stats.count; ++i) maxMs = std::max(maxMs, stats.frameMs[i]);
    const int offset = static_cast<int>(stats.count < FrameStats::kHistory ? 0 : stats.next);
    ImGui::PlotLines("frame ms", stats.frameMs.data(), static_cast<int>(stats.count), offset, nullptr, 0.0f,
                     maxMs * 1.2f, ImVec2(0, 40));
  }
  // Negative: not measured (yet, or the device has no timestamps): shown as such, never as a number.
  const auto ms = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, v >= 0 ? "%.3f ms" : "not measured", v);
    return std::string(text);
  };
  ImGui::Text("sim %s: %s   render GPU: %s", info.backend == "cuda" ? "GPU" : "CPU", ms(stats.simMs).c_str(),
              ms(stats.renderGpuMs).c_str());
  if (const render::RenderPassTimes& p = stats.renderPasses; p.total >= 0 && p.thickness + p.depth + p.smoothing > 0)
    ImGui::Text("  scene %.3f  thickness %.3f  depth %.3f  smoothing %.3f  shading %.3f ms", p.scene, p.thickness,
                p.depth, p.smoothing, p.shading);
  scene.drawStats(stats);
  ImGui::Text("backend %s on %s", info.backend.c_str(), info.gpu.c_str());
  if (info.dataPathReason.empty()) {
    ImGui::Text("frames reach the renderer by %s", info.dataPath.c_str());
  } else {
    ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.3f, 1.0f), "frames reach the renderer by %s (?)", info.dataPath.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", info.dataPathReason.c_str());
  }
  ImGui::Text("frames in flight %u%s%s | sim time %.3f", info.framesInFlight,
              info.presentMode.empty() ? "" : " | present ", info.presentMode.c_str(), scene.simTime());
}

// How particles are drawn, at the panel's top: the mode, and in surface mode the smoothing and absorption
// (render_types.h, docs/UI.md).
void drawRender(ViewState& view, PanelLayout& layout) {
  int mode = static_cast<int>(view.renderMode);
  ImGui::TextUnformatted("draw as");
  ImGui::SameLine();
  ImGui::RadioButton("particles", &mode, static_cast<int>(render::RenderMode::Particles));
  recordWidget(layout, "render:particles");
  ImGui::SameLine();
  ImGui::RadioButton("surface", &mode, static_cast<int>(render::RenderMode::Surface));
  recordWidget(layout, "render:surface");
  view.renderMode = static_cast<render::RenderMode>(mode);
  if (view.renderMode != render::RenderMode::Surface) return;
  render::SurfaceStyle& s = view.surface;
  ImGui::SliderFloat("smoothing", &s.smoothingRadius, render::kMinSmoothingRadius, render::kMaxSmoothingRadius,
                     "%.1f radii");
  recordWidget(layout, "render:smoothing_radius");
  ImGui::SliderInt("iterations", &s.smoothingIterations, 0, render::kMaxSmoothingIterations);
  recordWidget(layout, "render:smoothing_iterations");
  ImGui::DragFloat3("absorption", &s.absorption.r, 0.1f, 0.0f, render::kMaxAbsorption, "%.1f /m");
  recordWidget(layout, "render:absorption");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Beer-Lambert absorption per metre of liquid (red, green, blue): light behind a thickness t "
        "keeps exp(-absorption t)");
  ImGui::SliderFloat("foam", &s.foam, 0.0f, 1.0f, "%.2f");
  recordWidget(layout, "render:foam");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("white where the liquid moves fast (its colour attribute past 0.6 of the colour scale)");
}

void drawActions(const PanelInfo& info, SceneProducer& controller, PanelActions& actions, PanelLayout& layout) {
  if (ImGui::Button(controller.paused() ? "Resume" : "Pause")) controller.togglePause();
  recordWidget(layout, "action:pause");
  ImGui::SameLine();
  if (!controller.paused()) ImGui::BeginDisabled();
  if (ImGui::Button("Step")) controller.requestStep();
  if (!controller.paused()) ImGui::EndDisabled();
  recordWidget(layout, "action:step");
  ImGui::SameLine();
  if (ImGui::Button("Reset")) controller.requestReset();
  recordWidget(layout, "action:reset");
  if (ImGui::Button("Capture PNG")) actions.captureScene = true;
  recordWidget(layout, "action:capture");
  ImGui::SameLine();
  if (!info.canDumpGraph) ImGui::BeginDisabled();
  if (ImGui::Button("Export DOT")) actions.dumpGraph = true;
  if (!info.canDumpGraph) ImGui::EndDisabled();
  recordWidget(layout, "action:dot");
  if (!info.canDumpGraph && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("only the cuda backend runs a CUDA graph");
  ImGui::SameLine();
  if (ImGui::Button("Save state")) actions.saveState = true;
  recordWidget(layout, "action:save_state");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("F5: a snapshot to graphsim_state_<frame>.gss (--load-state resumes it)");
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("%s", keys::kHelp);
  ImGui::PopTextWrapPos();
}

} // namespace

// Allocates only the first time an id is seen (the layout keeps its entries from frame to frame).
void recordWidget(PanelLayout& layout, std::string_view id) {
  const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
  const WidgetRect rect{min.x, min.y, max.x, max.y};
  if (const auto it = layout.find(id); it != layout.end()) {
    it->second = rect;
  } else {
    layout.emplace(std::string(id), rect);
  }
}

bool drawPlotRing(const char* label, const PlotRing& ring, const char* overlay) {
  ImGui::PlotLines(label, ring.data(), static_cast<int>(ring.count()), ring.offset(), overlay, FLT_MAX, FLT_MAX,
                   ImVec2(0, 40));
  return ImGui::IsItemHovered();
}

void drawUpdateCounters(const FrameStats& stats, const std::string& lastStructural) {
  const UpdateCounters& c = stats.counters;
  ImGui::Text("node updates this frame: %.1f us host", stats.updateHostUs);
  ImGui::Text("node updates %llu | toggles %llu", static_cast<unsigned long long>(c.nodeUpdates),
              static_cast<unsigned long long>(c.enableToggles));
  ImGui::Text("whole-graph updates %llu | re-instantiations %llu", static_cast<unsigned long long>(c.wholeGraphUpdates),
              static_cast<unsigned long long>(c.reinstantiations));
  if (!c.lastFallbackReason.empty()) ImGui::TextWrapped("last fallback: %s", c.lastFallbackReason.c_str());
  if (!lastStructural.empty()) ImGui::Text("%s", lastStructural.c_str());
}

void handleViewInput(ViewState& view, SceneProducer& controller, PanelActions& actions) {
  const ImGuiIO& io = ImGui::GetIO();
  render::Camera& camera = view.camera;
  if (!io.WantCaptureMouse) {
    if (io.MouseDown[0]) {
      camera.yawDeg -= io.MouseDelta.x * 0.3f;
      camera.pitchDeg = std::clamp(camera.pitchDeg + io.MouseDelta.y * 0.3f, -89.0f, 89.0f);
    }
    if (io.MouseDown[1]) camera.distance *= std::exp(io.MouseDelta.y * 0.01f);
    if (io.MouseWheel != 0.0f) camera.distance *= std::pow(0.9f, io.MouseWheel);
    camera.distance = std::clamp(camera.distance, 0.05f, 1000.0f);
    if (io.MouseDown[2]) {
      const glm::vec3 forward = glm::normalize(camera.target - camera.eye());
      const glm::vec3 right = glm::normalize(glm::cross(forward, glm::vec3(0, 1, 0)));
      const glm::vec3 up = glm::cross(right, forward);
      const float scale = camera.distance * 0.0015f;
      camera.target += (-io.MouseDelta.x * right + io.MouseDelta.y * up) * scale;
    }
  }
  if (io.WantCaptureKeyboard) return;
  if (ImGui::IsKeyPressed(keys::kSpace, false)) controller.togglePause();
  if (ImGui::IsKeyPressed(keys::kS, false) && controller.paused()) controller.requestStep();
  if (ImGui::IsKeyPressed(keys::kR, false)) controller.requestReset();
  if (ImGui::IsKeyPressed(keys::kF1, false)) view.panelVisible = !view.panelVisible;
  if (ImGui::IsKeyPressed(keys::kF12, false)) actions.captureScene = true;
  if (ImGui::IsKeyPressed(keys::kF5, false)) actions.saveState = true;
  if (ImGui::IsKeyPressed(keys::kEscape, false)) actions.quit = true;
  if (ImGui::IsKeyDown(keys::kA) && ImGui::IsMousePosValid() && !io.WantCaptureMouse) {
    controller.pointAt(mouseOnTargetPlane(camera, io.MousePos, io.DisplaySize), ImGui::IsKeyPressed(keys::kA, false));
  }
}

void drawNotices(const PanelInfo& info) {
  if (info.blowUp.empty()) return;
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, 10), ImGuiCond_Always, ImVec2(0.5f, 0));
  ImGui::SetNextWindowBgAlpha(0.9f);
  constexpr ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                     ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;
  if (ImGui::Begin("##notice", nullptr, flags)) {
    ImGui::PushTextWrapPos(io.DisplaySize.x * 0.6f);
    ImGui::TextColored(ImVec4(1.0f, 0.25f, 0.2f, 1.0f), "%s", info.blowUp.c_str());
    ImGui::TextUnformatted(info.blowUpHint.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::End();
}

void drawPanel(const PanelInfo& info, const FrameStats& stats, SceneProducer& scene, ViewState& view,
               PanelActions& actions, PanelLayout& layout) {
  layout.clear();
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(380, std::max(200.0f, io.DisplaySize.y - 20)), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(0.85f);
  if (ImGui::Begin("graphsim")) {
    ImGui::PushItemWidth(-110); // sliders leave room for their labels
    drawRender(view, layout);
    if (ImGui::CollapsingHeader("Graph", ImGuiTreeNodeFlags_DefaultOpen)) drawGraph(info, scene, layout);
    if (ImGui::CollapsingHeader("Parameters", ImGuiTreeNodeFlags_DefaultOpen)) scene.drawParameters(stats, layout);
    if (ImGui::CollapsingHeader("Stats", ImGuiTreeNodeFlags_DefaultOpen)) drawStats(info, stats, scene);
    if (ImGui::CollapsingHeader("Actions", ImGuiTreeNodeFlags_DefaultOpen)) drawActions(info, scene, actions, layout);
    ImGui::PopItemWidth();
  }
  ImGui::End();
}

} // namespace graphsim::app
