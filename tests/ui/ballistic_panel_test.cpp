// Scripted UI test of the ballistic test scene's panel (issue 27, tests/scenes/ballistic): the generic panel draws
// its Graph section from the step table and its Parameters section from the parameter row; clicking the bounce
// toggle, dragging the restitution slider and ticking the bounce node reach the running scene (read back through
// the SceneProducer interface: controls, nodes, state). CPU backend, on the headless twin, as fluid_panel_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "tests/ui/panel_test_support.h"

namespace graphsim::app {
namespace {

bool bounceNodeEnabled(const SceneProducer& scene) {
  const auto& nodes = scene.nodes();
  const auto it = std::find_if(nodes.begin(), nodes.end(), [](const NodeInfo& n) { return n.name == "bounce"; });
  return it != nodes.end() && it->enabled;
}

float lowestY(SceneProducer& scene) {
  const SceneState state = scene.saveState();
  float y = 1e9f;
  for (std::size_t i = 1; i < state.arrays.front().values.size(); i += 4)
    y = std::min(y, state.arrays.front().values[i]);
  return y;
}

TEST(BallisticPanel, ToggleSliderAndNodeReachTheScene) {
  const RunOptions options = panelOptions("ballistic", 500); // no preset file: the scene's defaults
  HeadlessWindow window(options.scene.render.width, options.scene.render.height);
  Session session(options, BackendKind::Cpu, window);
  SceneProducer& scene = session.scene();
  tick(session, 2);
  for (const char* id : {"toggle:bounce", "param:restitution", "node:bounce", "node:fall"})
    ASSERT_TRUE(session.layout().count(id)) << "the panel has no " << id;

  // The toggle: bounce off, the node list follows, and the particles fall through the floor.
  ASSERT_TRUE(bounceNodeEnabled(scene));
  click(window, session.layout().at("toggle:bounce"));
  tick(session, 60);
  EXPECT_EQ(scene.controls()["bounce"], false);
  EXPECT_FALSE(bounceNodeEnabled(scene));
  EXPECT_LT(lowestY(scene), 0.0f) << "bounce off, yet every particle stayed above the floor";

  // The Graph section's bounce node switches it back on.
  click(window, session.layout().at("node:bounce"));
  tick(session, 3);
  EXPECT_TRUE(bounceNodeEnabled(scene));
  EXPECT_EQ(scene.controls()["bounce"], true);

  // The restitution slider, clicked at its left end.
  const float before = scene.controls()["restitution"];
  const WidgetRect slider = session.layout().at("param:restitution");
  click(window, {slider.x0 + 2, slider.y0, slider.x0 + 6, slider.y1});
  tick(session, 3);
  EXPECT_LT(scene.controls()["restitution"].get<float>(), 0.1f * before);
  EXPECT_EQ(session.finish().validationMessages, 0u);
}

} // namespace
} // namespace graphsim::app
