// DFSPH's per-step neighbour lists on the GPU (docs/PERFORMANCE.md, "Neighbour lists"): density_factor lists each
// lane's neighbours and the step's later passes read the list. The list holds exactly the candidates the cell walk
// would have summed, in its order, so a run with lists and one walking the 27 cells must agree bit for bit, with
// the same iteration counts, whether the lists hold every lane (a dam break) or overflow (a block squeezed to half its
// volume: about 57 neighbours, some 39 of them in the middle lane's slab, past kListPerLane, so those lanes fall
// back to the walk). Without a CUDA device every test is skipped with the reason.
#include <gtest/gtest.h>

#include <cstdio>

#include "compute/fluid/fluid_cuda_backend.h"
#include "tests/gpu/gpu_test_support.h"

namespace graphsim::fluid {
namespace {

FluidConfig dfsphDamBreak(std::int64_t particles) {
  FluidConfig c;
  c.particles = particles;
  c.initial = "dam-break";
  c.solver = FluidSolver::Dfsph;
  return c;
}

bool sameBits(const FluidState& a, const FluidState& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Float4 &p = a.pos[i], &q = b.pos[i], &v = a.vel[i], &w = b.vel[i];
    if (p.x != q.x || p.y != q.y || p.z != q.z || v.x != w.x || v.y != w.y || v.z != w.z) return false;
  }
  return true;
}

// Runs `frames` frames on both backends and checks that every frame's counts and every tenth frame's state agree.
void expectSameRuns(FluidCudaBackend& lists, FluidCudaBackend& cells, int frames) {
  for (int f = 0; f < frames; ++f) {
    lists.step(), cells.step();
    const FluidFrameInfo a = *lists.lastFrame(), b = *cells.lastFrame();
    ASSERT_EQ(a.substeps, b.substeps) << "frame " << f;
    ASSERT_EQ(a.divergence.total, b.divergence.total) << "frame " << f;
    ASSERT_EQ(a.density.total, b.density.total) << "frame " << f;
    ASSERT_EQ(a.densityError, b.densityError) << "frame " << f;
    ASSERT_EQ(a.peakCompression, b.peakCompression) << "frame " << f;
    if (f % 10 == 9 || f + 1 == frames) {
      FluidState sa, sb;
      lists.download(sa), cells.download(sb);
      ASSERT_TRUE(sameBits(sa, sb)) << "positions or velocities differ after frame " << f;
    }
  }
}

TEST(FluidListsGpu, ListsAndTheCellWalkRunTheDamBreakBitForBit) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  const FluidConfig config = dfsphDamBreak(16384);
  FluidCudaOptions walk;
  walk.neighbourLists = false;
  FluidCudaBackend lists(config, 0), cells(config, 0, nullptr, walk);
  EXPECT_GT(lists.deviceBytes(), cells.deviceBytes()) << "the lists' memory";
  std::printf("GPU memory: %.1f B/particle with lists, %.1f without\n",
              static_cast<double>(lists.deviceBytes()) / 16384.0, static_cast<double>(cells.deviceBytes()) / 16384.0);
  expectSameRuns(lists, cells, 60);
  long long iterations = lists.lastFrame()->density.total + lists.lastFrame()->divergence.total;
  EXPECT_GT(iterations, 0) << "the solves ran";
}

TEST(FluidListsGpu, ASqueezedBlockOverflowsItsListsAndStillMatchesTheWalk) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  FluidConfig config = dfsphDamBreak(8192);
  config.enabled[static_cast<std::size_t>(FluidToggle::Obstacle)] = false;
  FluidCudaOptions walk;
  walk.neighbourLists = false;
  FluidCudaBackend lists(config, 0), cells(config, 0, nullptr, walk);
  FluidState start;
  lists.download(start);
  // The lattice squeezed to 0.8 of its spacing about its centre (0.8^3 = 0.51 of its volume, below the blow-up
  // density of 3 rho0): about twice the neighbours.
  double centre[3] = {0, 0, 0};
  for (const Float4& p : start.pos) centre[0] += p.x, centre[1] += p.y, centre[2] += p.z;
  for (double& c : centre) c /= static_cast<double>(start.size());
  for (Float4& p : start.pos) {
    p.x = static_cast<float>(centre[0] + 0.8 * (p.x - centre[0]));
    p.y = static_cast<float>(centre[1] + 0.8 * (p.y - centre[1]));
    p.z = static_cast<float>(centre[2] + 0.8 * (p.z - centre[2]));
  }
  lists.setState(start), cells.setState(start);
  expectSameRuns(lists, cells, 3);
  EXPECT_GT(lists.lastFrame()->peakSinceReset, 0.5f) << "the block was squeezed (its peak compression)";
}

} // namespace
} // namespace graphsim::fluid
