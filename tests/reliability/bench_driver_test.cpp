// graphsim bench on the frame driver (issue 18): its JSON keeps the keys it had before the driver (plus
// "interrupted"), and Ctrl-C mid-run drains, writes the figures of the frames measured so far and exits 130.
// launch-early (LaunchOrder::BeforeThrottle, issue 14): its order of work on a real renderer, and its skip reason.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/frame/frame_driver.h"
#include "compute/errors.h"
#include "render/particle_renderer.h"
#include "render/vulkan_context.h"
#include "tests/reliability/child_process.h"
#include "tests/reliability/test_support.h"

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using json = nlohmann::json;

// Every key path of a JSON document; array elements share one path ("variants.[].name").
void collectKeys(const json& j, const std::string& prefix, std::set<std::string>& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      out.insert(prefix + key);
      collectKeys(value, prefix + key + ".", out);
    }
  } else if (j.is_array()) {
    for (const json& e : j) collectKeys(e, prefix + "[].", out);
  }
}

json readJson(const fs::path& path) {
  std::ifstream file(path);
  return json::parse(file);
}

// `graphsim bench --backend cpu --json` of main at a7c5ef0, before the frame driver, keys listed by this function.
const std::set<std::string> kKeysBeforeTheDriver = {
    "backend",
    "bodies",
    "command",
    "cuda_runtime",
    "cuda_version",
    "data_path",
    "date",
    "driver",
    "flops_per_interaction",
    "fps",
    "frame_ms",
    "frame_ms.mean",
    "frame_ms.p50",
    "frame_ms.p95",
    "frame_ms.p99",
    "frames",
    "frames_in_flight",
    "gflops",
    "gpu",
    "host_overhead_us",
    "host_overhead_us.graph_launch",
    "host_overhead_us.node_updates",
    "host_overhead_us.total",
    "host_overhead_us.vk_queue_submit",
    "host_overhead_us.vk_submit",
    "initial",
    "interactions_per_frame",
    "interactions_per_second",
    "measured_seconds",
    "render_gpu_ms",
    "render_size",
    "scene",
    "seed",
    "sim_gpu_ms",
    "sim_only",
    "startup_seconds",
    "substeps",
    "timers",
    "timers.frame",
    "timers.host",
    "timers.render",
    "timers.sim",
    "tool",
    "variants",
    "variants.[].captures",
    "variants.[].counters",
    "variants.[].counters.enable_toggles",
    "variants.[].counters.node_updates",
    "variants.[].counters.reinstantiations",
    "variants.[].counters.whole_graph_updates",
    "variants.[].description",
    "variants.[].fps",
    "variants.[].frame_ms",
    "variants.[].frame_ms.mean",
    "variants.[].frame_ms.p50",
    "variants.[].frame_ms.p95",
    "variants.[].frame_ms.p99",
    "variants.[].frames_in_flight",
    "variants.[].gflops",
    "variants.[].host_overhead_us",
    "variants.[].host_overhead_us.graph_launch",
    "variants.[].host_overhead_us.node_updates",
    "variants.[].host_overhead_us.total",
    "variants.[].host_overhead_us.vk_queue_submit",
    "variants.[].host_overhead_us.vk_submit",
    "variants.[].interactions_per_second",
    "variants.[].measured_seconds",
    "variants.[].name",
    "variants.[].ratio_to_product",
    "variants.[].reason",
    "variants.[].render_gpu_ms",
    "variants.[].sim_gpu_ms",
    "variants.[].status",
    "variants.[].validation_messages",
    "version",
    "vulkan_device",
    "warmup",
};

TEST(BenchOnTheDriver, JsonHasTheKeysItHadBeforePlusInterrupted) {
  const fs::path dir = freshDir("bench-keys");
  const ProcessResult r = runGraphsim({"bench", "--backend", "cpu", "--bodies", "64", "--frames", "5", "--warmup", "1",
                                       "--quiet", "--json", (dir / "b.json").string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = readJson(dir / "b.json");
  std::set<std::string> keys;
  collectKeys(j, "", keys);
  std::set<std::string> expected = kKeysBeforeTheDriver;
  expected.insert("interrupted");
  // Issue 14: the frame loop's CPU time and the throttle's wait strategy.
  for (const char* key : {"throttle_wait", "timers.cpu", "cpu_us_per_frame", "cpu_us_per_frame.loop_thread",
                          "cpu_us_per_frame.process", "variants.[].cpu_us_per_frame",
                          "variants.[].cpu_us_per_frame.loop_thread", "variants.[].cpu_us_per_frame.process"})
    expected.insert(key);
  // Issue 30: the render mode and the render GPU time by pass (null where not measured).
  for (const std::string prefix : {"", "variants.[]."}) {
    expected.insert(prefix + "render_mode");
    expected.insert(prefix + "render_passes_ms");
    for (const char* pass : {"scene", "thickness", "depth", "smoothing", "shading"})
      expected.insert(prefix + "render_passes_ms." + pass);
  }
  EXPECT_EQ(keys, expected);
  EXPECT_EQ(j.at("throttle_wait"), "block");
  EXPECT_GT(j.at("cpu_us_per_frame").at("loop_thread").get<double>(), 0.0);
  EXPECT_EQ(j.at("interrupted"), false);
}

TEST(BenchOnTheDriver, SigintMidRunExits130AndWritesTheFramesMeasuredSoFar) {
  const fs::path dir = freshDir("bench-sigint");
  const fs::path out = dir / "b.json";
  ChildProcess child({"bench", "--backend", "cpu", "--bodies", "1024", "--frames", "1000000", "--warmup", "5", "--json",
                      out.string(), "--csv", (dir / "b.csv").string()},
                     dir.string() + "-log");
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  while (!contains(child.err(), "graphsim bench: cpu (F = 3)") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  std::this_thread::sleep_for(1s); // well into the measured frames
  const auto signalled = std::chrono::steady_clock::now();
  child.signal(SIGINT);
  const ProcessResult r = child.wait(30s);
  const auto afterSignal =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - signalled);
  ASSERT_FALSE(r.timedOut) << "still running 30 s after SIGINT:\n" << r.err;
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exitCode, 130) << r.err;
  EXPECT_LT(afterSignal.count(), 2000) << "exit came " << afterSignal.count() << " ms after SIGINT";
  EXPECT_TRUE(contains(r.err, "graphsim bench: interrupted by SIGINT; both APIs drained and released")) << r.err;
  ASSERT_TRUE(fs::exists(out)) << r.err;
  ASSERT_TRUE(fs::exists(dir / "b.csv")) << r.err;
  const json j = readJson(out);
  EXPECT_EQ(j.at("interrupted"), true);
  const json& product = j.at("variants").at(0);
  EXPECT_EQ(product.at("status"), "ok");
  EXPECT_GT(product.at("measured_seconds").get<double>(), 0.1);
  EXPECT_GT(product.at("fps").get<double>(), 0.0);
  for (const json& v : j.at("variants")) {
    if (v.at("name") == "serial") {
      EXPECT_EQ(v.at("reason"), "interrupted by SIGINT");
    }
  }
}

TEST(BenchOnTheDriver, LaunchEarlyIsListedAndSkippedOnTheCpuBackendWithItsReason) {
  const fs::path dir = freshDir("bench-launch-early");
  const ProcessResult r = runGraphsim({"bench", "--backend", "cpu", "--bodies", "64", "--frames", "3", "--warmup", "0",
                                       "--variants", "launch-early", "--quiet", "--json", (dir / "b.json").string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = readJson(dir / "b.json");
  bool listed = false;
  for (const json& v : j.at("variants")) {
    if (v.at("name") != "launch-early") continue;
    listed = true;
    EXPECT_EQ(v.at("status"), "skipped");
    EXPECT_TRUE(contains(v.at("reason").get<std::string>(), "--backend cuda")) << v.dump();
  }
  EXPECT_TRUE(listed) << j.dump();
}

// The order launch-early relies on, with the renderer's own throttle and drain (lavapipe in CI): the producer stands
// in for the CUDA graph (ordered on the GPU, writes nothing on the host).
TEST(BenchOnTheDriver, LaunchEarlyProducesFrameKBeforeItsThrottleAndCompletesEachFrameOnceWithARenderer) {
  std::optional<render::VulkanContext> context;
  try {
    context.emplace(render::DeviceRequest{});
  } catch (const EnvironmentError& e) {
    GTEST_SKIP() << "no Vulkan device: " << e.what();
  }
  render::RendererConfig config;
  config.width = config.height = 64;
  config.maxBodies = 16;
  config.framesInFlight = 2;
  render::ParticleRenderer renderer(*context, config);
  std::vector<std::string> log;
  struct Producer final : app::FrameProducer {
    explicit Producer(std::vector<std::string>& l) : log(l) {}
    std::optional<std::uint64_t> produce(std::uint64_t k) override {
      log.push_back("produce" + std::to_string(k));
      return std::nullopt;
    }
    bool gpuOrdered() const override { return true; }
    void waitProduced(std::uint64_t) override { ADD_FAILURE() << "a renderer's throttle waits on renderDone"; }
    void finish() override { log.push_back("finish"); }
    std::vector<std::string>& log;
  } producer(log);
  struct Observer final : app::FrameObserver {
    explicit Observer(std::vector<std::string>& l) : log(l) {}
    void throttled(std::uint64_t k) override { log.push_back("throttled" + std::to_string(k)); }
    void stepped(std::uint64_t k, const app::FrameTimes& t) override {
      EXPECT_LE(t.produced, t.submitting);
      EXPECT_LE(t.submitting, t.submitted);
      log.push_back("stepped" + std::to_string(k));
    }
    void completed(std::uint64_t k) override { log.push_back("completed" + std::to_string(k)); }
    std::vector<std::string>& log;
  } observer(log);
  app::FrameDriver driver(&renderer, producer, renderer.protocol(), app::SubmitOrder::WithProduce,
                          app::LaunchOrder::BeforeThrottle);
  driver.observe(observer);
  for (std::uint64_t k = 0; k < 4; ++k) ASSERT_TRUE(driver.step(k));
  driver.drain();
  const std::vector<std::string> expected = {"produce0",   "throttled0", "stepped0",   "produce1",   "throttled1",
                                             "stepped1",   "produce2",   "completed0", "throttled2", "stepped2",
                                             "produce3",   "completed1", "throttled3", "stepped3",   "completed2",
                                             "completed3", "finish"};
  EXPECT_EQ(log, expected);
  EXPECT_EQ(renderer.renderDoneValue(), 4u);
}

} // namespace
} // namespace graphsim::test
