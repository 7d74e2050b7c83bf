// The ballistic test scene on CUDA (issue 27, tests/scenes/ballistic): its graph, built with the kit (kernel-node
// specs, frame shell, timing ring), against its CPU reference through the same SceneProducer interface: the state
// within a tolerance after 60 frames, then after a restitution change (a node update) and bounce off (node
// disable), which must take effect on the GPU. Skips without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "app/scenes/scene.h"
#include "compute/cuda_device.h"

namespace graphsim::app {
namespace {

std::vector<float> positions(SceneProducer& p) { return p.saveState().arrays.front().values; }

double worstDifference(SceneProducer& a, SceneProducer& b) {
  const std::vector<float> x = positions(a), y = positions(b);
  EXPECT_EQ(x.size(), y.size());
  double worst = 0;
  for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i)
    worst = std::max(worst, std::fabs(double(x[i]) - y[i]));
  return worst;
}

float lowestY(SceneProducer& p) {
  const std::vector<float> x = positions(p);
  float y = 1e9f;
  for (std::size_t i = 1; i < x.size(); i += 4) y = std::min(y, x[i]);
  return y;
}

TEST(BallisticGpu, CudaFollowsTheCpuReferenceAndTheToggleTakesEffect) {
  const CudaDeviceList cuda = listCudaDevices();
  if (cuda.devices.empty()) GTEST_SKIP() << "no CUDA device: " << cuda.whyNone;
  const Scene& scene = findScene("ballistic");
  SceneSettings settings = scene.defaults();
  scene.setCount(settings, 10000);
  const std::unique_ptr<SceneProducer> cpu = scene.makeProducer(settings, {.cuda = false});
  const std::unique_ptr<SceneProducer> gpu =
      scene.makeProducer(settings, {.cuda = true, .cudaDevice = cuda.devices.front().index});
  ASSERT_EQ(gpu->backendName(), "cuda");
  const auto frames = [&](std::uint64_t from, std::uint64_t to) {
    for (std::uint64_t k = from; k < to; ++k)
      for (SceneProducer* p : {cpu.get(), gpu.get()}) {
        p->beginFrame(k);
        p->produce(k);
      }
    gpu->finish();
  };
  frames(0, 60);
  EXPECT_LE(worstDifference(*cpu, *gpu), 1e-5);
  EXPECT_GE(lowestY(*gpu), 0.0f) << "bounce on, yet a particle left through the floor";
  EXPECT_GT(gpu->simMs(), 0.0) << "no GPU time from the timing ring";

  for (SceneProducer* p : {cpu.get(), gpu.get()}) {
    nlohmann::json c = p->controls();
    c["restitution"] = 0.5;
    c["bounce"] = false;
    p->setControls(c);
  }
  frames(60, 120);
  EXPECT_LE(worstDifference(*cpu, *gpu), 1e-4);
  EXPECT_LT(lowestY(*gpu), 0.0f) << "bounce off, yet every particle stayed above the floor on the GPU";
  const UpdateCounters counters = gpu->counters();
  EXPECT_EQ(counters.enableToggles, 1u) << "bounce off is one node disable";
  EXPECT_GE(counters.nodeUpdates, 1u) << "the restitution is a node update";
  EXPECT_EQ(counters.reinstantiations, 0u);
}

} // namespace
} // namespace graphsim::app
