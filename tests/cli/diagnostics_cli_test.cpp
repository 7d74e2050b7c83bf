// Live diagnostics on the command line (issue 15, docs/DIAGNOSTICS.md): --diagnostics-every on run and bench (bad
// values exit 2 quoting the text, for either scene), run's summary line, the bench JSON's "diagnostics" object and the
// soak report's line, on the CPU backend, for the nbody and the fluid scene.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run_graphsim.h"

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct Refusal {
  std::vector<std::string> args;
  std::string message; // after "graphsim: error: "
};

TEST(DiagnosticsCli, BadIntervalsExitTwoQuotingTheText) {
  const std::string range = "0..1000000";
  const std::vector<Refusal> refusals = {
      {{"run", "--diagnostics-every", "-1"}, "--diagnostics-every: must be " + range + ", got -1"},
      {{"run", "--diagnostics-every", "1000001"}, "--diagnostics-every: must be " + range + ", got 1000001"},
      {{"run", "--diagnostics-every", "often"}, "--diagnostics-every: must be a whole number " + range + ", got often"},
      {{"run", "--diagnostics-every", "2.5"}, "--diagnostics-every: must be a whole number " + range + ", got 2.5"},
      {{"bench", "--diagnostics-every", "-3"}, "--diagnostics-every: must be " + range + ", got -3"},
      {{"run", "--scene", "fluid", "--diagnostics-every", "-1"}, "--diagnostics-every: must be " + range + ", got -1"},
      {{"run", "--scene", "fluid", "--diagnostics-every", "1e3"},
       "--diagnostics-every: must be a whole number " + range + ", got 1e3"},
      {{"bench", "--scene", "fluid", "--diagnostics-every", "2000000"},
       "--diagnostics-every: must be " + range + ", got 2000000"},
  };
  for (const Refusal& r : refusals) {
    const ProcessResult p = runGraphsim(r.args, 60);
    ASSERT_FALSE(p.timedOut) << "hung";
    EXPECT_EQ(p.exitCode, 2) << p.err;
    EXPECT_EQ(p.err, "graphsim: error: " + r.message + "\n");
    EXPECT_TRUE(p.out.empty()) << p.out;
  }
}

TEST(DiagnosticsCli, HelpOfRunAndBenchNamesTheFlag) {
  for (const char* command : {"run", "bench"}) {
    const ProcessResult r = runGraphsim({command, "--help"});
    ASSERT_EQ(r.exitCode, 0) << command;
    EXPECT_TRUE(contains(r.out, "--diagnostics-every")) << command << ":\n" << r.out;
  }
}

TEST(DiagnosticsCli, RunPrintsTheSummaryLineWhenOn) {
  // Frames 0, 5 and 10 of 12 sample.
  const ProcessResult on = runGraphsim({"run", "--backend", "cpu", "--headless", "--bodies", "256", "--frames", "12",
                                        "--diagnostics-every", "5", "--quiet"},
                                       300);
  ASSERT_EQ(on.exitCode, 0) << on.err;
  EXPECT_TRUE(contains(on.err, "graphsim: diagnostics: 3 samples, frames 0..10: E ")) << on.err;
  EXPECT_TRUE(contains(on.err, "per 1000 frames")) << on.err;
  EXPECT_TRUE(contains(on.err, "(every 5 frames)")) << on.err;

  const ProcessResult off = runGraphsim({"run", "--backend", "cpu", "--headless", "--bodies", "256", "--frames", "12",
                                         "--diagnostics-every", "0", "--quiet"},
                                        300);
  ASSERT_EQ(off.exitCode, 0) << off.err;
  EXPECT_FALSE(contains(off.err, "diagnostics:")) << off.err;
}

TEST(DiagnosticsCli, BenchJsonCarriesTheFirstAndLastSampleAndTheDrift) {
  const fs::path dir = fs::path(GRAPHSIM_TEST_TMP) / "diagnostics";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path on = dir / "on.json", off = dir / "off.json";
  // 20 frames from frame 0 (no warm-up): frames 0, 5, 10, 15 sample.
  ProcessResult r = runGraphsim({"bench", "--backend", "cpu", "--bodies", "256", "--frames", "20", "--warmup", "0",
                                 "--variants", "none", "--diagnostics-every", "5", "--json", on.string(), "--quiet"},
                                300);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::ifstream in(on);
  const json j = json::parse(in);
  ASSERT_TRUE(j.contains("diagnostics")) << j.dump(2);
  const json& d = j["diagnostics"];
  EXPECT_EQ(d["every"], 5);
  EXPECT_EQ(d["samples"], 4);
  EXPECT_EQ(d["first_frame"], 0);
  EXPECT_EQ(d["last_frame"], 15);
  for (const char* end : {"initial", "final"}) {
    EXPECT_LT(d[end]["energy"].get<double>(), 0.0) << end << ": a bound system";
    EXPECT_EQ(d[end]["momentum"].size(), 3u) << end;
    EXPECT_EQ(d[end]["angular_momentum"].size(), 3u) << end;
    EXPECT_DOUBLE_EQ(d[end]["energy"].get<double>(),
                     d[end]["kinetic"].get<double>() + d[end]["potential"].get<double>())
        << end;
  }
  for (const char* key : {"energy", "momentum", "angular_momentum"}) {
    EXPECT_TRUE(d["drift"][key].is_number()) << key;
    EXPECT_NEAR(d["drift_per_1000_frames"][key].get<double>(), d["drift"][key].get<double>() * 1000.0 / 15.0,
                1e-12 + 1e-9 * std::abs(d["drift"][key].get<double>()))
        << key;
  }
  EXPECT_EQ(j["variants"][0]["diagnostics"], d) << "the product row carries the same object";
  EXPECT_TRUE(contains(r.out, "diagnostics (4 samples, frames 0..15)")) << r.out;

  r = runGraphsim({"bench", "--backend", "cpu", "--bodies", "256", "--frames", "5", "--warmup", "0", "--variants",
                   "none", "--diagnostics-every", "0", "--json", off.string(), "--quiet"},
                  300);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::ifstream inOff(off);
  const json jOff = json::parse(inOff);
  EXPECT_FALSE(jOff.contains("diagnostics"));
  EXPECT_FALSE(jOff["variants"][0].contains("diagnostics"));
}

TEST(DiagnosticsCli, SoakReportsTheLastSeries) {
  const ProcessResult r = runGraphsim({"soak", "--backend", "cpu", "--bodies", "64", "--frames", "40", "--quiet"}, 300);
  ASSERT_FALSE(r.timedOut) << r.err;
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "diagnostics: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "every 10 frames, the last of 1 series")) << r.out;
}

// The fluid scene (fluid_diagnostics.h): frames 0, 2 and 4 of 5 sample; mass, density deviation, compression, speed.
// 1,024 particles (the fewest whose dam-break block fits the box) and a few frames: DFSPH on the CPU takes many steps a
// frame, and the ASan pass runs this too.
TEST(DiagnosticsCli, FluidRunPrintsTheSummaryLineWhenOn) {
  const ProcessResult on = runGraphsim({"run", "--scene", "fluid", "--backend", "cpu", "--headless", "--particles",
                                        "1024", "--frames", "5", "--diagnostics-every", "2", "--quiet"},
                                       300);
  ASSERT_EQ(on.exitCode, 0) << on.err;
  EXPECT_TRUE(contains(on.err, "graphsim: diagnostics: 3 samples, frames 0..4: mass ")) << on.err;
  EXPECT_TRUE(contains(on.err, "kg (change 0.000e+00)")) << on.err;
  for (const char* part : {"max density deviation ", "max compression ", "max speed ", "(every 2 frames)"})
    EXPECT_TRUE(contains(on.err, part)) << part << ":\n" << on.err;

  const ProcessResult byDefault = runGraphsim(
      {"run", "--scene", "fluid", "--backend", "cpu", "--headless", "--particles", "1024", "--frames", "3", "--quiet"},
      300);
  ASSERT_EQ(byDefault.exitCode, 0) << byDefault.err;
  EXPECT_TRUE(contains(byDefault.err, "graphsim: diagnostics: 1 sample, frames 0..0: ")) << byDefault.err;
  EXPECT_TRUE(contains(byDefault.err, "(every 10 frames)")) << "run's default K: " << byDefault.err;

  const ProcessResult off = runGraphsim({"run", "--scene", "fluid", "--backend", "cpu", "--headless", "--particles",
                                         "1024", "--frames", "5", "--diagnostics-every", "0", "--quiet"},
                                        300);
  ASSERT_EQ(off.exitCode, 0) << off.err;
  EXPECT_FALSE(contains(off.err, "diagnostics:")) << off.err;
}

TEST(DiagnosticsCli, FluidBenchJsonCarriesTheFirstAndLastSample) {
  const fs::path dir = fs::path(GRAPHSIM_TEST_TMP) / "fluid_diagnostics";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path on = dir / "on.json", off = dir / "off.json";
  // 5 frames from frame 0 (no warm-up): frames 0, 2, 4 sample.
  ProcessResult r =
      runGraphsim({"bench", "--scene", "fluid", "--backend", "cpu", "--particles", "1024", "--frames", "5", "--warmup",
                   "0", "--sim-only", "--diagnostics-every", "2", "--json", on.string(), "--quiet"},
                  300);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::ifstream in(on);
  const json j = json::parse(in);
  ASSERT_TRUE(j.contains("diagnostics")) << j.dump(2);
  const json& d = j["diagnostics"];
  EXPECT_EQ(d["every"], 2);
  EXPECT_EQ(d["samples"], 3);
  EXPECT_EQ(d["first_frame"], 0);
  EXPECT_EQ(d["last_frame"], 4);
  for (const char* end : {"initial", "final"}) {
    EXPECT_EQ(d[end]["particles"], 1024) << end;
    EXPECT_GT(d[end]["mass"].get<double>(), 0.0) << end;
    EXPECT_GE(d[end]["max_density_deviation"].get<double>(), std::abs(d[end]["max_compression"].get<double>())) << end;
    EXPECT_LE(d[end]["max_speed"].get<double>(), d["peak"]["max_speed"].get<double>()) << end;
  }
  EXPECT_EQ(d["initial"]["mass"], d["final"]["mass"]) << "no particle lost: mass = N m";
  EXPECT_EQ(d["mass_change"].get<double>(), 0.0);
  EXPECT_GT(d["final"]["max_speed"].get<double>(), d["initial"]["max_speed"].get<double>()) << "the dam falls";
  EXPECT_EQ(j["variants"][0]["diagnostics"], d) << "the product row carries the same object";
  EXPECT_TRUE(contains(r.out, "diagnostics: 3 samples, frames 0..4: mass ")) << r.out;

  // bench's default: no diagnostics (a benchmark measures the frame alone).
  r = runGraphsim({"bench", "--scene", "fluid", "--backend", "cpu", "--particles", "1024", "--frames", "3", "--warmup",
                   "0", "--sim-only", "--json", off.string(), "--quiet"},
                  300);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::ifstream inOff(off);
  const json jOff = json::parse(inOff);
  EXPECT_FALSE(jOff.contains("diagnostics"));
  EXPECT_FALSE(jOff["variants"][0].contains("diagnostics"));
}

TEST(DiagnosticsCli, FluidSoakReportsTheLastSeries) {
#if defined(__SANITIZE_ADDRESS__)
  // ASan is several times slower, and DFSPH (the default) takes 17 steps of 1 ms a frame, its CPU replay as many: the
  // 11 frames took 284 s at -O0 in CI, 72 s at the asan preset's -O1 beside a build. ctest's limit is 600 s.
  const char *frames = "11", *samples = "diagnostics: 2 samples, frames 0..10: mass ";
  constexpr int kTimeout = 580;
#else
  const char *frames = "30", *samples = "diagnostics: 3 samples, frames 0..20: mass ";
  constexpr int kTimeout = 300;
#endif
  const ProcessResult r = runGraphsim(
      {"soak", "--scene", "fluid", "--backend", "cpu", "--particles", "2048", "--frames", frames, "--quiet"}, kTimeout);
  ASSERT_FALSE(r.timedOut) << r.err;
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, samples)) << r.out;
  EXPECT_TRUE(contains(r.out, "every 10 frames, the last of 1 series")) << r.out;
}

} // namespace
} // namespace graphsim::test
