// The ImGui panel (Graph, Parameters, Stats, Actions) and the view input (camera drags, keys). Drawing only reads
// state and calls SimController requests; what a request does lives in sim_controller.cpp.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "app/run/frame_stats.h"
#include "app/run/sim_controller.h"
#include "render/camera.h"

namespace graphsim::app {

// What the session shows about itself.
struct PanelInfo {
  std::string backend;        // "cuda" / "cpu"
  std::string gpu;            // Vulkan device name
  std::string dataPath;       // how frames reach the renderer: "cuda interop", "cuda host copy", "cpu (mapped buffer)"
  std::string dataPathReason; // host copy: why (--interop off, or what failed under --interop auto)
  std::uint32_t framesInFlight = 0;
  std::string presentMode; // empty when headless
  bool canDumpGraph = false;
  std::string blowUp;     // non-empty: the simulation produced non-finite values (frame, stage); shown in red
  bool profiling = false; // nodes carry times (NodeInfo::ms)
};

struct ViewState {
  render::Camera camera;
  float pointRadius = 0.02f;
  bool panelVisible = true;
  int bodiesEdit = 0; // structural sliders while dragged (applied on release); 0: show the controller's value
  int substepsEdit = 0;
};

// One-shot requests the session carries out (after the frame's UI).
struct PanelActions {
  bool quit = false;
  bool captureScene = false; // F12 / button: the next frame without the panel, to a PNG
  bool dumpGraph = false;
};

// Screen rectangles of the panel's widgets in the last frame, by id ("node:integrate", "param:dt", "action:pause"):
// the scripted UI tests click where a user would.
struct WidgetRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float cx() const { return 0.5f * (x0 + x1); }
  float cy() const { return 0.5f * (y0 + y1); }
};
using PanelLayout = std::map<std::string, WidgetRect, std::less<>>; // std::less<>: looked up by string_view

// Between ImGui::NewFrame and ImGui::Render. Camera and keys act only when ImGui does not want the mouse/keyboard.
void handleViewInput(ViewState& view, SimController& controller, PanelActions& actions);
// Notices that show whether or not the panel is visible (a blow-up, in red, at the top of the window).
void drawNotices(const PanelInfo& info);
void drawPanel(const PanelInfo& info, const FrameStats& stats, const std::vector<NodeInfo>& nodes,
               SimController& controller, ViewState& view, PanelActions& actions, PanelLayout& layout);

} // namespace graphsim::app
