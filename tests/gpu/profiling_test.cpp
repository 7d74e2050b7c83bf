// --profile on the CUDA backend: event-record nodes around every kernel node, per-node GPU times read without
// waiting, and the marks leave the simulation untouched.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/run/session.h"
#include "app/scenes/scene_config.h"
#include "app/ui/window.h"
#include "compute/nbody/nbody_cpu_backend.h"
#include "compute/nbody/nbody_cuda_backend.h"
#include "tests/gpu/gpu_test_support.h"

namespace graphsim {
namespace {

std::size_t countType(const std::vector<NodeInfo>& nodes, const std::string& type) {
  std::size_t n = 0;
  for (const NodeInfo& node : nodes) n += node.type == type ? 1 : 0;
  return n;
}

TEST(Profiling, MarksTimeEveryKernelNodeAndLeaveTheStateAlone) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  const NBodyConfig config = gputest::scene("galaxy-pair", 4096);
  NBodyCudaBackend plain(config, 0);
  NBodyCudaBackend profiled(config, 0);
  ASSERT_TRUE(profiled.setProfiling(true));
  std::vector<NodeInfo> nodes = profiled.nodes();
  const std::size_t kernels = countType(nodes, "kernel");
  EXPECT_EQ(countType(nodes, "event record"), kernels + 1) << "one mark before the first kernel and one after each";
  EXPECT_EQ(profiled.counters().reinstantiations, 1u) << profiled.counters().lastFallbackReason;
  EXPECT_NE(profiled.counters().lastFallbackReason.find("profiling on"), std::string::npos);

  for (int i = 0; i < 5; ++i) {
    plain.step();
    profiled.step();
  }
  nodes = profiled.nodes();
  double forcesMs = -1;
  for (const NodeInfo& n : nodes) {
    if (n.type == "kernel") {
      EXPECT_GE(n.ms, 0.0) << n.name << " has no GPU time";
      if (n.name == "forces") forcesMs = n.ms;
    } else {
      EXPECT_LT(n.ms, 0.0) << n.name << ": only kernel nodes are timed";
    }
  }
  EXPECT_GT(forcesMs, 0.0);
  std::printf("[ measured ] N = 4096: forces node %.4f ms\n", forcesMs);

  BodyState a, b;
  std::vector<float> ca, cb;
  plain.download(a, ca);
  profiled.download(b, cb);
  EXPECT_EQ(a.posMass, b.posMass) << "profiling marks changed the simulation";

  ASSERT_TRUE(profiled.setProfiling(false));
  EXPECT_EQ(countType(profiled.nodes(), "event record"), 0u);
  profiled.step();
}

// The interactive path: a headless Session with --profile on the CUDA backend (interop graph, F = 3) shows times.
TEST(Profiling, SessionWithProfileShowsKernelTimesUnderValidation) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  app::RunOptions options;
  options.scene = app::loadPreset("nbody");
  options.scene.sim.bodies = 8192;
  options.headless = true;
  options.panel = true;
  options.profile = true;
  options.validation = true;
  options.frames = 30;
  app::HeadlessWindow window(640, 360);
  app::Session session(options, app::BackendKind::Cuda, window);
  while (session.tick()) {
  }
  bool timed = false;
  for (const NodeInfo& n : session.backend().nodes()) timed |= n.type == "kernel" && n.ms > 0;
  EXPECT_TRUE(timed);
  EXPECT_EQ(session.finish().validationMessages, 0u);
}

} // namespace
} // namespace graphsim
