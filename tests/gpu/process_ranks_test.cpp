// Issue 32: one process per GPU (docs/MULTI-GPU.md, "One process per GPU"). Each rank here is a thread of this test
// with a backend of its own, joined to the others through the NCCL id exactly as separate processes are
// (ncclCommInitRank), rank 0 driven like any backend and the others following it (NBodyCudaBackend::follow);
// scripts/ranks.sh runs the same as processes. Needs NCCL, and two CUDA devices for the
// equality tests (reported as skipped with the count otherwise):
//     source .devrt/env.sh && build/bin/gpu_tests --gtest_filter='ProcessRanks*'
//
// Tolerance: none, as for --gpus (tests/gpu/multi_gpu_test.cpp): a rank's graph is the graph a GPU of --gpus runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "compute/cuda_device.h"
#include "compute/nbody/cuda/collectives.h"
#include "compute/nbody/nbody_cuda_backend.h"
#include "compute/process_rank.h"
#include "tests/gpu/gpu_test_support.h"

namespace graphsim {
namespace {

#define GRAPHSIM_REQUIRE_NCCL()                                                                                        \
  do {                                                                                                                 \
    GRAPHSIM_REQUIRE_CUDA_DEVICE();                                                                                    \
    if (!cuda::ncclBuiltIn() || cuda::ncclVersionText().rfind("none", 0) == 0)                                         \
      GTEST_SKIP() << "needs NCCL: " << cuda::ncclVersionText();                                                       \
  } while (false)

struct RankResult {
  BodyState state;
  std::vector<float> colour;
  std::vector<Float4> accel;
  NBodyCudaBackend::FollowSummary followed; // ranks other than 0
  std::string error;
};

// `frames` compute-only frames, with the edits of multi_gpu_test.cpp at frame `editAt` and a reset to 3/4 of the
// bodies and two substeps at `resetAt`, then the whole state. On rank 0 of a job the same calls reach the other ranks
// through the control broadcast.
void runRank(NBodyCudaBackend& sim, int frames, int editAt, int resetAt, RankResult& out) {
  for (int k = 0; k < frames; ++k) {
    if (k == editAt) {
      NBodyParams p = sim.config().params;
      p.dt *= 0.5f;
      p.attractorStrength = 20.0f;
      sim.setParams(p);
      sim.setStageEnabled(NBodyStage::Damping, false);
      sim.setStageEnabled(NBodyStage::Attractor, true);
    }
    if (k == resetAt) {
      NBodyConfig c = sim.config();
      c.bodies = c.bodies * 3 / 4;
      c.substeps = 2;
      sim.reset(c);
    }
    sim.step();
  }
  sim.download(out.state, out.colour);
  out.accel = sim.downloadAccelerations();
}

// `world` ranks on GPUs 0 .. world-1, one thread each: rank 0 runs runRank, the others follow it.
std::vector<RankResult> runRanks(const NBodyConfig& config, int world, int frames, int editAt, int resetAt) {
  const std::vector<std::byte> id = newNcclId();
  std::vector<RankResult> results(static_cast<std::size_t>(world));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(world));
  for (int r = 0; r < world; ++r) {
    threads.emplace_back([&, r] {
      RankResult& out = results[static_cast<std::size_t>(r)];
      try {
        NBodyCudaBackend sim(config, r, ProcessRank{r, world, id}, nullptr, std::chrono::milliseconds(60000));
        if (r == 0) runRank(sim, frames, editAt, resetAt, out);
        else out.followed = sim.follow();
      } catch (const std::exception& e) {
        out.error = e.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return results;
}

int gpusForRanks() { return std::min(4, static_cast<int>(listCudaDevices().devices.size())); }

struct Case {
  const char* name;
  std::int64_t bodies;
  int substeps;
  int editAt;
  int resetAt = -1;
};

class ProcessRanksEquality : public ::testing::TestWithParam<Case> {};

// Rank 0's whole state (positions and colours gathered by the frame; velocities and accelerations by download) equals
// one GPU's after 100 frames: the symmetric kernel's reduction across processes, a partial last share, two substeps,
// the tiled kernel, edits at frame 30 and a reset at frame 60, which only rank 0 is asked for: the other ranks get them
// through rank 0's control broadcast, and the forces of their shares are in rank 0's state. Each follower saw every
// frame, the reset and the two gathers.
TEST_P(ProcessRanksEquality, RankZeroEqualsOneGpuAfter100Frames) {
  GRAPHSIM_REQUIRE_NCCL();
  const int world = gpusForRanks();
  if (world < 2) GTEST_SKIP() << "needs two CUDA devices; this machine has " << world;
  const Case& c = GetParam();
  NBodyConfig config = gputest::scene("plummer", c.bodies);
  config.substeps = c.substeps;
  config.diagnosticsEvery = 0;
  RankResult one;
  {
    NBodyCudaBackend sim(config, 0);
    runRank(sim, 100, c.editAt, c.resetAt, one);
  }
  const std::vector<RankResult> ranks = runRanks(config, world, 100, c.editAt, c.resetAt);
  for (int r = 0; r < world; ++r) {
    const RankResult& got = ranks[static_cast<std::size_t>(r)];
    ASSERT_TRUE(got.error.empty()) << "rank " << r << ": " << got.error;
    if (r == 0) continue;
    EXPECT_EQ(got.followed.frames, 100u) << "rank " << r;
    EXPECT_EQ(got.followed.resets, c.resetAt >= 0 ? 1u : 0u) << "rank " << r;
    EXPECT_EQ(got.followed.gathers, 2u) << "rank " << r << ": download and downloadAccelerations";
    EXPECT_FALSE(got.followed.rank0Failed) << "rank " << r;
  }
  const RankResult& got = ranks[0];
  const std::string what = std::string(c.name) + ", rank 0 of " + std::to_string(world);
  const StateDifference d = compareStates(one.state, got.state);
  gputest::report(what.c_str(), d);
  EXPECT_TRUE(d.bitIdentical) << what << ": max |dx| " << d.maxAbs << " at body " << d.worst;
  EXPECT_EQ(one.colour, got.colour) << what << ": colours differ";
  ASSERT_EQ(one.accel.size(), got.accel.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < one.accel.size(); ++i) {
    differ += (one.accel[i].x != got.accel[i].x || one.accel[i].y != got.accel[i].y || one.accel[i].z != got.accel[i].z)
                  ? 1
                  : 0;
  }
  EXPECT_EQ(differ, 0u) << what << ": accelerations differ";
}

INSTANTIATE_TEST_SUITE_P(Counts, ProcessRanksEquality,
                         ::testing::Values(Case{"sym65536", 65536, 1, -1}, Case{"sym70001x2", 70001, 2, -1},
                                           Case{"tiled8192", 8192, 1, -1}, Case{"edits65536", 65536, 1, 30},
                                           Case{"editsReset65536", 65536, 1, 30, 60}),
                         [](const auto& c) { return std::string(c.param.name); });

// A rank whose peers never join does not hang: the set-up gives up after the wait timeout and says what it waited
// for. Runs on one GPU.
TEST(ProcessRanks, ARankAloneTimesOutNamingItsPlace) {
  GRAPHSIM_REQUIRE_NCCL();
  const NBodyConfig config = gputest::scene("plummer", 4096);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    NBodyCudaBackend sim(config, 0, ProcessRank{0, 2, newNcclId()}, nullptr, std::chrono::milliseconds(1500));
    FAIL() << "rank 0 of 2 set up without rank 1";
  } catch (const TimeoutError& e) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 10.0) << "the timeout was 1.5 s";
    EXPECT_NE(std::string(e.what()).find("rank 0 of 2"), std::string::npos) << e.what();
  }
}

// Rank 1 with interop is refused before anything is set up: only rank 0 writes the render output.
TEST(ProcessRanks, OnlyRankZeroRenders) {
  GRAPHSIM_REQUIRE_NCCL();
  InteropDesc fake; // refused before its (absent) fds are looked at
  fake.renderBuffers.resize(1);
  fake.renderBuffers[0].bufferSize = 1u << 20;
  EXPECT_THROW(NBodyCudaBackend(gputest::scene("plummer", 1024), 0, ProcessRank{1, 2, newNcclId()}, &fake),
               std::invalid_argument);
}

} // namespace
} // namespace graphsim
