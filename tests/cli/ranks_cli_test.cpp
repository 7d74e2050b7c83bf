// One process per GPU (issue 32, docs/MULTI-GPU.md): what `graphsim bench|run|soak --rendezvous` refuses, with fake
// ranks (the launcher's variables set by hand), before any GPU work. Every refusal is one line: exit 2 for a launcher
// variable or flag that is wrong, 3 for a rendezvous file that is not one, 1 for a rank 0 that never published. The
// runs with real ranks are GPU tests (tests/gpu/process_ranks_test.cpp) and scripts/ranks.sh.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "run_graphsim.h"

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;
using Env = std::vector<std::pair<std::string, std::string>>;

// A directory of this test's own for rendezvous files.
fs::path scratch() {
  fs::path dir = fs::temp_directory_path() / ("graphsim-ranks-cli-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

ProcessResult bench(const Env& env, std::vector<std::string> extra, const std::string& file) {
  std::vector<std::string> args{"bench",    "--backend", "cuda",    "--sim-only",   "--frames", "1",
                                "--warmup", "0",         "--quiet", "--rendezvous", file};
  args.insert(args.end(), extra.begin(), extra.end());
  RunSettings settings;
  settings.environment = env;
  return runGraphsim(args, 60, settings);
}

void expectOneLine(const ProcessResult& r, int code, const std::string& says) {
  EXPECT_EQ(r.exitCode, code) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << "expected \"" << says << "\" in: " << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
}

struct Refusal {
  const char* name;
  Env env;
  std::vector<std::string> extra;
  const char* says;
};

class RanksUsage : public ::testing::TestWithParam<Refusal> {};

TEST_P(RanksUsage, ExitsTwoInOneLine) {
  expectOneLine(bench(GetParam().env, GetParam().extra, (scratch() / "id").string()), 2, GetParam().says);
}

const Env kRank1Of2{{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"}};

INSTANTIATE_TEST_SUITE_P(
    Cli, RanksUsage,
    ::testing::Values(
        Refusal{"no_launcher", {}, {}, "--rendezvous: no launcher variables"},
        Refusal{"rank_without_world", {{"RANK", "1"}, {"LOCAL_RANK", "0"}}, {}, "WORLD_SIZE"},
        Refusal{"world_without_rank", {{"WORLD_SIZE", "4"}}, {}, "RANK"},
        Refusal{"rank_beyond_world", {{"RANK", "4"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "0"}}, {}, "RANK=4"},
        Refusal{"world_zero", {{"RANK", "0"}, {"WORLD_SIZE", "0"}, {"LOCAL_RANK", "0"}}, {}, "WORLD_SIZE=0"},
        Refusal{"not_a_number", {{"RANK", "1x"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}}, {}, "RANK=1x"},
        Refusal{"no_local_rank", {{"RANK", "1"}, {"WORLD_SIZE", "2"}}, {}, "LOCAL_RANK"},
        Refusal{"slurm_rank_beyond",
                {{"SLURM_PROCID", "8"}, {"SLURM_NTASKS", "8"}, {"SLURM_LOCALID", "0"}},
                {},
                "SLURM_PROCID=8"},
        Refusal{"cpu_backend", kRank1Of2, {"--backend", "cpu"}, "--backend"},
        Refusal{"with_gpus", kRank1Of2, {"--gpus", "0,1"}, "drop --gpu and --gpus"},
        Refusal{"fluid", kRank1Of2, {"--scene", "fluid"}, "runs on one GPU"}),
    [](const auto& c) { return std::string(c.param.name); });

// Without --sim-only: refused (rendering on rank 0 is not built yet).
TEST(RanksCli, BenchWithoutSimOnlyIsRefused) {
  RunSettings settings;
  settings.environment = kRank1Of2;
  const ProcessResult r = runGraphsim(
      {"bench", "--backend", "cuda", "--frames", "1", "--quiet", "--rendezvous", (scratch() / "id").string()}, 60,
      settings);
  expectOneLine(r, 2, "--sim-only");
}

// Rank 1 finds a file that is not a rendezvous file: exit 3 naming it, at once.
TEST(RanksCli, ARendezvousFileThatIsNotOneExitsThree) {
  const fs::path file = scratch() / "garbage.id";
  std::ofstream(file) << "not a rendezvous file\n";
  expectOneLine(bench(kRank1Of2, {}, file.string()), 3, file.string());
}

// Rank 1 of 2 finds rank 0's file for a job of 4: exit 2, both world sizes named.
TEST(RanksCli, AnInconsistentWorldSizeExitsTwo) {
  const fs::path file = scratch() / "world4.id";
  std::ofstream(file) << "graphsim-rendezvous 1 world=4 key=-\n" << std::string(256, 'a') << "\n";
  expectOneLine(bench(kRank1Of2, {}, file.string()), 2, "inconsistent world size");
}

// Rank 1 waits for a rank 0 that never publishes: after --wait-timeout-ms, exit 1 saying so.
TEST(RanksCli, NoRankZeroWithinTheTimeoutExitsOne) {
  const fs::path file = scratch() / "never.id";
  fs::remove(file);
  expectOneLine(bench(kRank1Of2, {"--wait-timeout-ms", "300"}, file.string()), 1, "no rendezvous file");
}

// run and soak take --rendezvous too (docs/MULTI-GPU.md, "Roles"): the same refusals, one line each, and their own.
struct CommandRefusal {
  const char* name;
  std::vector<std::string> args;
  int code;
  const char* says;
};

class RanksCommandUsage : public ::testing::TestWithParam<CommandRefusal> {};

TEST_P(RanksCommandUsage, RefusedInOneLine) {
  RunSettings settings;
  settings.environment = kRank1Of2;
  std::vector<std::string> args = GetParam().args;
  args.insert(args.end(), {"--rendezvous", (scratch() / "cmd.id").string()});
  expectOneLine(runGraphsim(args, 60, settings), GetParam().code, GetParam().says);
}

INSTANTIATE_TEST_SUITE_P(
    Cli, RanksCommandUsage,
    ::testing::Values(
        CommandRefusal{"run_cpu", {"run", "--headless", "--backend", "cpu"}, 2, "--rendezvous: needs --backend cuda"},
        CommandRefusal{"run_auto", {"run", "--headless"}, 2, "--rendezvous: needs --backend cuda"},
        CommandRefusal{"run_gpu", {"run", "--headless", "--backend", "cuda", "--gpu", "1"}, 2, "drop --gpu"},
        CommandRefusal{
            "run_fluid", {"run", "--headless", "--backend", "cuda", "--scene", "fluid"}, 2, "runs on one GPU"},
        CommandRefusal{"soak_gpus", {"soak", "--backend", "cuda", "--gpus", "0,1"}, 2, "drop --gpu and --gpus"},
        CommandRefusal{"soak_fluid", {"soak", "--backend", "cuda", "--scene", "fluid"}, 2, "runs on one GPU"}),
    [](const auto& c) { return std::string(c.param.name); });

// A snapshot cannot be handed to the other ranks: run --load-state with --rendezvous exits 2.
TEST(RanksCli, RunFromASnapshotIsRefused) {
  const fs::path state = scratch() / "state.gss";
  RunSettings plain;
  const ProcessResult saved = runGraphsim(
      {"run", "--headless", "--backend", "cpu", "--bodies", "64", "--frames", "1", "--save-state", state.string()}, 60,
      plain);
  ASSERT_EQ(saved.exitCode, 0) << saved.err;
  RunSettings settings;
  settings.environment = kRank1Of2;
  expectOneLine(runGraphsim({"run", "--headless", "--backend", "cuda", "--load-state", state.string(), "--rendezvous",
                             (scratch() / "snap.id").string()},
                            60, settings),
                2, "--load-state: one process per GPU");
}

// Rank 1 of run and of soak goes straight to the rendezvous (no window, no renderer): a file that is not one exits 3
// naming it, as for bench.
TEST(RanksCli, RunAndSoakRanksJoinThroughTheFile) {
  const fs::path file = scratch() / "garbage2.id";
  std::ofstream(file) << "not a rendezvous file\n";
  RunSettings settings;
  settings.environment = kRank1Of2;
  expectOneLine(runGraphsim({"run", "--headless", "--backend", "cuda", "--rendezvous", file.string()}, 60, settings), 3,
                file.string());
  expectOneLine(runGraphsim({"soak", "--backend", "cuda", "--rendezvous", file.string()}, 60, settings), 3,
                file.string());
}

TEST(RanksCli, RendezvousIsInEveryCommandsHelp) {
  for (const char* command : {"run", "soak"}) {
    const ProcessResult r = runGraphsim({command, "--help"});
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_NE(r.out.find("--rendezvous FILE|mpi"), std::string::npos) << command << ": " << r.out;
  }
}

TEST(RanksCli, RendezvousIsInBenchHelp) {
  const ProcessResult r = runGraphsim({"bench", "--help"});
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_NE(r.out.find("--rendezvous FILE"), std::string::npos) << r.out;
}

} // namespace
} // namespace graphsim::test
