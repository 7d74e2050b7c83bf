// Scripted UI test: the panel driven the way a user drives it, by mouse events injected into ImGui on the headless
// twin. Unticks the integrate node's checkbox and drags the dt slider, then checks what the backend reports and
// what the next frames do. CPU backend everywhere; the CUDA backend where a CUDA device exists (else skipped).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "app/run/session.h"
#include "app/scenes/nbody/nbody_controller.h"
#include "app/scenes/nbody/nbody_scene.h"
#include "app/scenes/scene_config.h"
#include "app/ui/window.h"
#include "compute/cuda_device.h"
#include "compute/nbody/nbody.h"
#include "compute/nbody/nbody_cuda_backend.h"

namespace graphsim::app {
namespace {

RunOptions uiOptions() {
  RunOptions options;
  options.scene = loadPreset("nbody");
  options.scene.sim.bodies = 1024;
  options.scene.render.width = 1280;
  options.scene.render.height = 720;
  options.headless = true;
  options.panel = true;
  options.validation = true;
  options.frames = 1000; // upper bound; the test stops ticking earlier
  options.framesInFlight = 3;
  return options;
}

// The n-body parts of the session's scene.
NBodyBackend& nbody(Session& session) { return *nbodyBackend(session.scene()); }
NBodyController& controller(Session& session) { return *nbodyController(session.scene()); }

void tick(Session& session, int n = 1) {
  for (int i = 0; i < n; ++i) ASSERT_TRUE(session.tick());
}

// Hover, press, release at (x, y): ImGui needs to see the mouse over the item before the press.
void click(HeadlessWindow& window, float x, float y) {
  window.inject({x, y, {false, false, false}, 0, {}});
  window.inject({x, y, {true, false, false}, 0, {}});
  window.inject({x, y, {false, false, false}, 0, {}});
}

const NodeInfo* findNode(const std::vector<NodeInfo>& nodes, const std::string& name) {
  for (const NodeInfo& n : nodes)
    if (n.name == name) return &n;
  return nullptr;
}

class ScriptedUi : public ::testing::TestWithParam<BackendKind> {};

TEST_P(ScriptedUi, UntickingIntegrateAndDraggingDtReachTheBackend) {
  const BackendKind backend = GetParam();
  if (backend == BackendKind::Cuda) {
    const CudaDeviceList cuda = listCudaDevices();
    if (cuda.devices.empty()) GTEST_SKIP() << "no CUDA device: " << cuda.whyNone;
  }
  RunOptions options = uiOptions();
  HeadlessWindow window(options.scene.render.width, options.scene.render.height);
  Session session(options, backend, window);
  tick(session, 2); // the panel lays itself out
  const PanelLayout layout = session.layout();
  ASSERT_TRUE(layout.count("node:integrate")) << "the Graph section has no integrate checkbox";
  ASSERT_TRUE(layout.count("param:dt")) << "the Parameters section has no dt slider";
  ASSERT_TRUE(nbody(session).stageEnabled(NBodyStage::Integrate));

  // Untick integrate.
  const WidgetRect box = layout.at("node:integrate");
  click(window, box.cx(), box.cy());
  tick(session, 3);
  EXPECT_FALSE(nbody(session).stageEnabled(NBodyStage::Integrate));
  const std::vector<NodeInfo> nodes = nbody(session).nodes(); // findNode points into it: keep it alive
  const NodeInfo* integrate = findNode(nodes, "integrate");
  ASSERT_NE(integrate, nullptr);
  // CUDA: nodes() reads the exec's state back with cudaGraphNodeGetEnabled.
  EXPECT_FALSE(integrate->enabled) << "the backend still reports the integrate node enabled";
  EXPECT_FALSE(controller(session).stageWanted(NBodyStage::Integrate));

  // Drag the dt slider from its left end to its right end.
  const float dtBefore = controller(session).params().dt;
  const WidgetRect slider = session.layout().at("param:dt");
  window.inject({slider.x0 + 4, slider.cy(), {false, false, false}, 0, {}});
  window.inject({slider.x0 + 4, slider.cy(), {true, false, false}, 0, {}});
  window.inject({slider.cx(), slider.cy(), {true, false, false}, 0, {}});
  window.inject({slider.x1 - 4, slider.cy(), {true, false, false}, 0, {}});
  window.inject({slider.x1 - 4, slider.cy(), {false, false, false}, 0, {}});
  tick(session, 5);
  const float dtAfter = controller(session).params().dt;
  EXPECT_GT(dtAfter, 4.0f * dtBefore) << "dt " << dtBefore << " -> " << dtAfter;
  EXPECT_EQ(nbody(session).config().params.dt, dtAfter) << "the new dt did not reach the backend";
  if (backend == BackendKind::Cuda) {
    EXPECT_GT(nbody(session).counters().nodeUpdates, 0u) << "dt changes must arrive as kernel-node updates";
    EXPECT_EQ(nbody(session).counters().reinstantiations, 0u);
  }

  // A frozen stage: with integrate off, positions do not move, whatever dt is.
  BodyState before, after;
  std::vector<float> colour;
  nbody(session).download(before, colour);
  tick(session, 5);
  nbody(session).download(after, colour);
  ASSERT_EQ(before.posMass.size(), after.posMass.size());
  EXPECT_EQ(before.posMass, after.posMass) << "positions moved with the integrate node disabled";

  // And it moves again once re-ticked.
  click(window, box.cx(), box.cy());
  tick(session, 5);
  EXPECT_TRUE(nbody(session).stageEnabled(NBodyStage::Integrate));
  nbody(session).download(after, colour);
  EXPECT_NE(before.posMass, after.posMass);

  const RunSummary summary = session.finish();
  EXPECT_EQ(summary.validationMessages, 0u);
}

// Issue 14: the capacity (--max-bodies) is one number for the render buffers, the CUDA arrays and the panel's
// bodies slider, shown under it; a body-count change within it (the slider's path, NBodyController::setBodies) is
// kernel-node updates only on CUDA.
TEST_P(ScriptedUi, CapacityIsShownAndCountChangesWithinItAreNodeUpdates) {
  const BackendKind backend = GetParam();
  if (backend == BackendKind::Cuda) {
    const CudaDeviceList cuda = listCudaDevices();
    if (cuda.devices.empty()) GTEST_SKIP() << "no CUDA device: " << cuda.whyNone;
  }
  RunOptions options = uiOptions();
  options.scene.sim.maxBodies = 4096;
  HeadlessWindow window(options.scene.render.width, options.scene.render.height);
  Session session(options, backend, window);
  tick(session, 2);
  EXPECT_TRUE(session.layout().count("stat:capacity")) << "no capacity line under the bodies slider";
  EXPECT_EQ(controller(session).maxBodies(), 4096);
  EXPECT_EQ(nbodyCapacityLine(1024, 4096, backend == BackendKind::Cuda),
            backend == BackendKind::Cuda ? "bodies 1024 / capacity 4096 (changes within: node updates)"
                                         : "bodies 1024 / capacity 4096");
  if (auto* cuda = dynamic_cast<NBodyCudaBackend*>(&nbody(session))) {
    EXPECT_EQ(cuda->capacity(), 4096) << "the render buffers and the CUDA arrays hold one capacity";
  }

  const UpdateCounters before = nbody(session).counters();
  for (const std::int64_t bodies : {4096, 2048, 3000}) {
    controller(session).setBodies(bodies);
    tick(session, 2);
    EXPECT_EQ(nbody(session).config().bodies, bodies);
  }
  EXPECT_THROW(controller(session).setBodies(4097), std::invalid_argument) << "the slider stays within the capacity";
  const UpdateCounters after = nbody(session).counters();
  EXPECT_EQ(after.wholeGraphUpdates, before.wholeGraphUpdates);
  EXPECT_EQ(after.reinstantiations, before.reinstantiations);
  if (backend == BackendKind::Cuda) {
    EXPECT_GT(after.nodeUpdates, before.nodeUpdates) << "the counts reach the kernels as node updates";
  }
  EXPECT_EQ(session.finish().validationMessages, 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, ScriptedUi, ::testing::Values(BackendKind::Cpu, BackendKind::Cuda),
                         [](const auto& p) { return p.param == BackendKind::Cpu ? "Cpu" : "Cuda"; });

// Keys go through the same injected input: Space pauses (positions stay), S steps one frame, F1 hides the panel.
TEST(ScriptedUiKeys, SpacePausesSStepsF1HidesThePanel) {
  RunOptions options = uiOptions();
  HeadlessWindow window(options.scene.render.width, options.scene.render.height);
  Session session(options, BackendKind::Cpu, window);
  tick(session, 2);
  const float mx = 1000, my = 400;      // over the scene, away from the panel
  window.inject({mx, my, {}, 0, {32}}); // Space down
  window.inject({mx, my, {}, 0, {}});
  tick(session, 2);
  ASSERT_TRUE(session.scene().paused());
  BodyState a, b;
  std::vector<float> colour;
  nbody(session).download(a, colour);
  tick(session, 3);
  nbody(session).download(b, colour);
  EXPECT_EQ(a.posMass, b.posMass) << "paused, yet the bodies moved";
  window.inject({mx, my, {}, 0, {83}}); // S: one step
  window.inject({mx, my, {}, 0, {}});
  tick(session, 3);
  nbody(session).download(b, colour);
  EXPECT_NE(a.posMass, b.posMass) << "S did not step the paused simulation";
  window.inject({mx, my, {}, 0, {290}}); // F1
  window.inject({mx, my, {}, 0, {}});
  tick(session, 2);
  EXPECT_FALSE(session.view().panelVisible);
  EXPECT_TRUE(session.layout().empty());
  EXPECT_EQ(session.finish().validationMessages, 0u);
}

} // namespace
} // namespace graphsim::app
