// Scripted UI test of the fluid scene's panel (issue 13), driven by mouse and key events injected into ImGui on the
// headless twin, as tests/ui/scripted_ui_test.cpp does for n-body: switch a fluid toggle, drag a slider, tick a node,
// hold A to move the obstacle, and check that the backend got each. CPU backend (the CUDA fluid backend's own tests
// are in tests/gpu).
#include <gtest/gtest.h>

#include <cmath>

#include "app/scenes/fluid/fluid_controller.h"
#include "app/scenes/fluid/fluid_scene.h"
#include "app/ui/keys.h"
#include "tests/ui/panel_test_support.h"

namespace graphsim::app {
namespace {

using fluid::FluidToggle;

RunOptions fluidOptions() {
  RunOptions options = panelOptions("fluid", 1000);
  options.scene.render.width = 1280;
  options.scene.render.height = 720;
  return options;
}

TEST(FluidPanel, ToggleSliderNodeAndObstacleReachTheBackend) {
  RunOptions options = fluidOptions();
  HeadlessWindow window(options.scene.render.width, options.scene.render.height);
  Session session(options, BackendKind::Cpu, window);
  fluid::FluidBackend& backend = *fluidBackend(session.scene());
  FluidController& controller = *fluidController(session.scene());
  tick(session, 2); // the panel lays itself out
  const PanelLayout layout = session.layout();
  for (const char* id : {"toggle:viscosity", "toggle:obstacle", "toggle:gravity", "toggle:colour", "param:stiffness",
                         "param:particles", "param:obstacle_radius", "node:obstacle"})
    ASSERT_TRUE(layout.count(id)) << "the panel has no " << id;

  // A fluid toggle: viscosity off (a kernel argument on CUDA).
  ASSERT_TRUE(backend.enabled(FluidToggle::Viscosity));
  click(window, layout.at("toggle:viscosity"));
  tick(session, 3);
  EXPECT_FALSE(backend.enabled(FluidToggle::Viscosity));
  EXPECT_FALSE(controller.wanted(FluidToggle::Viscosity));

  // The stiffness slider, dragged from its left end to its right end.
  const float before = backend.config().params.stiffness;
  dragAcross(window, session.layout().at("param:stiffness"));
  tick(session, 5);
  const float after = controller.params().stiffness;
  EXPECT_GT(after, 4.0f * before) << "stiffness " << before << " -> " << after;
  EXPECT_EQ(backend.config().params.stiffness, after) << "the new stiffness did not reach the backend";

  // The Graph section's obstacle node switches the obstacle toggle.
  click(window, session.layout().at("node:obstacle"));
  tick(session, 3);
  EXPECT_FALSE(backend.enabled(FluidToggle::Obstacle));

  // Hold A over the scene: the obstacle is switched back on and follows the mouse (inside the box).
  const float x0 = backend.config().params.obstacleCentre[0];
  window.inject({1000, 400, {}, 0, {keys::kA}});
  window.inject({1050, 380, {}, 0, {keys::kA}});
  window.inject({1050, 380, {}, 0, {}});
  tick(session, 4);
  EXPECT_TRUE(backend.enabled(FluidToggle::Obstacle));
  const fluid::FluidParams& p = backend.config().params;
  EXPECT_NE(p.obstacleCentre[0], x0) << "the obstacle did not follow the mouse";
  for (int a = 0; a < 3; ++a) {
    EXPECT_GE(p.obstacleCentre[a], p.obstacleRadius);
    EXPECT_LE(p.obstacleCentre[a], p.boxSize[a] - p.obstacleRadius);
  }
  EXPECT_EQ(session.finish().validationMessages, 0u);
}

// The Render section: the surface radio button switches the frame to the liquid surface (its passes are timed from
// then on), its smoothing slider reaches the view, and particles switches back.
TEST(FluidPanel, RenderModeSwitchesToTheSurfaceAndBack) {
  RunOptions options = fluidOptions();
  HeadlessWindow window(options.scene.render.width, options.scene.render.height);
  Session session(options, BackendKind::Cpu, window);
  tick(session, 2);
  ASSERT_TRUE(session.layout().count("render:surface"));
  EXPECT_FALSE(session.layout().count("render:smoothing_radius")) << "the surface's sliders show in surface mode only";
  EXPECT_EQ(session.view().renderMode, render::RenderMode::Particles);

  click(window, session.layout().at("render:surface"));
  tick(session, 4); // the click, then frames drawn in the new mode
  EXPECT_EQ(session.view().renderMode, render::RenderMode::Surface);
  const render::RenderPassTimes times = session.renderer().lastRenderPassTimes();
  if (times.total >= 0) {
    EXPECT_GT(times.thickness + times.depth + times.smoothing, 0.0) << "no surface pass timed";
  }

  ASSERT_TRUE(session.layout().count("render:smoothing_radius"));
  const float radius = session.view().surface.smoothingRadius;
  dragAcross(window, session.layout().at("render:smoothing_radius"));
  tick(session, 6); // its five events, one a frame
  EXPECT_GT(session.view().surface.smoothingRadius, radius) << "dragged to the slider's right end";

  click(window, session.layout().at("render:particles"));
  tick(session, 4);
  EXPECT_EQ(session.view().renderMode, render::RenderMode::Particles);
  EXPECT_EQ(session.finish().validationMessages, 0u);
}

// The particle count is structural: a new count resets the scene (spacing and radius follow from it).
TEST(FluidPanel, ParticleCountResetsWithADerivedRadius) {
  RunOptions options = fluidOptions();
  HeadlessWindow window(options.scene.render.width, options.scene.render.height);
  Session session(options, BackendKind::Cpu, window);
  fluid::FluidBackend& backend = *fluidBackend(session.scene());
  tick(session, 2);
  const float spacing = backend.config().params.spacing;
  fluidController(session.scene())->setParticles(2000);
  tick(session, 2);
  EXPECT_EQ(backend.config().particles, 2000);
  EXPECT_LT(backend.config().params.spacing, spacing);
  fluid::FluidState state;
  backend.download(state);
  EXPECT_EQ(state.size(), 2000u);
  EXPECT_EQ(session.finish().validationMessages, 0u);
}

} // namespace
} // namespace graphsim::app
