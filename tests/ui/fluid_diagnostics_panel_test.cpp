// The fluid scene's diagnostics node in the panel's Graph section (issue 15, docs/DIAGNOSTICS.md), as
// diagnostics_panel_test.cpp does for n-body: its checkbox, driven by injected mouse input on the headless twin,
// turns the sampling off and on again through the FluidController, and the samples stop and resume accordingly. CPU
// backend everywhere; the CUDA backend where a CUDA device exists (else skipped).
#include <gtest/gtest.h>

#include <cstdio>

#include "app/run/session.h"
#include "app/scenes/fluid/fluid_controller.h"
#include "app/scenes/fluid/fluid_scene.h"
#include "app/scenes/scene.h"
#include "app/ui/window.h"
#include "compute/cuda_device.h"
#include "compute/fluid/fluid_backend.h"

namespace graphsim::app {
namespace {

RunOptions panelOptions() {
  RunOptions options;
  options.scene = loadPreset("fluid");
  fluidConfig(options.scene).particles = 1000;
  fluidConfig(options.scene).diagnosticsEvery = 2;
  // Tall: the CUDA fluid graph's node list puts the diagnostics row below 720 pixels (H100: the click missed there).
  options.scene.render.width = 1280;
  options.scene.render.height = 1600;
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

// Hover, press, release, one per tick, each at the widget's place in the latest layout: rows above the Graph section
// (the Stats lines) may change height from frame to frame, so a place read once can be stale by the press.
void click(Session& session, HeadlessWindow& window, const char* id) {
  for (const bool down : {false, true, false}) {
    const WidgetRect box = session.layout().at(id);
    ASSERT_LT(box.y1, static_cast<float>(window.framebufferSize().height)) << id << " lies below the window";
    std::printf("[ layout ] %s at (%.0f, %.0f)%s\n", id, box.cx(), box.cy(), down ? ", pressed" : "");
    window.inject({box.cx(), box.cy(), {down, false, false}, 0, {}});
    tick(session, 1);
  }
}

class FluidDiagnosticsPanel : public ::testing::TestWithParam<BackendKind> {};

TEST_P(FluidDiagnosticsPanel, TheGraphSectionsCheckboxStopsAndResumesTheSamples) {
  const BackendKind backend = GetParam();
  if (backend == BackendKind::Cuda) {
    const CudaDeviceList cuda = listCudaDevices();
    if (cuda.devices.empty()) GTEST_SKIP() << "no CUDA device: " << cuda.whyNone;
  }
  const RunOptions options = panelOptions();
  HeadlessWindow window(options.scene.render.width, options.scene.render.height);
  Session session(options, backend, window);
  fluid::FluidBackend& sim = *fluidBackend(session.scene());
  tick(session, 8);
  ASSERT_TRUE(session.layout().count("node:diagnostics")) << "the Graph section has no diagnostics checkbox";
  ASSERT_TRUE(sim.diagnostics().has_value()) << "no sample after 8 frames sampled every 2";
  const std::uint64_t series = sim.diagnostics()->series;
  EXPECT_EQ(sim.diagnostics()->sums.particles, 1000u);

  click(session, window, "node:diagnostics");
  tick(session, 2);
  EXPECT_FALSE(sim.diagnosticsEnabled());
  EXPECT_FALSE(fluidController(session.scene())->diagnosticsWanted());
  tick(session, 4); // the frames in flight before the click complete; nothing samples after them
  const std::uint64_t stopped = sim.diagnostics()->frame;
  tick(session, 6);
  EXPECT_EQ(sim.diagnostics()->frame, stopped) << "samples went on with the box unticked";

  click(session, window, "node:diagnostics");
  tick(session, 7);
  EXPECT_TRUE(sim.diagnosticsEnabled());
  EXPECT_GT(sim.diagnostics()->frame, stopped) << "samples did not resume";
  EXPECT_EQ(sim.diagnostics()->series, series) << "a toggle is no reset";
  EXPECT_EQ(session.finish().validationMessages, 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, FluidDiagnosticsPanel, ::testing::Values(BackendKind::Cpu, BackendKind::Cuda),
                         [](const ::testing::TestParamInfo<BackendKind>& param) {
                           return param.param == BackendKind::Cpu ? "Cpu" : "Cuda";
                         });

} // namespace
} // namespace graphsim::app
