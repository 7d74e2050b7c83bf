// Scenes on the command line (issue 13), run as a user would: --scene list, --help naming the scenes, a headless
// fluid run on the CPU backend with a capture and its summary, the Martin & Moyce preset, and a fluid blow-up ending a
// headless run.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "run_graphsim.h"

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Scenes, ListPrintsEachSceneWithItsDescription) {
  const ProcessResult r = runGraphsim({"run", "--scene", "list"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "nbody ")) << r.out;
  EXPECT_TRUE(contains(r.out, "fluid ")) << r.out;
  EXPECT_TRUE(contains(r.out, "SPH")) << r.out;
  EXPECT_TRUE(contains(r.out, "--particles")) << r.out;
}

TEST(Scenes, HelpNamesTheScenesAndBothCountFlags) {
  for (const char* command : {"run", "bench", "soak"}) {
    const ProcessResult r = runGraphsim({command, "--help"});
    ASSERT_EQ(r.exitCode, 0) << command;
    for (const char* part : {"nbody | fluid", "--bodies", "--particles"})
      EXPECT_TRUE(contains(r.out, part)) << command << " --help lacks " << part << ":\n" << r.out;
  }
}

TEST(Scenes, HeadlessFluidRunOnTheCpuCapturesAndSummarises) {
  const fs::path dir = fs::path(GRAPHSIM_TEST_TMP) / "scenes";
  fs::create_directories(dir);
  const fs::path png = dir / "fluid.png";
  fs::remove(png);
  const ProcessResult r = runGraphsim({"run", "--scene", "fluid", "--backend", "cpu", "--headless", "--particles",
                                       "1000", "--frames", "6", "--capture", png.string(), "--validation"},
                                      300);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(fs::exists(png));
  EXPECT_GT(fs::file_size(png), 1000u);
  EXPECT_TRUE(contains(r.err, "graphsim: 6 frames of 1000 particles in")) << r.err;
  EXPECT_TRUE(contains(r.err, "last frame ")) << "the summary names the last frame's substeps: " << r.err;
  EXPECT_TRUE(contains(r.err, " substeps, dt ")) << r.err;
  EXPECT_TRUE(contains(r.err, "validation messages: 0")) << r.err;
}

// The Martin & Moyce preset (a square water column collapsing, DFSPH): the example config runs as shipped.
TEST(Scenes, TheMartinMoyceColumnPresetRunsOnTheCpu) {
  const std::string preset = std::string(GRAPHSIM_SOURCE_DIR) + "/assets/scenes/martin-moyce.json";
  const ProcessResult r = runGraphsim({"run", "--scene", "fluid", "--config", preset, "--backend", "cpu", "--headless",
                                       "--particles", "2000", "--frames", "3"},
                                      300);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "graphsim: 3 frames of 2000 particles in")) << r.err;
  EXPECT_TRUE(contains(r.err, "density iterations")) << "DFSPH ran: " << r.err;
}

TEST(Scenes, FluidBlowUpEndsAHeadlessRunWithExitOne) {
  const ProcessResult r = runGraphsim({"run", "--scene", "fluid", "--backend", "cpu", "--headless", "--particles",
                                       "1000", "--frames", "20", "--quiet", "--inject", "non-finite@5"},
                                      300);
  ASSERT_FALSE(r.timedOut) << r.err;
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "the simulation blew up in frame 5, substep 0, stage ")) << r.err;
  EXPECT_TRUE(contains(r.err, "non-finite")) << r.err;
}

TEST(Scenes, FluidOnCudaWithoutACudaDeviceExitsThree) {
  const ProcessResult probe = runGraphsim({"list-gpus"});
  if (!contains(probe.out, "no CUDA")) GTEST_SKIP() << "this machine has a CUDA device";
  const ProcessResult r = runGraphsim(
      {"run", "--scene", "fluid", "--backend", "cuda", "--headless", "--particles", "1000", "--frames", "1"});
  EXPECT_EQ(r.exitCode, 3) << r.err;
}

// bench --scene fluid on the CPU backend: the CPU reference alone, the CUDA variants listed as not run with the
// reason, and the fluid's own figures in the JSON.
TEST(Scenes, FluidBenchOnTheCpuRunsTheReferenceAndSaysWhyNotTheCudaVariants) {
  const fs::path dir = fs::path(GRAPHSIM_TEST_TMP) / "scenes";
  fs::create_directories(dir);
  const fs::path json = dir / "fluid_bench.json";
  fs::remove(json);
  const ProcessResult r = runGraphsim({"bench", "--scene", "fluid", "--backend", "cpu", "--particles", "1024",
                                       "--frames", "4", "--warmup", "1", "--json", json.string(), "--quiet"},
                                      300);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "were not run: needs --backend cuda")) << r.out;
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["scene"], "fluid");
  EXPECT_EQ(j["particles"], 1024);
  ASSERT_EQ(j["variants"].size(),
            8u); // cpu; product, stream, fixed-substeps, memory-nodes, cells, wcsph, wcsph-stiff (DFSPH's)
  const nlohmann::json& cpu = j["variants"][0];
  EXPECT_EQ(cpu["status"], "ok");
  for (const char* key :
       {"particle_steps_per_second", "substeps_per_frame", "sort_share", "gpu_bytes_per_particle", "host_us_median"})
    EXPECT_TRUE(cpu.contains(key)) << key;
  EXPECT_GT(cpu["substeps_per_frame"].get<double>(), 1.0);
  EXPECT_NEAR(cpu["particle_steps_per_second"].get<double>(),
              1024.0 * cpu["substeps_per_frame"].get<double>() * cpu["fps"].get<double>(),
              1e-6 * cpu["particle_steps_per_second"].get<double>());
  for (std::size_t i = 1; i < j["variants"].size(); ++i) {
    EXPECT_EQ(j["variants"][i]["status"], "skipped");
    EXPECT_NE(j["variants"][i]["reason"].get<std::string>().find("--backend cuda"), std::string::npos);
  }
}

// Issue 30: the fluid drawn as a liquid surface (--render-mode surface; a scene file's render.mode does the same) on
// lavapipe: a run captures with no validation message, and the bench times every pass of it (one frame in flight:
// lavapipe's timestamps are read once its queue is idle, render/renderer_impl.h).
TEST(Scenes, FluidSurfaceModeRunsCleanAndItsBenchTimesEveryPass) {
  const fs::path dir = fs::path(GRAPHSIM_TEST_TMP) / "scenes_surface";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path png = dir / "surface.png", json = dir / "surface.json";
  const ProcessResult run =
      runGraphsim({"run", "--scene", "fluid", "--backend", "cpu", "--headless", "--particles", "1024", "--frames", "3",
                   "--render-mode", "surface", "--capture", png.string(), "--validation"},
                  300);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_TRUE(fs::exists(png));
  EXPECT_TRUE(contains(run.err, "validation messages: 0")) << run.err;

  const ProcessResult bench =
      runGraphsim({"bench",       "--scene",    "fluid", "--backend",     "cpu",     "--particles",
                   "1024",        "--frames",   "3",     "--warmup",      "1",       "--frames-in-flight",
                   "1",           "--variants", "none",  "--render-mode", "surface", "--json",
                   json.string(), "--quiet"},
                  300);
  ASSERT_EQ(bench.exitCode, 0) << bench.err;
  std::ifstream in(json);
  const nlohmann::json cpu = nlohmann::json::parse(in)["variants"][0];
  EXPECT_EQ(cpu["render_mode"], "surface");
  const nlohmann::json& passes = cpu["render_passes_ms"];
  ASSERT_TRUE(passes.is_object()) << cpu.dump();
  double sum = 0.0;
  for (const char* pass : {"scene", "thickness", "depth", "smoothing", "shading"}) {
    ASSERT_TRUE(passes[pass].is_number()) << pass;
    EXPECT_GE(passes[pass].get<double>(), 0.0) << pass;
    sum += passes[pass].get<double>();
  }
  EXPECT_GT(passes["thickness"].get<double>() + passes["depth"].get<double>() + passes["smoothing"].get<double>(), 0.0);
  EXPECT_NEAR(sum, cpu["render_gpu_ms"].get<double>(), 1e-6 * std::max(1.0, sum));
}

} // namespace
} // namespace graphsim::test
