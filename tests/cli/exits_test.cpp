// Issue 19, the exits that are about outputs, stdout and messages (classes 4-9): stdout checked (closed, a full
// device), output paths checked before any work (long, duplicate, empty names; a parent that is a file, a symlink
// loop, a path too long), numbers in scene files repeated as typed, a broken Vulkan driver manifest, messages that
// escape and clip what the user typed, and scripts/run.sh without a display. Each case spawns the real executable.
// A full device is a node of /dev/full's device made with mknod in a scratch directory, never /dev/full itself.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/io/output_file.h"
#include "run_graphsim.h"

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path d = fs::path(GRAPHSIM_TEST_TMP) / "exits" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n + (!s.empty() && s.back() != '\n');
}

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A node of /dev/full's device (char 1:7) at path, or why there cannot be one (the test then skips).
std::string makeFullDevice(const fs::path& path) {
  if (::geteuid() != 0) return "mknod of a /dev/full node needs root";
  if (::mknod(path.c_str(), S_IFCHR | 0666, ::makedev(1, 7)) != 0) return "mknod failed (no device nodes here?)";
  return {};
}

RunSettings closedStdout() {
  RunSettings s;
  s.stdoutTo = RunSettings::Stdout::Closed;
  return s;
}

RunSettings stdoutInto(const fs::path& path) {
  RunSettings s;
  s.stdoutTo = RunSettings::Stdout::File;
  s.stdoutPath = path.string();
  return s;
}

// --- 4. stdout checked ------------------------------------------------------------------------------------------

const std::vector<std::vector<std::string>> kStdoutCommands = {
    {"--help"}, {"--version"}, {"run", "--help"}, {"run", "--scene", "list"}, {"list-gpus"}};

TEST(Stdout, ClosedIsExitOneWithOneLine) {
  for (const std::vector<std::string>& args : kStdoutCommands) {
    const ProcessResult r = runGraphsim(args, 60, closedStdout());
    EXPECT_EQ(r.exitCode, 1) << args[0] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "graphsim: cannot write to standard output: Bad file descriptor")) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
  }
}

TEST(Stdout, ClosedIsNoFailureWhenNothingIsPrinted) {
  const ProcessResult r = runGraphsim({"run", "--bodies", "0"}, 60, closedStdout());
  EXPECT_EQ(r.exitCode, 2) << "the usage error stays what it is: " << r.err;
  EXPECT_FALSE(contains(r.err, "standard output")) << r.err;
}

TEST(Stdout, FullDeviceIsExitOneWithOneLine) {
  const fs::path dir = scratch("full");
  if (const std::string why = makeFullDevice(dir / "full"); !why.empty()) GTEST_SKIP() << why;
  for (const std::vector<std::string>& args : kStdoutCommands) {
    const ProcessResult r = runGraphsim(args, 60, stdoutInto(dir / "full"));
    EXPECT_EQ(r.exitCode, 1) << args[0] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "graphsim: cannot write to standard output: No space left on device")) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
  }
  EXPECT_TRUE(fs::is_character_file(dir / "full"));
}

TEST(Stdout, SoakReportAndBenchTableIntoAFullDeviceAreExitOne) {
  const fs::path dir = scratch("full-reports");
  if (const std::string why = makeFullDevice(dir / "full"); !why.empty()) GTEST_SKIP() << why;
  const ProcessResult soak = runGraphsim({"soak", "--backend", "cpu", "--frames", "12", "--bodies", "64", "--quiet"},
                                         120, stdoutInto(dir / "full"));
  EXPECT_EQ(soak.exitCode, 1) << soak.err;
  EXPECT_TRUE(contains(soak.err, "cannot write to standard output: No space left on device")) << soak.err;
  const fs::path json = dir / "bench.json";
  const ProcessResult bench = runGraphsim({"bench", "--backend", "cpu", "--frames", "3", "--warmup", "0", "--bodies",
                                           "64", "--variants", "none", "--json", json.string(), "--quiet"},
                                          120, stdoutInto(dir / "full"));
  EXPECT_EQ(bench.exitCode, 1) << bench.err;
  EXPECT_TRUE(contains(bench.err, "cannot write to standard output: No space left on device")) << bench.err;
  EXPECT_TRUE(fs::exists(json)) << "the JSON, written before, stays";
}

TEST(Stdout, IntoAFileStillExitsZero) {
  const fs::path dir = scratch("file");
  const ProcessResult r = runGraphsim({"run", "--help"}, 60, stdoutInto(dir / "help.txt"));
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_GT(fs::file_size(dir / "help.txt"), 1000u);
}

// --- 5. output paths checked before any work ---------------------------------------------------------------------

// A legal name at the file system's limit runs and writes; the temporary (now never longer than its target) no
// longer fails it after the run.
TEST(OutputPaths, NameAtTheLimitIsWrittenWithNoTemporaryLeft) {
  const fs::path dir = scratch("long-name");
  const fs::path png = dir / (std::string(251, 'a') + ".png"); // 255 characters
  const ProcessResult r = runGraphsim({"run", "--backend", "cpu", "--headless", "--bodies", "64", "--frames", "2",
                                       "--capture", png.string(), "--quiet"},
                                      120);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(listing(dir), std::vector<std::string>{png.filename().string()});
}

TEST(OutputPaths, WriterTemporaryNeverLongerThanTheTarget) {
  const fs::path dir = scratch("writer");
  for (std::size_t length : {1u, 6u, 12u, 200u, 255u}) {
    const std::string name(length, 'w');
    app::writeOutput(dir / name, std::string_view("x"));
    EXPECT_EQ(listing(dir), std::vector<std::string>{name});
    fs::remove(dir / name);
  }
}

// Refused in milliseconds with exit 2 before anything runs (a run would take seconds: 16,384 bodies by default).
struct BadOutput {
  std::string name;
  std::vector<std::string> args;
  std::string mustMention;
};
void PrintTo(const BadOutput& c, std::ostream* os) { *os << c.name; }

class OutputPathRefused : public ::testing::TestWithParam<BadOutput> {};

TEST_P(OutputPathRefused, ExitTwoBeforeAnyWork) {
  const BadOutput& c = GetParam();
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = runGraphsim(c.args, 60);
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, c.mustMention)) << "message lacks '" << c.mustMention << "': " << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_LT(r.err.size(), 700u) << r.err; // paths are clipped at 300 characters
  EXPECT_FALSE(contains(r.err, "does not exist") && !contains(c.mustMention, "does not exist")) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_LT(seconds, 5.0) << "refused only after work";
}

std::vector<BadOutput> badOutputs() {
  const fs::path dir = fs::path(GRAPHSIM_TEST_TMP) / "exits" / "paths";
  fs::create_directories(dir);
  const std::string file = (dir / "a-file").string();
  std::ofstream(file) << "x";
  std::error_code ec;
  fs::create_symlink("loop-b", dir / "loop-a", ec);
  fs::create_symlink("loop-a", dir / "loop-b", ec);
  const std::string loop = (dir / "loop-a").string();
  std::string deep = dir.string();
  while (deep.size() < 5000) deep += "/" + std::string(200, 'd');
  const std::string tooLongName = (dir / (std::string(300, 'n') + ".json")).string();
  const std::string out = (dir / "out.x").string(), sameOut = (dir / "." / "out.x").string();
  const std::vector<std::string> bench = {"bench", "--backend", "cpu", "--bodies", "64", "--frames", "2"};
  const auto benchWith = [&](std::vector<std::string> more) {
    std::vector<std::string> args = bench;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  return {
      {"run_capture_name_over_the_limit",
       {"run", "--headless", "--capture", (dir / (std::string(300, 'c') + ".png")).string()},
       "the file name is 304 characters, over this file system's limit of 255"},
      {"run_capture_every_number_over_the_limit",
       {"run", "--headless", "--capture-every", "1", "--capture", (dir / (std::string(250, 'c') + ".png")).string()},
       "the file name with the frame number is 261 characters"},
      {"bench_json_name_over_the_limit", benchWith({"--json", tooLongName}), "over this file system's limit of 255"},
      {"bench_json_equals_csv", benchWith({"--json", out, "--csv", sameOut}), "name the same file"},
      {"bench_json_equals_frame_log", benchWith({"--json", out, "--frame-log", out}), "name the same file"},
      {"bench_json_empty", benchWith({"--json", ""}), "--json: empty path"},
      {"bench_csv_empty", benchWith({"--csv", ""}), "--csv: empty path"},
      {"bench_frame_log_empty", benchWith({"--frame-log", ""}), "--frame-log: empty path"},
      {"bench_capture_dir_empty", benchWith({"--capture-every", "1", "--capture-dir", ""}), "--capture-dir: empty"},
      {"run_dump_graph_empty", {"run", "--headless", "--dump-graph", ""}, "--dump-graph: empty path"},
      {"run_config_empty", {"run", "--headless", "--config", ""}, "--config: empty path"},
      {"run_capture_parent_is_a_file",
       {"run", "--headless", "--capture", file + "/x.png"},
       "a-file is a file, not a directory"},
      {"bench_json_parent_is_a_file", benchWith({"--json", file + "/x.json"}), "a-file is a file, not a directory"},
      {"run_capture_symlink_loop", {"run", "--headless", "--capture", loop + "/x.png"}, "a symlink loop"},
      {"bench_json_is_a_symlink_loop", benchWith({"--json", loop}), "a symlink loop"},
      {"run_config_symlink_loop", {"run", "--headless", "--config", loop}, "a symlink loop"},
      {"run_capture_path_too_long",
       {"run", "--headless", "--capture", deep + "/x.png"},
       "over this system's limit of 4095"},
      {"bench_csv_path_too_long", benchWith({"--csv", deep + "/x.csv"}), "over this system's limit of 4095"},
      {"run_capture_dot_png", {"run", "--headless", "--capture", (dir / ".png").string()}, "needs a stem before .png"},
      {"bench_variants_all_and_none", benchWith({"--variants", "all,none"}), "'all' stands alone"},
      {"bench_variants_none_in_a_list", benchWith({"--variants", "graph,none"}), "'none' stands alone"},
  };
}

INSTANTIATE_TEST_SUITE_P(Table, OutputPathRefused, ::testing::ValuesIn(badOutputs()),
                         [](const auto& p) { return p.param.name; });

// --- 6. numbers in a scene file, as typed -------------------------------------------------------------------------

TEST(SceneFileNumbers, IntegersOver64BitsAreRefusedAsTyped) {
  const fs::path dir = scratch("numbers");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"seed": 18446744073709551616})", "seed 18446744073709551616 is out of range"},
      {R"({"params": {"softening": -99999999999999999999}})", "params.softening -99999999999999999999 is out of range"},
      {R"({"render": {"camera": {"target": [0, 0, 18446744073709551617]}}})",
       "render.camera.target[2] 18446744073709551617 is out of range"},
  };
  for (const auto& [json, message] : cases) {
    std::ofstream(dir / "scene.json") << json;
    const ProcessResult r = runGraphsim({"run", "--headless", "--config", (dir / "scene.json").string()}, 60);
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_TRUE(contains(r.err, message)) << r.err;
  }
}

// --- 7. a broken Vulkan driver manifest ---------------------------------------------------------------------------

TEST(DriverManifest, GarbageIsExitThreeWithNothingOnStdout) {
  const fs::path dir = scratch("manifest");
  std::ofstream(dir / "icd.json") << "garbage{";
  RunSettings settings;
  settings.environment = {{"VK_ICD_FILENAMES", (dir / "icd.json").string()}};
  const std::vector<std::vector<std::string>> commands = {
      {"list-gpus"},
      {"run", "--headless", "--backend", "cpu", "--bodies", "64", "--frames", "1"},
      {"bench", "--backend", "cpu", "--bodies", "64", "--frames", "1", "--variants", "none"},
      {"soak", "--backend", "cpu", "--bodies", "64", "--frames", "4"}};
  for (const std::vector<std::string>& args : commands) {
    const ProcessResult r = runGraphsim(args, 60, settings);
    EXPECT_EQ(r.exitCode, 3) << args[0] << ": " << r.err;
    EXPECT_TRUE(contains(
        r.err, "VK_ICD_FILENAMES names " + (dir / "icd.json").string() + ", which is not a Vulkan driver manifest"))
        << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << "printed before the failure: " << r.out;
  }
}

// --- 8. messages escape control characters and clip long values ---------------------------------------------------

TEST(Messages, SceneFileKeyWithNewlineAndEscapeIsEscaped) {
  const fs::path dir = scratch("keys");
  std::ofstream(dir / "scene.json") << R"({"bo\ndies\u001b[31m": 5})";
  const ProcessResult r = runGraphsim({"run", "--headless", "--config", (dir / "scene.json").string()}, 60);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, R"(bo\ndies\x1b[31m is not a known key)")) << r.err;
  EXPECT_FALSE(contains(r.err, "\x1b")) << "a raw ESC reached the terminal";
  EXPECT_EQ(lines(r.err), 1) << r.err;
}

TEST(Messages, ControlCharactersInAFlagValueAreEscaped) {
  const ProcessResult r = runGraphsim({"run", "--scene", "nbody\n\x1b[2Jfake"}, 60);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, R"(nbody\n\x1b[2Jfake)")) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
}

TEST(Messages, HundredThousandCharacterValuesAreClipped) {
  const std::string huge(100000, 'x');
  const std::vector<std::vector<std::string>> commands = {
      {"run", "--scene", huge},
      {"run", "--capture", huge},
      {"run", "--config", huge},
      {"run", "--present", huge},
      {"run", "--inject", huge},
      {"run", "--window-script", huge},
      {"run", "--" + huge},
      {"run", huge},
      {huge},
      {"bench", "--json", huge},
      {"bench", "--variants", huge},
      {"soak", "--scene", huge},
      {"run", "--frames", huge},
      {"bench", "--capture-every", "1", "--capture-dir", huge + "/x"}};
  for (const std::vector<std::string>& args : commands) {
    const ProcessResult r = runGraphsim(args, 60);
    EXPECT_EQ(r.exitCode, 2) << r.err.substr(0, 300);
    EXPECT_LT(r.err.size(), 1000u) << r.err.substr(0, 300); // --inject repeats its value (clipped) twice
    EXPECT_TRUE(contains(r.err, "characters)")) << "does not say how long the value was: " << r.err.substr(0, 300);
    EXPECT_EQ(lines(r.err), 1) << r.err.substr(0, 300);
  }
}

// --- 9. scripts/run.sh without a display -------------------------------------------------------------------------

// The README's example, in a copy of the script whose install and build steps are stubs and whose graphsim is the
// one built here: the headless branch adds --frames 240 only when --frames was not given.
TEST(RunScript, ReadmeExampleWithoutADisplay) {
  const fs::path root = scratch("run-sh");
  fs::create_directories(root / "scripts");
  fs::create_directories(root / "build" / "bin");
  fs::copy_file(fs::path(GRAPHSIM_SOURCE_DIR) / "scripts" / "run.sh", root / "scripts" / "run.sh");
  for (const char* stub : {"install-deps.sh", "build.sh"}) {
    std::ofstream(root / "scripts" / stub) << "#!/bin/sh\nexit 0\n";
    fs::permissions(root / "scripts" / stub, fs::perms::owner_all);
  }
  fs::create_symlink(GRAPHSIM_EXE_PATH, root / "build" / "bin" / "graphsim");
  const std::string script = (root / "scripts" / "run.sh").string();
  const std::string command = "env -u DISPLAY -u WAYLAND_DISPLAY bash " + script +
                              " --bodies 64 --frames 3 --backend cpu --quiet 2> " + (root / "err.txt").string();
  EXPECT_EQ(std::system(command.c_str()), 0) << std::ifstream(root / "err.txt").rdbuf();
  EXPECT_TRUE(fs::exists(root / "out" / "graphsim.png"));
  const std::string own = (root / "own.png").string();
  const std::string withCapture = "env -u DISPLAY -u WAYLAND_DISPLAY bash " + script +
                                  " --bodies 64 --frames 2 --backend cpu --quiet --capture " + own + " 2> " +
                                  (root / "err.txt").string();
  EXPECT_EQ(std::system(withCapture.c_str()), 0) << std::ifstream(root / "err.txt").rdbuf();
  EXPECT_TRUE(fs::exists(own));
}

} // namespace
} // namespace graphsim::test
