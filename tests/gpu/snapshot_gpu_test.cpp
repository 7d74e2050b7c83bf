// State upload on the CUDA backends (issue 27): a state downloaded after 10 frames and set into a fresh backend of
// the same configuration runs 10 more frames to the same bits as 20 frames without a break, for both scenes; and a
// state of the wrong size is refused before anything changes. The whole path (snapshot file, --load-state, the
// controllers) is tests/cli/snapshot_cli_test.cpp's cuda variant. Without a CUDA device every test is skipped.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "compute/fluid/fluid_cuda_backend.h"
#include "compute/nbody/nbody_cuda_backend.h"
#include "tests/gpu/gpu_test_support.h"

namespace graphsim {
namespace {

bool sameBits(const std::vector<Float4>& a, const std::vector<Float4>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Float4)) == 0;
}

// 40,000 bodies: the symmetric-pair forces kernel with its fixed-point scratch (from 32,768), two substeps.
TEST(SnapshotCuda, NBodyTenFramesResumedEqualTwentyBitForBit) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  NBodyConfig config = gputest::scene("galaxy-pair", 40000);
  config.substeps = 2;
  NBodyCudaBackend whole(config, 0);
  for (int k = 0; k < 20; ++k) whole.step();
  const BodyState twenty = gputest::download(whole);

  NBodyCudaBackend first(config, 0);
  for (int k = 0; k < 10; ++k) first.step();
  const BodyState ten = gputest::download(first);
  const std::vector<Float4> accel = first.downloadAccelerations();

  NBodyCudaBackend resumed(config, 0);
  resumed.step(); // a frame of its own first: the upload must replace the state, not only start it
  resumed.setState(ten, accel);
  EXPECT_TRUE(sameBits(gputest::download(resumed).posMass, ten.posMass)) << "the upload changed the state";
  for (int k = 0; k < 10; ++k) resumed.step();
  const BodyState got = gputest::download(resumed);
  EXPECT_TRUE(sameBits(got.posMass, twenty.posMass)) << "positions after 10 + 10 frames differ from 20 frames";
  EXPECT_TRUE(sameBits(got.vel, twenty.vel)) << "velocities after 10 + 10 frames differ from 20 frames";
  EXPECT_FALSE(sameBits(ten.posMass, twenty.posMass)) << "10 and 20 frames gave the same state";
}

TEST(SnapshotCuda, NBodyStateOfAnotherSizeIsRefusedUnchanged) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  const NBodyConfig config = gputest::scene("plummer", 1024);
  NBodyCudaBackend backend(config, 0);
  backend.step();
  const BodyState before = gputest::download(backend);
  BodyState shorter = before;
  shorter.posMass.pop_back();
  shorter.vel.pop_back();
  EXPECT_THROW(backend.setState(shorter, std::vector<Float4>(shorter.size())), std::invalid_argument);
  EXPECT_TRUE(sameBits(gputest::download(backend).posMass, before.posMass));
}

// The dam break at 16,384 particles: a moving fluid, several substeps a frame decided by the WHILE node.
TEST(SnapshotCuda, FluidTenFramesResumedEqualTwentyBitForBit) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  fluid::FluidConfig config;
  config.particles = 16384;
  config.initial = "dam-break";
  fluid::FluidCudaBackend whole(config, 0);
  for (int k = 0; k < 20; ++k) whole.step();
  fluid::FluidState twenty;
  whole.download(twenty);

  fluid::FluidCudaBackend first(config, 0);
  for (int k = 0; k < 10; ++k) first.step();
  fluid::FluidState ten;
  first.download(ten);

  fluid::FluidCudaBackend resumed(config, 0);
  resumed.step();
  resumed.setState(ten);
  for (int k = 0; k < 10; ++k) resumed.step();
  fluid::FluidState got;
  resumed.download(got);
  EXPECT_TRUE(sameBits(got.pos, twenty.pos)) << "positions after 10 + 10 frames differ from 20 frames";
  EXPECT_TRUE(sameBits(got.vel, twenty.vel)) << "velocities after 10 + 10 frames differ from 20 frames";
  EXPECT_EQ(got.time, twenty.time) << "the simulated time did not carry over";
  EXPECT_FALSE(sameBits(ten.pos, twenty.pos)) << "10 and 20 frames gave the same state";
  ASSERT_TRUE(resumed.lastFrame().has_value());
  EXPECT_EQ(resumed.lastFrame()->simTime, twenty.time);
}

TEST(SnapshotCuda, FluidStateOfAnotherSizeIsRefusedUnchanged) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  fluid::FluidConfig config;
  config.particles = 4096;
  fluid::FluidCudaBackend backend(config, 0);
  backend.step();
  fluid::FluidState before;
  backend.download(before);
  fluid::FluidState shorter = before;
  shorter.pos.pop_back();
  EXPECT_THROW(backend.setState(shorter), std::invalid_argument);
  fluid::FluidState after;
  backend.download(after);
  EXPECT_TRUE(sameBits(after.pos, before.pos));
}

} // namespace
} // namespace graphsim
