// The ballistic test scene (issue 27, tests/scenes/ballistic, docs/SCENES.md) through the generic code, run as a user
// would run it: graphsim_test_scenes is the app's main with the test scenes registered. A headless run, its
// parameter and toggle through a scene file and through a recording and its replay, a snapshot resumed (10 + 10
// frames equal 20 byte for byte), a soak and a bench. The product binary does not have the scene.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/cuda_device.h"
#include "run_graphsim.h"

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

ProcessResult runTestScenes(const std::vector<std::string>& args) {
  RunSettings settings;
  settings.exe = GRAPHSIM_TEST_SCENES_EXE;
  return runGraphsim(args, 300, settings);
}

fs::path testDir() { // one per process: ctest runs each test in its own process, in parallel
  const fs::path dir = fs::path(GRAPHSIM_TEST_TMP) / ("ballistic_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string write(const fs::path& path, const json& j) {
  std::ofstream(path) << j.dump(2);
  return path.string();
}

std::string readAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> runArgs(const std::string& backend, int frames, std::vector<std::string> more = {}) {
  std::vector<std::string> args = {
      "run",         "--scene", "ballistic", "--backend",           backend, "--headless", "--quiet",
      "--particles", "2000",    "--frames",  std::to_string(frames)};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// Why a case of this backend cannot run here; empty when it can.
std::string whyNotHere(const std::string& backend) {
  if (backend != "cuda") return {};
  const CudaDeviceList cuda = listCudaDevices();
  return cuda.devices.empty() ? "the cuda variant needs a CUDA device: " + cuda.whyNone : "";
}

TEST(BallisticCli, OnlyTheTestBinaryHasTheScene) {
  const ProcessResult list = runTestScenes({"run", "--scene", "list"});
  ASSERT_EQ(list.exitCode, 0) << list.err;
  EXPECT_TRUE(contains(list.out + list.err, "ballistic")) << list.out;
  const ProcessResult product = runGraphsim({"run", "--scene", "ballistic", "--headless", "--frames", "1"});
  EXPECT_EQ(product.exitCode, 2) << product.err;
  EXPECT_TRUE(contains(product.err, "unknown scene 'ballistic'")) << product.err;
}

class BallisticBackends : public ::testing::TestWithParam<const char*> {};

TEST_P(BallisticBackends, HeadlessRunEndsWithASummary) {
  const std::string backend = GetParam();
  if (const std::string why = whyNotHere(backend); !why.empty()) GTEST_SKIP() << why;
  const ProcessResult r = runTestScenes(runArgs(backend, 60));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "graphsim: 60 frames of 2000 particles")) << r.err;
  EXPECT_TRUE(contains(r.err, backend == "cuda" ? "cuda graph, GPU time" : "cpu, wall time")) << r.err;
}

TEST_P(BallisticBackends, TenFramesAndTenResumedEqualTwentyByteForByte) {
  const std::string backend = GetParam();
  if (const std::string why = whyNotHere(backend); !why.empty()) GTEST_SKIP() << why;
  const fs::path dir = testDir();
  const fs::path whole = dir / (backend + "_20.gss"), half = dir / (backend + "_10.gss"),
                 resumed = dir / (backend + "_10_10.gss");
  ASSERT_EQ(runTestScenes(runArgs(backend, 20, {"--save-state", whole.string()})).exitCode, 0);
  ASSERT_EQ(runTestScenes(runArgs(backend, 10, {"--save-state", half.string()})).exitCode, 0);
  const ProcessResult c = runTestScenes({"run", "--headless", "--quiet", "--load-state", half.string(), "--frames",
                                         "10", "--save-state", resumed.string()});
  ASSERT_EQ(c.exitCode, 0) << c.err;
  EXPECT_TRUE(contains(c.err, "graphsim: resumed the ballistic state of ")) << c.err;
  const std::string twenty = readAll(whole);
  ASSERT_GT(twenty.size(), 2000u * 32u);
  EXPECT_TRUE(twenty == readAll(resumed)) << "the resumed run's state differs from the uninterrupted run's";
  EXPECT_FALSE(twenty == readAll(half)) << "10 frames and 20 frames saved the same state";
}

TEST_P(BallisticBackends, ASoakPassesAgainstItsCpuReplay) {
  const std::string backend = GetParam();
  if (const std::string why = whyNotHere(backend); !why.empty()) GTEST_SKIP() << why;
  const ProcessResult r =
      runTestScenes({"soak", "--scene", "ballistic", "--backend", backend, "--frames", "300", "--particles", "1000"});
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "graphsim soak: 300 of 300 frames, ballistic scene")) << r.out;
  EXPECT_TRUE(contains(r.out, "checkpoints: 30, failed 0")) << r.out;
  EXPECT_FALSE(contains(r.out, "changes: 0 restitution moves, 0 bounce toggles")) << r.out;
  EXPECT_TRUE(contains(r.out, "result: PASS")) << r.out;
}

TEST_P(BallisticBackends, BenchReportsTheProductPath) {
  const std::string backend = GetParam();
  if (const std::string why = whyNotHere(backend); !why.empty()) GTEST_SKIP() << why;
  const fs::path report = testDir() / (backend + "_bench.json");
  const ProcessResult r = runTestScenes({"bench", "--scene", "ballistic", "--backend", backend, "--particles", "2000",
                                         "--frames", "30", "--warmup", "2", "--json", report.string()});
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  const json j = json::parse(readAll(report));
  ASSERT_TRUE(j["variants"].is_array() && !j["variants"].empty()) << j.dump(2);
  EXPECT_EQ(j["variants"][0]["name"], "product");
  EXPECT_EQ(j["variants"][0]["status"], "ok");
  EXPECT_GT(j["fps"].get<double>(), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Backends, BallisticBackends, ::testing::Values("cpu", "cuda"));

// The parameter and the toggle from a scene file reach the run (recorded as its controls) and change its state; a
// value out of range is refused naming the key.
TEST(BallisticCli, SceneFileSetsTheParameterAndTheToggle) {
  const fs::path dir = testDir();
  const std::string cfg = write(dir / "cfg.json", {{"scene", "ballistic"}, {"restitution", 0.25}, {"bounce", false}});
  const fs::path rec = dir / "cfg_rec.json", a = dir / "cfg.gss", b = dir / "default.gss";
  const ProcessResult r =
      runTestScenes(runArgs("cpu", 40, {"--config", cfg, "--record", rec.string(), "--save-state", a.string()}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json recorded = json::parse(readAll(rec));
  EXPECT_EQ(recorded["controls"]["restitution"], 0.25) << recorded["controls"].dump();
  EXPECT_EQ(recorded["controls"]["bounce"], false) << recorded["controls"].dump();
  ASSERT_EQ(runTestScenes(runArgs("cpu", 40, {"--save-state", b.string()})).exitCode, 0);
  EXPECT_FALSE(readAll(a) == readAll(b)) << "bounce off and on ran the same";

  const std::string bad = write(dir / "bad.json", {{"scene", "ballistic"}, {"restitution", 1.5}});
  const ProcessResult refused = runTestScenes(runArgs("cpu", 1, {"--config", bad}));
  EXPECT_EQ(refused.exitCode, 2) << refused.err;
  EXPECT_TRUE(contains(refused.err, "restitution")) << refused.err;
}

// A recording replays bit for bit; the same recording with its parameter or its toggle edited does not.
TEST(BallisticCli, RecordingReplaysAndItsControlsMatter) {
  const fs::path dir = testDir();
  const fs::path rec = dir / "rec.json";
  const ProcessResult r = runTestScenes(runArgs("cpu", 60, {"--record", rec.string()}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const ProcessResult replay = runTestScenes({"replay", rec.string(), "--headless", "--quiet"});
  EXPECT_EQ(replay.exitCode, 0) << replay.err;
  EXPECT_TRUE(contains(replay.err, "checkpoints compared")) << replay.err;
  EXPECT_FALSE(contains(replay.err, " 0 bit-identical")) << replay.err;

  json recording = json::parse(readAll(rec));
  recording["events"] = json::array({{{"frame", 20}, {"controls", {{"bounce", false}}}}});
  const ProcessResult toggled = runTestScenes({"replay", write(dir / "toggled.json", recording), "--headless"});
  EXPECT_EQ(toggled.exitCode, 1) << "turning bounce off at frame 20 changed nothing: " << toggled.err;
  recording["events"] = json::array({{{"frame", 20}, {"controls", {{"restitution", 0.1}}}}});
  const ProcessResult moved = runTestScenes({"replay", write(dir / "moved.json", recording), "--headless"});
  EXPECT_EQ(moved.exitCode, 1) << "restitution 0.1 from frame 20 changed nothing: " << moved.err;
}

} // namespace
} // namespace graphsim::test
