// The graphsim command line, run as a user would: bad input exits 2 with a one-line reason naming the problem,
// never a crash or a hang; good input runs. Each case spawns the real executable.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compute/cuda_device.h"
#include "run_graphsim.h"

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;

// A scratch directory per test binary in the build tree.
fs::path scratch() {
  static const fs::path dir = [] {
    fs::path d = fs::path(GRAPHSIM_TEST_TMP) / "cli";
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

// Every test process builds the whole table, and ctest runs them in parallel: write to a private name and rename,
// so that no test ever reads a file another process is halfway through rewriting.
std::string writeFile(const std::string& name, const std::string& text) {
  const fs::path p = scratch() / name;
  const fs::path tmp = scratch() / (name + ".tmp" + std::to_string(::getpid()));
  std::ofstream(tmp, std::ios::binary) << text;
  fs::rename(tmp, p);
  return p.string();
}

int lineCount(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n + (!s.empty() && s.back() != '\n');
}

struct BadInput {
  const char* name;
  std::vector<std::string> args;
  const char* mustMention; // the message names the flag, file or key
};

void PrintTo(const BadInput& c, std::ostream* os) { *os << c.name; }

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, ExitsTwoWithOneLineReason) {
  const BadInput& c = GetParam();
  const ProcessResult r = runGraphsim(c.args, 60);
  ASSERT_FALSE(r.timedOut) << "hung";
  ASSERT_EQ(r.signal, 0) << "crashed with signal " << r.signal << "\n" << r.err;
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find(c.mustMention), std::string::npos) << "message does not mention '" << c.mustMention << "': " << r.err;
  EXPECT_EQ(lineCount(r.err), 1) << "want a one-line reason, got:\n" << r.err;
}

std::vector<BadInput> badInputs() {
  const std::string missingDir = (scratch() / "no-such-dir" / "out.png").string();
  fs::create_directories(scratch() / "dir.png");
  return {
      {"unknown_flag", {"run", "--bogus"}, "--bogus"},
      {"unknown_subcommand", {"fly"}, "fly"},
      {"bodies_zero", {"run", "--bodies", "0"}, "--bodies"},
      {"bodies_negative", {"run", "--bodies", "-5"}, "--bodies"},
      {"bodies_not_a_number", {"run", "--bodies", "many"}, "--bodies"},
      {"bodies_absurd", {"run", "--bodies", "4000000000000"}, "--bodies"},
      {"bodies_overflow", {"run", "--bodies", "99999999999999999999999"}, "--bodies"},
      {"frames_negative", {"run", "--frames", "-1"}, "--frames"},
      {"unknown_scene", {"run", "--scene", "fluid9"}, "fluid9"},
      {"unknown_backend", {"run", "--backend", "opencl"}, "opencl"},
      {"frames_in_flight", {"run", "--frames-in-flight", "9"}, "--frames-in-flight"},
      {"gpu_negative", {"run", "--gpu", "-1"}, "--gpu"},
      {"wait_timeout_zero", {"run", "--wait-timeout-ms", "0"}, "--wait-timeout-ms"},
      {"capture_every_without_capture", {"run", "--capture-every", "10"}, "--capture"},
      {"capture_missing_dir", {"run", "--capture", missingDir}, "does not exist"},
      {"capture_not_png", {"run", "--capture", (scratch() / "x.jpg").string()}, ".png"},
      {"capture_is_directory", {"run", "--capture", (scratch() / "dir.png").string()}, "is a directory"},
      {"dump_graph_cpu", {"run", "--backend", "cpu", "--dump-graph", (scratch() / "g.dot").string()}, "--dump-graph"},
      {"config_missing", {"run", "--config", (scratch() / "nope.json").string()}, "nope.json"},
      {"config_directory", {"run", "--config", scratch().string()}, "directory"},
      {"config_not_json", {"run", "--config", writeFile("notjson.json", "bodies = 12\n")}, "not valid JSON"},
      {"config_truncated", {"run", "--config", writeFile("trunc.json", R"({"bodies": 10, "params": {"dt": )")}, "not valid JSON"},
      {"config_empty", {"run", "--config", writeFile("empty.json", "")}, "not valid JSON"},
      {"config_top_level_array", {"run", "--config", writeFile("array.json", "[1, 2]")}, "JSON object"},
      {"config_wrong_type", {"run", "--config", writeFile("type.json", R"({"bodies": "many"})")}, "bodies"},
      {"config_float_bodies", {"run", "--config", writeFile("float.json", R"({"bodies": 12.5})")}, "bodies"},
      {"config_out_of_range", {"run", "--config", writeFile("range.json", R"({"params": {"dt": -1}})")}, "params.dt"},
      {"config_huge_number", {"run", "--config", writeFile("huge.json", R"({"params": {"G": 1e400}})")}, "1e400"},
      {"config_nan", {"run", "--config", writeFile("nan.json", R"({"params": {"dt": NaN}})")}, "not valid JSON"},
      {"config_unknown_key", {"run", "--config", writeFile("key.json", R"({"bodys": 12})")}, "bodys"},
      {"config_unknown_stage", {"run", "--config", writeFile("stage.json", R"({"stages": {"warp": true}})")}, "stages.warp"},
      {"config_disable_write_render", {"run", "--config", writeFile("wr.json", R"({"stages": {"write_render": false}})")}, "write_render"},
      {"config_substeps_zero", {"run", "--config", writeFile("sub.json", R"({"substeps": 0})")}, "substeps"},
      {"config_bad_initial", {"run", "--config", writeFile("ic.json", R"({"initial": "cube"})")}, "initial"},
      {"config_attractor_pos", {"run", "--config", writeFile("apos.json", R"({"params": {"attractor_pos": [1, 2]}})")}, "attractor_pos"},
      {"config_image_size", {"run", "--config", writeFile("img.json", R"({"render": {"width": 100000}})")}, "render.width"},
      {"config_non_utf8", {"run", "--config", writeFile("utf8.json", "{\"initial\": \"\xff\xfe\"}")}, "not valid JSON"},
      {"config_deep_nesting", {"run", "--config", writeFile("deep.json", std::string(100000, '[') + std::string(100000, ']'))}, "JSON object"},
  };
}

INSTANTIATE_TEST_SUITE_P(Table, CliBadInput, ::testing::ValuesIn(badInputs()),
                         [](const auto& p) { return std::string(p.param.name); });

TEST(Cli, UnreadableConfigExitsTwo) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: file permissions do not stop root from reading";
  const std::string path = writeFile("secret.json", "{}");
  fs::permissions(path, fs::perms::none);
  const ProcessResult r = runGraphsim({"run", "--config", path});
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("cannot be read"), std::string::npos) << r.err;
}

TEST(Cli, HelpAndVersionExitZero) {
  const ProcessResult help = runGraphsim({"run", "--help"});
  EXPECT_EQ(help.exitCode, 0);
  for (const char* flag : {"--bodies", "--backend", "--capture", "--validation", "--frames-in-flight", "Exit codes"})
    EXPECT_NE(help.out.find(flag), std::string::npos) << "help lacks " << flag;
  const ProcessResult version = runGraphsim({"--version"});
  EXPECT_EQ(version.exitCode, 0);
  EXPECT_NE(version.out.find("graphsim "), std::string::npos);
}

TEST(Cli, ListGpusShowsBothDeviceLists) {
  const ProcessResult r = runGraphsim({"list-gpus"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("Vulkan devices:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CUDA devices:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("UUID"), std::string::npos) << r.out;
}

TEST(Cli, CudaBackendWithoutCudaDeviceExitsThree) {
  const CudaDeviceList cuda = listCudaDevices();
  if (!cuda.devices.empty()) GTEST_SKIP() << "this machine has a CUDA device; the gpu tests cover --backend cuda";
  const ProcessResult r = runGraphsim({"run", "--backend", "cuda", "--headless", "--frames", "1"});
  EXPECT_EQ(r.exitCode, 3) << r.err;
  EXPECT_NE(r.err.find("CUDA"), std::string::npos) << r.err;
}

TEST(Cli, HeadlessCpuRunWritesCaptureWithZeroValidationMessages) {
  const fs::path png = scratch() / "run.png";
  fs::remove(png);
  const ProcessResult r = runGraphsim({"run", "--backend", "cpu", "--headless", "--bodies", "512", "--frames", "8",
                                       "--capture", png.string(), "--validation", "--quiet"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(fs::exists(png));
  EXPECT_GT(fs::file_size(png), 1000u);
  EXPECT_NE(r.err.find("validation messages: 0"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(png.string()), std::string::npos) << "capture path not printed: " << r.err;
}

TEST(Cli, CaptureEveryWritesNumberedFrames) {
  const fs::path dir = scratch() / "every";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const ProcessResult r = runGraphsim({"run", "--backend", "cpu", "--headless", "--bodies", "64", "--frames", "6",
                                       "--capture", (dir / "f.png").string(), "--capture-every", "2", "--quiet"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* name : {"f_000002.png", "f_000004.png", "f_000006.png"}) EXPECT_TRUE(fs::exists(dir / name)) << name;
  EXPECT_FALSE(fs::exists(dir / "f_000001.png"));
}

} // namespace
} // namespace graphsim::test
