// The ImGui panel framework (Graph, Parameters, Stats, Actions) and the view input (camera drags, keys), for any
// scene: the Graph section lists the producer's nodes, the Parameters section and the scene's Stats lines are the
// scene's own (SceneProducer::drawParameters / drawStats). Drawing only reads state and makes requests; the scene
// applies them at the start of the next frame.
#pragma once

#include <string>

#include "app/scenes/panel_layout.h"
#include "app/scenes/scene.h"
#include "app/ui/frame_stats.h"
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
  std::string blowUpHint; // the notice's second line (what to change)
  bool profiling = false; // nodes carry times (NodeInfo::ms)
};

struct ViewState {
  render::Camera camera;
  bool panelVisible = true;
  // How particles are drawn (the panel's Render section; a run starts with its scene's render settings).
  render::RenderMode renderMode = render::RenderMode::Particles;
  render::SurfaceStyle surface;
};

// One-shot requests the session carries out (after the frame's UI).
struct PanelActions {
  bool quit = false;
  bool captureScene = false; // F12 / button: the next frame without the panel, to a PNG
  bool saveState = false;    // F5 / button: a snapshot of this frame's state (app/snapshot)
  bool dumpGraph = false;
};

// Between ImGui::NewFrame and ImGui::Render. Camera and keys act only when ImGui does not want the mouse/keyboard.
void handleViewInput(ViewState& view, SceneProducer& scene, PanelActions& actions);
// Notices that show whether or not the panel is visible (a blow-up, in red, at the top of the window).
void drawNotices(const PanelInfo& info);
void drawPanel(const PanelInfo& info, const FrameStats& stats, SceneProducer& scene, ViewState& view,
               PanelActions& actions, PanelLayout& layout);

} // namespace graphsim::app
