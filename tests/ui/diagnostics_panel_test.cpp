// The diagnostics node in the panel's Graph section (issue 15, docs/DIAGNOSTICS.md): its checkbox, driven by injected
// mouse input on the headless twin, turns the sampling off and on again through the NBodyController, and the samples
// stop and resume accordingly. CPU backend everywhere; the CUDA backend where a CUDA device exists (else skipped).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/run/session.h"
#include "app/scenes/nbody/nbody_controller.h"
#include "app/scenes/nbody/nbody_scene.h"
#include "app/scenes/scene.h"
#include "app/ui/window.h"
#include "compute/cuda_device.h"
#include "compute/nbody/nbody_diagnostics.h"

namespace graphsim::app {
namespace {

RunOptions panelOptions() {
  RunOptions options;
  options.scene = loadPreset("nbody");
  options.scene.sim.bodies = 512;
  options.scene.sim.diagnosticsEvery = 2;
  options.headless = true;
  options.panel = true;
  options.validation = true;
  options.frames = 1000; // upper bound; the test stops ticking earlier
  options.framesInFlight = 3;
  return options;
}

void tick(Session& session, int n) {
  for (int i = 0; i < n; ++i) ASSERT_TRUE(session.tick());
}

void click(HeadlessWindow& window, float x, float y) {
  window.inject({x, y, {false, false, false}, 0, {}});
  window.inject({x, y, {true, false, false}, 0, {}});
  window.inject({x, y, {false, false, false}, 0, {}});
}

class DiagnosticsPanel : public ::testing::TestWithParam<BackendKind> {};

TEST_P(DiagnosticsPanel, TheGraphSectionsCheckboxStopsAndResumesTheSamples) {
  const BackendKind backend = GetParam();
  if (backend == BackendKind::Cuda) {
    const CudaDeviceList cuda = listCudaDevices();
    if (cuda.devices.empty()) GTEST_SKIP() << "no CUDA device: " << cuda.whyNone;
  }
  const RunOptions options = panelOptions();
  HeadlessWindow window(options.scene.render.width, options.scene.render.height);
  Session session(options, backend, window);
  NBodyBackend& sim = *nbodyBackend(session.scene());
  tick(session, 8);
  ASSERT_TRUE(session.layout().count("node:diagnostics")) << "the Graph section has no diagnostics checkbox";
  ASSERT_TRUE(sim.diagnostics().has_value()) << "no sample after 8 frames sampled every 2";
  const std::uint64_t series = sim.diagnostics()->series;

  const WidgetRect box = session.layout().at("node:diagnostics");
  click(window, box.cx(), box.cy()); // hover, press, release: one injected input per tick
  tick(session, 4);
  EXPECT_FALSE(sim.diagnosticsEnabled());
  EXPECT_FALSE(nbodyController(session.scene())->diagnosticsWanted());
  tick(session, 4); // the frames in flight before the click complete; nothing samples after them
  const std::uint64_t stopped = sim.diagnostics()->frame;
  tick(session, 6);
  EXPECT_EQ(sim.diagnostics()->frame, stopped) << "samples went on with the box unticked";

  click(window, box.cx(), box.cy());
  tick(session, 10);
  EXPECT_TRUE(sim.diagnosticsEnabled());
  EXPECT_GT(sim.diagnostics()->frame, stopped) << "samples did not resume";
  EXPECT_EQ(sim.diagnostics()->series, series) << "a toggle is no reset";
  EXPECT_EQ(session.finish().validationMessages, 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, DiagnosticsPanel, ::testing::Values(BackendKind::Cpu, BackendKind::Cuda),
                         [](const ::testing::TestParamInfo<BackendKind>& param) {
                           return param.param == BackendKind::Cpu ? "Cpu" : "Cuda";
                         });

} // namespace
} // namespace graphsim::app
