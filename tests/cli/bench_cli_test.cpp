// `graphsim bench` run as a user would: the CPU-backend benchmark CI can run (its JSON has every field and the
// figures agree with each other), captures with sidecars, --sim-only, and bad input (exit 2, one line naming the
// flag). The CUDA figures themselves are measured on the GPU machine (docs/PERFORMANCE.md).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/cuda_device.h"
#include "run_graphsim.h"

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path scratch(const std::string& name) {
  fs::path d = fs::path(GRAPHSIM_TEST_TMP) / "bench" / name; // not const: returned by move
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

json readJson(const fs::path& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return json::parse(in);
}

int lineCount(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n + (!s.empty() && s.back() != '\n');
}

const std::vector<std::string> kVariantNames = {"graph",        "event-submit",  "launch-early", "pdl",   "stream",
                                                "whole-update", "reinstantiate", "host-copy",    "serial"};

// The figures every variant that ran carries, checked for presence and sanity.
void expectFigures(const json& j, const std::string& where, bool rendered) {
  SCOPED_TRACE(where);
  for (const char* key : {"frames_in_flight", "measured_seconds", "frame_ms", "fps", "sim_gpu_ms", "render_gpu_ms",
                          "host_overhead_us", "interactions_per_second", "gflops"}) {
    ASSERT_TRUE(j.contains(key)) << key;
  }
  const json& f = j["frame_ms"];
  for (const char* key : {"p50", "p95", "p99", "mean"}) ASSERT_TRUE(f.contains(key) && f[key].is_number()) << key;
  EXPECT_GT(f["p50"].get<double>(), 0.0);
  EXPECT_LE(f["p50"].get<double>(), f["p95"].get<double>());
  EXPECT_LE(f["p95"].get<double>(), f["p99"].get<double>());
  EXPECT_GT(j["fps"].get<double>(), 0.0);
  EXPECT_GT(j["measured_seconds"].get<double>(), 0.0);
  ASSERT_TRUE(j["sim_gpu_ms"].is_number());
  EXPECT_GT(j["sim_gpu_ms"].get<double>(), 0.0);
  if (rendered) {
    // lavapipe has timestamps; a device without them would report null.
    EXPECT_TRUE(j["render_gpu_ms"].is_null() || j["render_gpu_ms"].get<double>() > 0.0);
  } else {
    EXPECT_TRUE(j["render_gpu_ms"].is_null());
  }
  const json& h = j["host_overhead_us"];
  for (const char* key : {"node_updates", "graph_launch", "vk_submit", "total"}) ASSERT_TRUE(h.contains(key)) << key;
  EXPECT_GE(h["node_updates"].get<double>(), 0.0);
  EXPECT_GE(h["graph_launch"].get<double>(), 0.0);
  EXPECT_GE(h["total"].get<double>(), 0.0);
  if (rendered) {
    EXPECT_GT(h["vk_submit"].get<double>(), 0.0);
    EXPECT_GE(h["total"].get<double>() + 1e-9, h["vk_submit"].get<double>());
  }
}

TEST(Bench, CpuBackendJsonHasEveryFieldAndConsistentFigures) {
  const fs::path dir = scratch("cpu1024");
  const fs::path jsonPath = dir / "out.json", csvPath = dir / "out.csv";
  const fs::path framesPath = dir / "frames.csv";
  const ProcessResult r =
      runGraphsim({"bench", "--backend", "cpu", "--bodies", "1024", "--frames", "30", "--json", jsonPath.string(),
                   "--csv", csvPath.string(), "--frame-log", framesPath.string(), "--quiet"},
                  300);
  ASSERT_FALSE(r.timedOut);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = readJson(jsonPath);

  for (const char* key : {"gpu", "driver", "cuda_version", "bodies", "frames", "frames_in_flight", "frame_ms", "fps",
                          "sim_gpu_ms", "render_gpu_ms", "host_overhead_us", "interactions_per_second", "gflops",
                          "variants", "date", "command", "backend", "warmup", "substeps"}) {
    ASSERT_TRUE(j.contains(key)) << "missing " << key;
  }
  EXPECT_FALSE(j["gpu"].get<std::string>().empty());
  EXPECT_FALSE(j["driver"].get<std::string>().empty());
  EXPECT_TRUE(j["cuda_version"].is_null()) << "the CPU backend uses no CUDA";
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_EQ(j["bodies"], 1024);
  EXPECT_EQ(j["frames"], 30);
  EXPECT_EQ(j["frames_in_flight"], 3);
  expectFigures(j, "top level", true);

  // The rates follow from the measured time: N^2 interactions per substep per frame, 20 flops each.
  const double n = 1024, frames = 30, seconds = j["measured_seconds"].get<double>();
  const double substeps = j["substeps"].get<double>();
  EXPECT_NEAR(j["interactions_per_second"].get<double>(), n * n * substeps * frames / seconds,
              1e-6 * j["interactions_per_second"].get<double>());
  EXPECT_NEAR(j["gflops"].get<double>(), 20.0 * j["interactions_per_second"].get<double>() * 1e-9,
              1e-6 * j["gflops"].get<double>());
  EXPECT_NEAR(j["fps"].get<double>(), frames / seconds, 1e-6 * j["fps"].get<double>());
  EXPECT_NEAR(j["frame_ms"]["mean"].get<double>(), 1e3 * seconds / frames, 1e-6 * 1e3 * seconds / frames);

  // Every variant is listed: the product path first, the CUDA ones skipped with the reason, serial run.
  const json& variants = j["variants"];
  ASSERT_TRUE(variants.is_array());
  ASSERT_EQ(variants.size(), 1 + kVariantNames.size());
  EXPECT_EQ(variants[0]["name"], "cpu");
  EXPECT_EQ(variants[0]["status"], "ok");
  EXPECT_DOUBLE_EQ(variants[0]["ratio_to_product"].get<double>(), 1.0);
  EXPECT_EQ(variants[0]["fps"], j["fps"]) << "the top level is the product path";
  std::set<std::string> seen;
  for (const json& v : variants) {
    const std::string name = v["name"];
    seen.insert(name);
    ASSERT_TRUE(v.contains("status")) << name;
    if (v["status"] == "skipped") {
      EXPECT_NE(name, "serial") << "serial runs on the CPU backend";
      EXPECT_NE(v["reason"].get<std::string>().find("cuda"), std::string::npos) << name << ": " << v["reason"];
    } else {
      EXPECT_EQ(v["status"], "ok");
      expectFigures(v, name, true);
      ASSERT_TRUE(v["ratio_to_product"].is_number()) << name;
      EXPECT_GT(v["ratio_to_product"].get<double>(), 0.0) << name;
      EXPECT_EQ(v["validation_messages"], 0) << name;
    }
  }
  for (const std::string& name : kVariantNames) EXPECT_TRUE(seen.count(name)) << name << " not listed";
  for (const json& v : variants) {
    if (v["name"] == "serial") {
      EXPECT_EQ(v["frames_in_flight"], 1);
    }
  }

  // The table names every variant; the CSV has a header and one row per variant.
  for (const std::string& name : kVariantNames) EXPECT_NE(r.out.find(name), std::string::npos) << r.out;
  std::ifstream csv(csvPath);
  std::string header, row;
  ASSERT_TRUE(std::getline(csv, header));
  EXPECT_EQ(header.rfind("variant,status,reason,", 0), 0u) << header;
  int rows = 0;
  while (std::getline(csv, row)) ++rows;
  EXPECT_EQ(rows, static_cast<int>(variants.size()));
  EXPECT_FALSE(fs::exists(dir / "out.json.tmp")) << "temporary left behind";

  // The frame log: a header and one row per frame (warm-up included) of each variant that ran.
  std::ifstream frameLog(framesPath);
  ASSERT_TRUE(std::getline(frameLog, header));
  EXPECT_EQ(header.rfind("variant,frame,measured,", 0), 0u) << header;
  int frameRows = 0;
  while (std::getline(frameLog, row)) ++frameRows;
  const int ran = 2; // cpu and serial
  EXPECT_EQ(frameRows, ran * (30 + j["warmup"].get<int>()));
}

TEST(Bench, CapturesWriteNumberedPngsWithSidecars) {
  const fs::path dir = scratch("capture");
  const fs::path caps = dir / "frames"; // created by bench
  const ProcessResult r =
      runGraphsim({"bench", "--backend", "cpu", "--bodies", "256", "--frames", "10", "--warmup", "0", "--variants",
                   "none", "--capture-every", "5", "--capture-dir", caps.string(), "--quiet"},
                  120);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* stem : {"frame_000005", "frame_000010"}) {
    ASSERT_TRUE(fs::exists(caps / (std::string(stem) + ".png"))) << stem;
    EXPECT_GT(fs::file_size(caps / (std::string(stem) + ".png")), 1000u) << stem;
    const json side = readJson(caps / (std::string(stem) + ".json"));
    EXPECT_EQ(side["image"], std::string(stem) + ".png");
    EXPECT_TRUE(side["frame"].is_number_integer());
    EXPECT_GT(side["sim_time"].get<double>(), 0.0);
    EXPECT_TRUE(side["params"].contains("dt"));
    ASSERT_TRUE(side["nodes"].is_array());
    bool forces = false;
    for (const json& n : side["nodes"]) forces = forces || (n["name"] == "forces" && n["enabled"] == true);
    EXPECT_TRUE(forces) << side.dump();
  }
  EXPECT_EQ(readJson(caps / "frame_000010.json")["frame"], 10);
  int files = 0;
  for (const auto& e : fs::directory_iterator(caps)) {
    ++files;
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
  }
  EXPECT_EQ(files, 4);
}

TEST(Bench, SimOnlyReportsRatesWithoutRendering) {
  const fs::path dir = scratch("simonly");
  const ProcessResult r = runGraphsim({"bench", "--backend", "cpu", "--bodies", "512", "--frames", "20", "--sim-only",
                                       "--json", (dir / "s.json").string(), "--quiet"},
                                      120);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = readJson(dir / "s.json");
  EXPECT_EQ(j["sim_only"], true);
  expectFigures(j, "sim-only", false);
  EXPECT_TRUE(j["host_overhead_us"]["vk_submit"].is_null());
  for (const json& v : j["variants"]) {
    if (v["name"] != "cpu") {
      EXPECT_EQ(v["status"], "skipped") << v.dump();
    }
  }
}

TEST(Bench, CudaBackendWithoutCudaDeviceExitsThree) {
  if (!listCudaDevices().devices.empty()) GTEST_SKIP() << "this machine has a CUDA device";
  const ProcessResult r = runGraphsim({"bench", "--backend", "cuda", "--frames", "1"});
  EXPECT_EQ(r.exitCode, 3) << r.err;
  EXPECT_NE(r.err.find("CUDA"), std::string::npos) << r.err;
  EXPECT_EQ(lineCount(r.err), 1) << r.err;
}

struct BadBench {
  const char* name;
  std::vector<std::string> args;
  const char* mustMention;
};
void PrintTo(const BadBench& c, std::ostream* os) { *os << c.name; }

class BenchBadInput : public ::testing::TestWithParam<BadBench> {};

TEST_P(BenchBadInput, ExitsTwoWithOneLineReason) {
  const BadBench& c = GetParam();
  std::vector<std::string> args = {"bench", "--backend", "cpu"};
  args.insert(args.end(), c.args.begin(), c.args.end());
  const ProcessResult r = runGraphsim(args, 60);
  ASSERT_FALSE(r.timedOut) << "hung";
  ASSERT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find(c.mustMention), std::string::npos)
      << "message does not mention '" << c.mustMention << "': " << r.err;
  EXPECT_EQ(lineCount(r.err), 1) << r.err;
  EXPECT_TRUE(r.out.empty()) << "nothing may be benchmarked: " << r.out;
}

std::vector<BadBench> badBench() {
  const fs::path dir = fs::path(GRAPHSIM_TEST_TMP) / "bench";
  fs::create_directories(dir / "adir.json");
  const std::string file = (dir / "plain-file").string();
  std::ofstream(file) << "x";
  return {
      {"frames_zero", {"--frames", "0"}, "--frames"},
      {"frames_negative", {"--frames", "-4"}, "--frames"},
      {"frames_not_a_number", {"--frames", "lots"}, "--frames"},
      {"warmup_negative", {"--warmup", "-1"}, "--warmup"},
      {"bodies_zero", {"--bodies", "0"}, "--bodies"},
      {"bodies_absurd", {"--bodies", "99999999999"}, "--bodies"},
      {"backend_unknown", {"--backend", "opencl"}, "--backend"},
      {"scene_unknown", {"--scene", "fluid9"}, "fluid9"},
      {"frames_in_flight", {"--frames-in-flight", "5"}, "--frames-in-flight"},
      {"variants_unknown", {"--variants", "graph,warp"}, "--variants"},
      {"variants_empty_item", {"--variants", "graph,,serial"}, "--variants"},
      {"json_missing_dir", {"--json", (dir / "no" / "such" / "x.json").string()}, "--json"},
      {"json_is_directory", {"--json", (dir / "adir.json").string()}, "--json"},
      {"csv_missing_dir", {"--csv", (dir / "no" / "x.csv").string()}, "--csv"},
      {"frame_log_missing_dir", {"--frame-log", (dir / "no" / "f.csv").string()}, "--frame-log"},
      {"capture_every_without_dir", {"--capture-every", "3"}, "--capture-dir"},
      {"capture_dir_without_every", {"--capture-dir", (dir / "c").string()}, "--capture-every"},
      {"capture_every_zero", {"--capture-every", "0", "--capture-dir", (dir / "c").string()}, "--capture-every"},
      {"capture_dir_is_file", {"--capture-every", "2", "--capture-dir", file}, "--capture-dir"},
      {"capture_with_sim_only",
       {"--sim-only", "--capture-every", "2", "--capture-dir", (dir / "c").string()},
       "--capture-every"},
      {"variants_with_sim_only", {"--sim-only", "--variants", "stream"}, "--variants"},
      {"validation_with_sim_only", {"--sim-only", "--validation"}, "--validation"},
      {"gpu_negative", {"--gpu", "-2"}, "--gpu"},
      {"wait_timeout_zero", {"--wait-timeout-ms", "0"}, "--wait-timeout-ms"},
      {"unknown_flag", {"--turbo"}, "--turbo"},
      // Issue 19 (more in exits_test.cpp): empty and shared output paths, all/none in a list.
      {"json_empty", {"--json", ""}, "--json: empty path"},
      {"json_equals_csv",
       {"--json", (dir / "same.x").string(), "--csv", (dir / "same.x").string()},
       "name the same file"},
      {"variants_all_and_none", {"--variants", "all,none"}, "'all' stands alone"},
      // Issue 31: the video is an output like the reports (--json X --video X replaced the mp4, exit 0).
      {"json_equals_video",
       {"--json", (dir / "same.mp4").string(), "--video", (dir / "same.mp4").string()},
       "name the same file"},
  };
}

INSTANTIATE_TEST_SUITE_P(Table, BenchBadInput, ::testing::ValuesIn(badBench()),
                         [](const auto& p) { return std::string(p.param.name); });

// Number flags repeat the text as typed (tests/cli/numbers_test.cpp does run and soak): the whole line is checked.
TEST(Bench, NumbersOutOfRangeQuoteTheTextAsTyped) {
  const fs::path dir = fs::path(GRAPHSIM_TEST_TMP) / "bench";
  const std::string captureDir = (dir / "typed").string();
  fs::remove_all(captureDir);
  // Each flag with its range as the message states it, the texts typed for it that are out of range and those
  // that are not whole numbers, and any flag it needs (--capture-every needs --capture-dir).
  struct TypedFlag {
    std::string flag, range;
    std::vector<std::string> outOfRange, notWhole, needs;
  };
  const std::vector<TypedFlag> typed = {
      {"--frames", "1..10000000", {"99999999999999999999", "-99999999999999999999", "10000001"}, {"12.5"}, {}},
      {"--warmup", "0..1000000", {"-1"}, {"1e3"}, {}},
      {"--bodies", "1..16777216", {"99999999999999999999"}, {"0.5"}, {}},
      {"--frames-in-flight", "1..4", {"-3"}, {}, {}},
      {"--gpu", "0..2147483647", {"99999999999"}, {"one"}, {}},
      {"--wait-timeout-ms", "1..600000", {"99999999999999999999"}, {}, {}},
      {"--capture-every", "1..11000000", {"0", "-2"}, {"2.5"}, {"--capture-dir", captureDir}},
  };
  std::vector<std::pair<std::vector<std::string>, std::string>> cases; // flags, the whole message
  for (const TypedFlag& f : typed) {
    const auto add = [&](const std::string& text, const std::string& mustBe) {
      std::vector<std::string> flags = {f.flag, text};
      flags.insert(flags.end(), f.needs.begin(), f.needs.end());
      cases.emplace_back(flags, f.flag + ": must be " + mustBe + f.range + ", got " + text);
    };
    for (const std::string& text : f.outOfRange) add(text, "");
    for (const std::string& text : f.notWhole) add(text, "a whole number ");
  }
  cases.push_back({{"--interop", "maybe"}, "--interop: unknown mode 'maybe' (allowed: auto, on, off)"});
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> args = {"bench", "--backend", "cpu"};
    args.insert(args.end(), flags.begin(), flags.end());
    const ProcessResult r = runGraphsim(args, 60);
    EXPECT_EQ(r.exitCode, 2) << flags[0] << " " << flags[1] << ": " << r.err;
    EXPECT_EQ(r.err, "graphsim: error: " + message + "\n");
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  EXPECT_FALSE(fs::exists(captureDir)) << "a refused --capture-every must not create its directory";
}

TEST(Bench, HelpDescribesInteropAndCapturePeriod) {
  const ProcessResult r = runGraphsim({"bench", "--help"});
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("--interop"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("K >= 1"), std::string::npos) << r.out;
  for (const std::string& name : kVariantNames) EXPECT_NE(r.out.find(name), std::string::npos) << name;
}

// --variants with --scene fluid (issue: bench --scene fluid ignored it): the fluid's own names, refused as a whole
// line (exit 2, nothing run) when unknown, when another scene's, and wcsph-stiff without wcsph (wcsph aims it).
TEST(Bench, FluidVariantsRefuseWhatTheFluidDoesNotHave) {
  const std::string fluidNames =
      "(allowed with --scene fluid: all, none, stream, fixed-substeps, memory-nodes, "
      "cells, wcsph, wcsph-stiff; the fluid's product always runs first)";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--scene", "fluid", "--variants", "bogus"}, "--variants: unknown variant 'bogus' " + fluidNames},
      {{"--scene", "fluid", "--variants", "graph"}, "--variants: unknown variant 'graph' " + fluidNames},
      {{"--scene", "fluid", "--variants", "stream,serial"}, "--variants: unknown variant 'serial' " + fluidNames},
      {{"--scene", "fluid", "--variants", "product"}, "--variants: unknown variant 'product' " + fluidNames},
      {{"--scene", "nbody", "--variants", "fixed-substeps"},
       "--variants: unknown variant 'fixed-substeps' (allowed: all, none, graph, event-submit, launch-early, pdl, "
       "stream, whole-update, reinstantiate, host-copy, serial)"},
      {{"--scene", "fluid", "--variants", "stream,wcsph-stiff"},
       "--variants: wcsph-stiff's stiffness is aimed with wcsph's measured peak compression; name wcsph too "
       "(--variants wcsph,wcsph-stiff)"},
  };
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> args = {"bench", "--backend", "cpu", "--particles", "2048", "--frames", "1"};
    if (flags[1] == "nbody") args = {"bench", "--backend", "cpu", "--bodies", "64", "--frames", "1"};
    args.insert(args.end(), flags.begin(), flags.end());
    const ProcessResult r = runGraphsim(args, 60);
    EXPECT_EQ(r.exitCode, 2) << flags[3] << ": " << r.err;
    EXPECT_EQ(r.err, "graphsim: error: " + message + "\n");
    EXPECT_TRUE(r.out.empty()) << "nothing may be benchmarked: " << r.out;
  }
}

// The fluid bench on the CPU backend with --variants: only the chosen CUDA variants are listed (as skipped, with the
// reason), in report order; none lists nothing but the CPU reference; wcsph and wcsph-stiff named for a WCSPH scene
// are skipped as needing dfsph, and all leaves them out of it. 2048 particles, 1 frame: well under a second each.
class BenchFluidVariants : public ::testing::Test {
protected:
  // The variants' (name, status, reason) of a fluid bench on the CPU backend with `flags`; the run's output in out.
  std::vector<std::vector<std::string>> bench(const std::vector<std::string>& flags, std::string* out = nullptr) {
    const fs::path report = dir_ / "fluid.json";
    fs::remove(report);
    std::vector<std::string> args = {"bench",       "--scene", "fluid",         "--backend", "cpu",
                                     "--particles", "2048",    "--frames",      "1",         "--warmup",
                                     "0",           "--json",  report.string(), "--quiet"};
    args.insert(args.end(), flags.begin(), flags.end());
    const ProcessResult r = runGraphsim(args, 120);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    if (out != nullptr) *out = r.out;
    std::vector<std::vector<std::string>> rows;
    if (r.exitCode != 0) return rows;
    const json j = readJson(report);
    for (const json& v : j["variants"]) rows.push_back({v["name"], v["status"], v.value("reason", std::string())});
    return rows;
  }
  std::string solverFile(const std::string& solver) {
    const fs::path file = dir_ / (solver + ".json");
    std::ofstream(file) << R"({"scene": "fluid", "solver": ")" << solver << R"("})";
    return file.string();
  }
  static std::vector<std::string> names(const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::string> n;
    n.reserve(rows.size());
    for (const auto& row : rows) n.push_back(row[0]);
    return n;
  }

  // One directory per test: ctest runs this fixture's tests as parallel processes, and a shared report file would be
  // removed by one while another reads it.
  const fs::path dir_ =
      scratch(std::string("fluid_variants_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
};

TEST_F(BenchFluidVariants, OnTheCpuListOnlyTheChosenCudaVariants) {
  std::string out;
  const auto rows = bench({"--variants", "stream"}, &out);
  ASSERT_EQ(rows.size(), 2u) << out;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"cpu", "ok", ""}));
  EXPECT_EQ(rows[1][0], "stream");
  EXPECT_EQ(rows[1][1], "skipped");
  EXPECT_NE(rows[1][2].find("needs --backend cuda"), std::string::npos) << rows[1][2];
  EXPECT_NE(out.find("the CUDA variants (stream) were not run: needs --backend cuda"), std::string::npos) << out;

  // A list in another order, with a repeat: each once, in report order.
  EXPECT_EQ(
      names(bench({"--config", solverFile("dfsph"), "--variants", "wcsph-stiff,memory-nodes,wcsph,memory-nodes"})),
      (std::vector<std::string>{"cpu", "memory-nodes", "wcsph", "wcsph-stiff"}));
}

TEST_F(BenchFluidVariants, NoneIsTheCpuReferenceAloneWithSimOnlyToo) {
  std::string out;
  EXPECT_EQ(names(bench({"--variants", "none", "--sim-only"}, &out)), (std::vector<std::string>{"cpu"}));
  EXPECT_EQ(out.find("were not run"), std::string::npos) << out;
}

TEST_F(BenchFluidVariants, AllIsTheDefaultAndHasTheWcsphComparisonsWithDfsphOnly) {
  const std::string dfsph = solverFile("dfsph"), wcsph = solverFile("wcsph");
  const std::vector<std::string> withDfsph = {"cpu",          "product", "stream", "fixed-substeps",
                                              "memory-nodes", "cells",   "wcsph",  "wcsph-stiff"};
  const std::vector<std::string> withWcsph = {"cpu", "product", "stream", "fixed-substeps", "memory-nodes"};
  EXPECT_EQ(names(bench({"--config", dfsph, "--sim-only"})), withDfsph);
  EXPECT_EQ(names(bench({"--config", dfsph, "--sim-only", "--variants", "all"})), withDfsph);
  EXPECT_EQ(names(bench({"--config", wcsph, "--sim-only"})), withWcsph);

  // Named for a WCSPH scene: listed as skipped, needing dfsph (not --backend cuda), in report order.
  std::string out;
  const auto rows =
      bench({"--config", wcsph, "--sim-only", "--variants", "wcsph,wcsph-stiff,cells,memory-nodes"}, &out);
  EXPECT_EQ(names(rows), (std::vector<std::string>{"cpu", "memory-nodes", "cells", "wcsph", "wcsph-stiff"}));
  for (std::size_t i = 2; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][1], "skipped") << rows[i][0];
    EXPECT_EQ(rows[i][2].rfind("needs the dfsph solver", 0), 0u) << rows[i][0] << ": " << rows[i][2];
  }
  EXPECT_NE(out.find("the CUDA variants (memory-nodes) were not run"), std::string::npos) << out;
}

TEST(Bench, HelpSaysWhatFluidVariantsSelects) {
  const ProcessResult r = runGraphsim({"bench", "--help"});
  EXPECT_EQ(r.exitCode, 0);
  for (const char* text :
       {"Fluid variants (--scene fluid; LIST of stream, fixed-substeps, memory-nodes, cells, wcsph,",
        "Variants not chosen are neither", "listed as skipped, with the reason", "wcsph-stiff must name wcsph too"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  EXPECT_EQ(r.out.find("--variants is not used"), std::string::npos) << r.out;
}

} // namespace
} // namespace graphsim::test
