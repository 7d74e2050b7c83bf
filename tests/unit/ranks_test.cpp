// One process per GPU, the host side (issue 32, app/run/ranks.h): where a process sits in a launcher's job, read from
// Open MPI's, Slurm's or torchrun's variables (their precedence, every refusal as one line naming the variable and
// its value), the CUDA device a rank picks, the job key, and the rendezvous file through which rank 0 hands NCCL's
// id to the others: round trip, a stale file (another job's key, older than the job) waited past until the fresh one
// comes, a file only half there, an inconsistent world size, a path that cannot be read or is not a rendezvous file,
// and the timeout; and a rank joining its job through it.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/base/errors.h"
#include "app/run/rank_heartbeat.h"
#include "app/run/ranks.h"

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

constexpr std::size_t kIdBytes = 128; // NCCL's unique id

using Variables = std::map<std::string, std::string>;

// A launcher's environment: only these variables are set.
EnvLookup fakeEnv(Variables variables) {
  auto held = std::make_shared<const Variables>(std::move(variables));
  return [held](const char* name) -> const char* {
    const auto it = held->find(name);
    return it == held->end() ? nullptr : it->second.c_str();
  };
}

// The message of the E that f throws (a test failure when it throws nothing), checked to be one line naming each of
// `parts`.
template <class E, class F>
std::string messageOf(F&& f, std::initializer_list<std::string> parts = {}) {
  std::string message;
  try {
    f();
    ADD_FAILURE() << "no exception thrown";
    return {};
  } catch (const E& e) {
    message = e.what();
  }
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  for (const std::string& part : parts) EXPECT_NE(message.find(part), std::string::npos) << part << " in: " << message;
  return message;
}

std::string usageMessage(const Variables& variables, std::initializer_list<std::string> parts) {
  return messageOf<UsageError>([&] { rankFromEnvironment(fakeEnv(variables)); }, parts);
}

// ---- the launcher's variables ----

TEST(RankEnvironment, NoLauncherVariableIsASingleProcessRun) {
  EXPECT_FALSE(rankFromEnvironment(fakeEnv({})));
  // A local rank alone, or a job key, says nothing about a rank.
  EXPECT_FALSE(rankFromEnvironment(fakeEnv({{"LOCAL_RANK", "1"}, {"SLURM_LOCALID", "0"}, {"SLURM_JOB_ID", "7"}})));
}

TEST(RankEnvironment, ReadsEachConvention) {
  struct Case {
    Variables variables;
    std::string source;
  };
  const std::vector<Case> cases = {
      {{{"OMPI_COMM_WORLD_RANK", "5"}, {"OMPI_COMM_WORLD_SIZE", "8"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}},
       "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE/OMPI_COMM_WORLD_LOCAL_RANK"},
      {{{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "8"}, {"SLURM_LOCALID", "1"}},
       "SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID"},
      {{{"RANK", "5"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"}}, "RANK/WORLD_SIZE/LOCAL_RANK"},
  };
  for (const Case& c : cases) {
    const std::optional<RankPlace> place = rankFromEnvironment(fakeEnv(c.variables));
    ASSERT_TRUE(place) << c.source;
    EXPECT_EQ(place->rank, 5) << c.source;
    EXPECT_EQ(place->world, 8) << c.source;
    EXPECT_EQ(place->localRank, 1) << c.source;
    EXPECT_EQ(place->source, c.source);
  }
}

TEST(RankEnvironment, OpenMpiWinsOverSlurmAndSlurmOverRank) {
  const Variables ompi = {{"OMPI_COMM_WORLD_RANK", "3"},
                          {"OMPI_COMM_WORLD_SIZE", "4"},
                          {"OMPI_COMM_WORLD_LOCAL_RANK", "3"}};
  const Variables slurm = {{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}, {"SLURM_LOCALID", "0"}};
  const Variables plain = {{"RANK", "6"}, {"WORLD_SIZE", "7"}, {"LOCAL_RANK", "2"}};
  Variables all = ompi;
  all.insert(slurm.begin(), slurm.end());
  all.insert(plain.begin(), plain.end());
  EXPECT_EQ(rankFromEnvironment(fakeEnv(all))->rank, 3);
  Variables noOmpi = slurm;
  noOmpi.insert(plain.begin(), plain.end());
  EXPECT_EQ(rankFromEnvironment(fakeEnv(noOmpi))->rank, 1);
  // The first convention with a rank or world variable is the one read, whole: a broken one is not skipped.
  Variables brokenOmpi = noOmpi;
  brokenOmpi["OMPI_COMM_WORLD_SIZE"] = "4";
  usageMessage(brokenOmpi, {"OMPI_COMM_WORLD_SIZE=4", "OMPI_COMM_WORLD_RANK"});
}

TEST(RankEnvironment, RankWithoutWorldSizeOrTheReverseIsRefused) {
  usageMessage({{"SLURM_PROCID", "1"}, {"SLURM_LOCALID", "1"}}, {"SLURM_PROCID=1", "SLURM_NTASKS is not"});
  usageMessage({{"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}}, {"WORLD_SIZE=4", "RANK is not"});
}

TEST(RankEnvironment, ValuesThatAreNotWholeDecimalNumbersAreRefused) {
  for (const std::string value :
       {"-1", "+1", " 1", "1 ", "1x", "", "0x10", "1.0", "1e3", "2147483648", "99999999999"}) {
    SCOPED_TRACE(value);
    usageMessage({{"RANK", value}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "0"}},
                 {"RANK=" + (value.empty() ? std::string("\"\"") : value), "not a whole decimal number"});
    usageMessage({{"RANK", "0"}, {"WORLD_SIZE", value}, {"LOCAL_RANK", "0"}}, {"WORLD_SIZE=", "whole decimal"});
    usageMessage({{"RANK", "0"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", value}}, {"LOCAL_RANK=", "whole decimal"});
  }
  // Leading zeros are still a whole decimal number; the largest int is one.
  EXPECT_EQ(rankFromEnvironment(fakeEnv({{"RANK", "007"}, {"WORLD_SIZE", "2147483647"}, {"LOCAL_RANK", "0"}}))->rank,
            7);
}

TEST(RankEnvironment, AValueWithANewlineOrEscapeIsShownOnOneLine) {
  const std::string message = usageMessage({{"SLURM_PROCID", "1\n\x1b[2J"}, {"SLURM_NTASKS", "2"}}, {"SLURM_PROCID="});
  EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
  EXPECT_NE(message.find("1\\n\\x1b[2J"), std::string::npos) << message;
}

TEST(RankEnvironment, WorldSizeBelowOneIsRefused) {
  usageMessage({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "0"}},
               {"OMPI_COMM_WORLD_SIZE=0", "at least 1"});
}

TEST(RankEnvironment, RankNotBelowWorldSizeIsRefused) {
  usageMessage({{"SLURM_PROCID", "4"}, {"SLURM_NTASKS", "4"}, {"SLURM_LOCALID", "0"}},
               {"SLURM_PROCID=4", "SLURM_NTASKS=4", "below the world size"});
}

TEST(RankEnvironment, LocalRankIsNeededWithMoreThanOneProcess) {
  usageMessage({{"RANK", "1"}, {"WORLD_SIZE", "2"}}, {"LOCAL_RANK is not set", "RANK=1", "WORLD_SIZE=2"});
  const std::optional<RankPlace> alone = rankFromEnvironment(fakeEnv({{"RANK", "0"}, {"WORLD_SIZE", "1"}}));
  ASSERT_TRUE(alone);
  EXPECT_EQ(alone->localRank, 0);
  EXPECT_EQ(alone->world, 1);
}

TEST(RankEnvironment, LocalRankNotBelowWorldSizeIsRefused) {
  usageMessage({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "2"}}, {"LOCAL_RANK=2", "WORLD_SIZE=2"});
}

TEST(RankEnvironment, LocalDeviceIsTheLocalRankOrTheOneVisibleGpu) {
  RankPlace place;
  place.rank = 5;
  place.world = 8;
  place.localRank = 1;
  EXPECT_EQ(localDeviceFor(place, 4), 1);
  EXPECT_EQ(localDeviceFor(place, 1), 0); // CUDA_VISIBLE_DEVICES gave this process its own GPU
  place.localRank = 3;
  EXPECT_EQ(localDeviceFor(place, 4), 3);
  messageOf<EnvironmentError>([&] { localDeviceFor(place, 2); },
                              {"rank 5: local rank 3 but this machine shows 2 CUDA devices"});
  messageOf<EnvironmentError>([&] { localDeviceFor(place, 0); }, {"shows 0 CUDA devices"});
}

TEST(RankEnvironment, JobKeyComesFromTheLauncherThatGaveTheRank) {
  const Variables slurm = {{"SLURM_PROCID", "0"},
                           {"SLURM_NTASKS", "2"},
                           {"SLURM_LOCALID", "0"},
                           {"SLURM_JOB_ID", "4711"},
                           {"SLURM_STEP_ID", "3"}};
  EXPECT_EQ(jobKey(fakeEnv(slurm)), "4711.3");
  Variables noStep = slurm;
  noStep.erase("SLURM_STEP_ID");
  EXPECT_EQ(jobKey(fakeEnv(noStep)), "4711");

  // mpirun inside a Slurm allocation: Open MPI's rank, so Open MPI's key, not the Slurm step's.
  Variables ompi = slurm;
  ompi.insert({{"OMPI_COMM_WORLD_RANK", "0"},
               {"OMPI_COMM_WORLD_SIZE", "2"},
               {"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
               {"OMPI_MCA_orte_hnp_uri", "123.0;tcp://10.0.0.1:4000"},
               {"PMIX_NAMESPACE", "prterun-x-1@1"}});
  EXPECT_EQ(jobKey(fakeEnv(ompi)), "123.0;tcp://10.0.0.1:4000");
  ompi["OMPI_MCA_orte_hnp_uri"] = ""; // empty: as if not set
  EXPECT_EQ(jobKey(fakeEnv(ompi)), "prterun-x-1@1");

  EXPECT_EQ(jobKey(fakeEnv({{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"SLURM_JOB_ID", "4711"}})), "-");
  EXPECT_EQ(jobKey(fakeEnv({})), "-");
  Variables given = ompi;
  given["GRAPHSIM_JOB_KEY"] = "mine";
  EXPECT_EQ(jobKey(fakeEnv(given)), "mine");
}

// ---- the rendezvous file ----

// A directory of its own per test (and per process), removed after.
class Rendezvous : public ::testing::Test {
protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("graphsim-ranks-" + std::to_string(::getpid()) + "-" + test->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    place_.rank = 1;
    place_.world = 4;
    place_.localRank = 1;
    place_.source = "RANK/WORLD_SIZE/LOCAL_RANK";
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(file(), fs::perms::owner_all, ec);
    fs::remove_all(dir_, ec);
  }

  fs::path file() const { return dir_ / "nccl.id"; }

  static std::vector<std::byte> someId(unsigned seed) {
    std::vector<std::byte> id(kIdBytes);
    for (std::size_t i = 0; i < id.size(); ++i) id[i] = static_cast<std::byte>((i * 37 + seed) & 0xff);
    id[0] = std::byte{0}; // zeros and 0xff survive the trip
    id[1] = std::byte{0xff};
    return id;
  }

  // The process started just now: files written a minute before it are an earlier job's.
  static fs::file_time_type started() { return fs::file_time_type::clock::now() - std::chrono::minutes(1); }

  std::vector<std::byte> await(const std::string& key, milliseconds timeout = milliseconds(5000)) const {
    return awaitRendezvous(file(), kIdBytes, place_, key, timeout, started());
  }

  void writeByHand(const std::string& text) const {
    std::ofstream out(file(), std::ios::binary | std::ios::trunc);
    out << text;
    ASSERT_TRUE(out.good());
  }

  fs::path dir_;
  RankPlace place_;
};

TEST_F(Rendezvous, PublishedIdComesBackWholeAndNoTemporaryStays) {
  const std::vector<std::byte> id = someId(1);
  publishRendezvous(file(), id, 4, "4711.3");
  EXPECT_EQ(await("4711.3"), id);
  EXPECT_EQ(await("-"), id); // a rank without a key takes any file of the right time
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(dir_)) entries.push_back(entry.path());
  EXPECT_EQ(entries, std::vector<fs::path>{file()});
}

TEST_F(Rendezvous, FileIsAHeaderLineAndTheIdAsHex) {
  publishRendezvous(file(), std::vector<std::byte>{std::byte{0x00}, std::byte{0xab}, std::byte{0xff}}, 2, "job 7\n%");
  std::ifstream in(file(), std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "graphsim-rendezvous 1 world=2 key=job%207%0A%25\n00abff\n");
  place_.world = 2;
  EXPECT_EQ(awaitRendezvous(file(), 3, place_, "job 7\n%", milliseconds(1000), started()).size(), 3u);
}

TEST_F(Rendezvous, AnotherJobsFileIsWaitedPastUntilTheFreshOneComes) {
  publishRendezvous(file(), someId(1), 4, "4711.2"); // the earlier step's, still there
  const std::vector<std::byte> fresh = someId(2);
  std::thread rank0([&] {
    std::this_thread::sleep_for(milliseconds(50));
    publishRendezvous(file(), fresh, 4, "4711.3");
  });
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::byte> got = await("4711.3");
  rank0.join();
  EXPECT_EQ(got, fresh);
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(50));
}

TEST_F(Rendezvous, AFileOlderThanTheJobIsIgnored) {
  publishRendezvous(file(), someId(1), 4, "-");
  fs::last_write_time(file(), fs::file_time_type::clock::now() - std::chrono::hours(1));
  messageOf<TimeoutError>([&] { await("-", milliseconds(100)); }, {"older than this job"});

  const std::vector<std::byte> fresh = someId(2);
  std::thread rank0([&] {
    std::this_thread::sleep_for(milliseconds(50));
    publishRendezvous(file(), fresh, 4, "-");
  });
  const std::vector<std::byte> got = await("-");
  rank0.join();
  EXPECT_EQ(got, fresh);
}

TEST_F(Rendezvous, AHalfWrittenFileIsWaitedFor) {
  writeByHand("graphsim-rendezvous 1 world=4 key=-\n0011");
  std::thread writer([&] {
    std::this_thread::sleep_for(milliseconds(50));
    publishRendezvous(file(), someId(3), 4, "-");
  });
  const std::vector<std::byte> got = await("-");
  writer.join();
  EXPECT_EQ(got, someId(3));
  writeByHand("");
  messageOf<TimeoutError>([&] { await("-", milliseconds(100)); }, {"incomplete"});
}

TEST_F(Rendezvous, AnotherWorldSizeIsAUsageError) {
  publishRendezvous(file(), someId(1), 8, "k");
  messageOf<UsageError>([&] { await("k"); }, {"inconsistent world size: ", file().string() + " says 8",
                                              "this process's launcher (RANK/WORLD_SIZE/LOCAL_RANK) says 4"});
}

TEST_F(Rendezvous, AnIdOfAnotherLengthIsRefused) {
  publishRendezvous(file(), std::vector<std::byte>(16), 4, "-");
  messageOf<EnvironmentError>([&] { await("-"); }, {file().string(), "16 bytes, not 128"});
}

TEST_F(Rendezvous, AFileThatIsNotARendezvousFileIsRefusedAtOnce) {
  for (const std::string text :
       {"#!/bin/sh\n", "graphsim-rendezvous 1 world=4\n00\n", "graphsim-rendezvous 1 world=x key=-\n00\n",
        "graphsim-rendezvous 1 world=4 key=-\nzz\n", "graphsim-rendezvous 1 world=4 key=-\n00\nmore\n"}) {
    SCOPED_TRACE(text);
    writeByHand(text);
    const auto start = std::chrono::steady_clock::now();
    messageOf<EnvironmentError>([&] { await("-"); }, {file().string(), "is not a graphsim rendezvous file"});
    EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(1000));
  }
  writeByHand("graphsim-rendezvous 2 world=4 key=-\n00\n");
  messageOf<EnvironmentError>([&] { await("-"); }, {"version 2 rendezvous file", "reads version 1"});
}

TEST_F(Rendezvous, ADirectoryAtThePathIsRefused) {
  fs::create_directory(file());
  messageOf<EnvironmentError>([&] { await("-"); }, {file().string(), "Is a directory"});
  messageOf<EnvironmentError>([&] { publishRendezvous(file(), someId(1), 4, "-"); },
                              {"cannot publish", file().string(), "is a directory"});
}

TEST_F(Rendezvous, AFileWithoutReadPermissionIsRefused) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads a file of mode 000";
  publishRendezvous(file(), someId(1), 4, "-");
  fs::permissions(file(), fs::perms::none);
  messageOf<EnvironmentError>([&] { await("-"); }, {file().string(), "Permission denied"});
}

TEST_F(Rendezvous, PublishingIntoAMissingDirectoryNamesIt) {
  const fs::path missing = dir_ / "no-such-dir" / "nccl.id";
  messageOf<EnvironmentError>([&] { publishRendezvous(missing, someId(1), 4, "-"); },
                              {"cannot publish the rendezvous file", "no-such-dir"});
}

TEST_F(Rendezvous, NoFileWithinTheTimeoutIsATimeout) {
  const auto start = std::chrono::steady_clock::now();
  messageOf<TimeoutError>([&] { await("-", milliseconds(100)); },
                          {"rank 0 published no rendezvous file " + file().string() + " within 100 ms", "rank 1 of 4",
                           "RANK/WORLD_SIZE/LOCAL_RANK"});
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, milliseconds(100));
  EXPECT_LT(waited, milliseconds(2000));

  // A directory that does not exist (a shared filesystem not mounted here) is said.
  messageOf<TimeoutError>(
      [&] { awaitRendezvous(dir_ / "absent" / "nccl.id", kIdBytes, place_, "-", milliseconds(20), started()); },
      {"absent does not exist"});
  // Another job's file is said too.
  publishRendezvous(file(), someId(1), 4, "old");
  messageOf<TimeoutError>([&] { await("new", milliseconds(50)); }, {"another job's (key old; this job's is new)"});
}

TEST_F(Rendezvous, ARankOtherThanZeroJoinsWithRankZerosId) {
  const std::vector<std::byte> id = someId(4);
  publishRendezvous(file(), id, 4, jobKey()); // rank 0, with the key this environment gives every rank
  const ProcessRank joined = joinLaunchedJob(LaunchedRank{place_, file()}, milliseconds(1000));
  EXPECT_EQ(joined.rank, 1);
  EXPECT_EQ(joined.world, 4);
  EXPECT_EQ(joined.ncclId, id);
  fs::remove(file());
  messageOf<TimeoutError>(
      [&] {
        joinLaunchedJob(LaunchedRank{place_, file()}, milliseconds(50));
      },
      {"rank 0 published no rendezvous file", "rank 1 of 4"});
}

} // namespace
} // namespace graphsim::app

namespace graphsim::app {
namespace {

// Two ranks of three beat; the third never started. Then rank 1 stops: rank 0 names both.
TEST(RankHeartbeat, NamesTheRanksWhoseHeartbeatStopped) {
  const fs::path dir = fs::temp_directory_path() / ("graphsim-heartbeat-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path rendezvous = dir / "nccl.id";
  RankHeartbeat zero(rendezvous, 0, 3);
  auto one = std::make_unique<RankHeartbeat>(rendezvous, 1, 3);
  std::this_thread::sleep_for(std::chrono::milliseconds(100)); // both have written a first beat
  EXPECT_EQ(zero.stoppedRanks(3 * RankHeartbeat::kPeriod), std::vector<int>{2});
  one.reset(); // stops beating, removes its file
  EXPECT_EQ(zero.stoppedRanks(3 * RankHeartbeat::kPeriod), (std::vector<int>{1, 2}));
  EXPECT_TRUE(fs::exists(RankHeartbeat::fileOf(rendezvous, 0)));
  fs::remove_all(dir);
}

// The watch: a rank whose file stays but whose count stands still (it died: SIGKILL leaves the file) is reported
// once, after about `stillFor`; a rank that beats, and one that ended and removed its file, are not.
TEST(RankHeartbeat, TheWatchReportsARankThatDiedOnceAndOnlyIt) {
  const fs::path dir = fs::temp_directory_path() / ("graphsim-watch-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path rendezvous = dir / "nccl.id";
  {
    std::ofstream(RankHeartbeat::fileOf(rendezvous, 3)) << "41\n"; // rank 3 died after its 42nd beat
  }
  auto ended = std::make_unique<RankHeartbeat>(rendezvous, 2, 4);
  const RankHeartbeat beating(rendezvous, 1, 4);
  std::mutex m;
  std::vector<std::string> reports;
  const auto t0 = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point reportedAt;
  {
    const RankHeartbeat zero(rendezvous, 0, 4, std::chrono::milliseconds(1200), [&](int rank, const std::string& line) {
      const std::lock_guard<std::mutex> lock(m);
      reports.push_back(std::to_string(rank) + ": " + line);
      reportedAt = std::chrono::steady_clock::now();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ended.reset(); // rank 2 ends normally: its file goes
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  }
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].rfind("3: rank 3 of 4 stopped: its heartbeat ", 0), 0u) << reports[0];
  EXPECT_NE(reports[0].find("rank 0 ends the job (exit 1)"), std::string::npos) << reports[0];
  const double s = std::chrono::duration<double>(reportedAt - t0).count();
  EXPECT_GE(s, 1.1) << "reported before the count stood still for 1.2 s";
  EXPECT_LE(s, 3.0) << "reported later than 1.2 s plus three beats and slack for a loaded machine";
  fs::remove_all(dir);
}

// A rank on this machine whose process is gone is known at the next beat, without waiting for its count to stand
// still: its beat names this host and its pid.
TEST(RankHeartbeat, TheWatchKnowsAProcessOnThisMachineIsGoneAtOnce) {
  const fs::path dir = fs::temp_directory_path() / ("graphsim-gone-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path rendezvous = dir / "nccl.id";
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child); // reaped: that pid names no process now
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  { std::ofstream(RankHeartbeat::fileOf(rendezvous, 1)) << "7 " << host << ' ' << child << '\n'; }
  std::mutex m;
  std::vector<std::string> reports;
  const auto t0 = std::chrono::steady_clock::now();
  double seconds = -1;
  {
    const RankHeartbeat zero(rendezvous, 0, 2, std::chrono::milliseconds(60000), [&](int, const std::string& line) {
      const std::lock_guard<std::mutex> lock(m);
      reports.push_back(line);
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  }
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_NE(reports[0].find("rank 1 of 2 stopped: its process on this machine is gone"), std::string::npos)
      << reports[0];
  EXPECT_LT(seconds, 1.0) << "the first beats look, long before the 60 s a count must stand still";
  fs::remove_all(dir);
}

} // namespace
} // namespace graphsim::app

namespace graphsim::app {
namespace {

// Rank 0 removes the file once every rank joined; a second removal (or none to remove) says nothing.
TEST(RendezvousCleanUp, RemovesThePublishedFileQuietly) {
  const fs::path file = fs::temp_directory_path() / ("graphsim-rendezvous-rm-" + std::to_string(::getpid()));
  const std::vector<std::byte> id(128, std::byte{7});
  publishRendezvous(file, id, 2, "-");
  ASSERT_TRUE(fs::exists(file));
  testing::internal::CaptureStderr();
  removeRendezvous(file);
  removeRendezvous(file);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_FALSE(fs::exists(file));
}

} // namespace
} // namespace graphsim::app
