// The forces stage's two kernels (compute/nbody/cuda/forces_kernel.cu) launched directly, at a count where the stage
// uses the symmetric-pair kernel (kSymmetricMinBodies and above): it agrees with the tiled kernel, gives the same bits
// from launch to launch (its fixed-point sums do not depend on the order the warps finish in), leaves its scratch
// zeroed for the next launch, and turns a non-finite position into non-finite accelerations as the tiled kernel does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "compute/cuda/cuda_handles.h"
#include "compute/cuda/kernel_launch.h"
#include "compute/nbody/cuda/nbody_kernels.h"
#include "tests/gpu/gpu_test_support.h"

namespace graphsim::cuda {
namespace {

// n bodies in a unit ball, total mass 1; not a multiple of any tile, so the last tile is padded.
constexpr int kBodies = kSymmetricMinBodies + 1234;

struct ForcesFixture {
  explicit ForcesFixture(int count)
      : n(count), pos(count), accel(count), fixed(3 * static_cast<std::size_t>(count)),
        tiles(forcesTileCounters(count)) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    host.resize(n);
    for (float4& b : host) {
      float x, y, z;
      do {
        x = u(rng), y = u(rng), z = u(rng);
      } while (x * x + y * y + z * z > 1.0f);
      b = float4{x, y, z, 1.0f / static_cast<float>(n)};
    }
    upload();
    CUDA_CHECK(cudaMemset(fixed.get(), 0, fixed.bytes()));
    CUDA_CHECK(cudaMemset(tiles.get(), 0, tiles.bytes()));
  }
  void upload() { CUDA_CHECK(cudaMemcpy(pos.get(), host.data(), pos.bytes(), cudaMemcpyHostToDevice)); }
  BodiesView view() const {
    BodiesView v;
    v.posMass = pos.get();
    v.accel = accel.get();
    v.n = n;
    v.forces = {fixed.get(), tiles.get()};
    v.massSum = 1.0f;
    return v;
  }
  std::vector<float4> run(const ForcesArgs& a) {
    CUDA_CHECK(cudaMemset(accel.get(), 0xff, accel.bytes()));
    launchKernel(forcesSpec(a), nullptr, [] { return "forces"; });
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float4> out(n);
    CUDA_CHECK(cudaMemcpy(out.data(), accel.get(), accel.bytes(), cudaMemcpyDeviceToHost));
    return out;
  }
  template <typename T>
  bool allZero(const DeviceArray<T>& a) const {
    std::vector<T> h(a.size());
    CUDA_CHECK(cudaMemcpy(h.data(), a.get(), a.bytes(), cudaMemcpyDeviceToHost));
    for (const T& v : h)
      if (v != 0) return false;
    return true;
  }

  int n;
  std::vector<float4> host;
  DeviceArray<float4> pos, accel;
  DeviceArray<unsigned long long> fixed;
  DeviceArray<unsigned int> tiles;
};

constexpr float kEps2 = 0.025f * 0.025f;

TEST(ForcesKernels, SymmetricAgreesWithTiledAndRepeatsBitForBit) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  ForcesFixture f(kBodies);
  const ForcesArgs sym = forcesArgs(f.view(), 1.0f, kEps2);
  ASSERT_GT(sym.toFixed, 0.0f) << "the stage uses the symmetric kernel at this count";
  ForcesArgs tiled = sym;
  tiled.fixed = nullptr;
  tiled.tileDone = nullptr;
  tiled.toFixed = 0.0f;
  ASSERT_NE(forcesSpec(sym).func, forcesSpec(tiled).func);

  const std::vector<float4> a = f.run(sym), b = f.run(sym), t = f.run(tiled);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float4)), 0) << "two launches differ";
  EXPECT_TRUE(f.allZero(f.fixed)) << "the fixed-point sums must be left zeroed";
  EXPECT_TRUE(f.allZero(f.tiles)) << "the tile counters must be left zeroed";
  double worst = 0, scale = 0;
  for (int i = 0; i < f.n; ++i) {
    ASSERT_TRUE(std::isfinite(a[i].x) && std::isfinite(a[i].y) && std::isfinite(a[i].z)) << "body " << i;
    ASSERT_EQ(a[i].w, 0.0f);
    const double d = std::hypot(double(a[i].x) - t[i].x, double(a[i].y) - t[i].y, double(a[i].z) - t[i].z);
    worst = std::max(worst, d);
    scale = std::max(scale, std::hypot(double(t[i].x), double(t[i].y), double(t[i].z)));
  }
  std::printf("[ measured ] symmetric vs tiled, %d bodies: max |a_sym - a_tiled| = %.3g, max |a| = %.3g\n", f.n, worst,
              scale);
  EXPECT_LT(worst, 1e-5 * scale);
}

TEST(ForcesKernels, SymmetricTurnsANonFinitePositionIntoNonFiniteAccelerations) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  ForcesFixture f(kBodies);
  f.host[100].x = NAN;
  f.upload();
  const std::vector<float4> a = f.run(forcesArgs(f.view(), 1.0f, kEps2));
  EXPECT_FALSE(std::isfinite(a[100].x)) << "the NaN body's own acceleration";
  int nonFinite = 0;
  for (const float4& v : a) nonFinite += std::isfinite(v.x) ? 0 : 1;
  EXPECT_GT(nonFinite, 1) << "every body interacts with the NaN body: its tile and others are marked";
  // The next launch starts clean: the marks and sums were reset with the counters.
  f.host[100].x = 0.5f;
  f.upload();
  const std::vector<float4> clean = f.run(forcesArgs(f.view(), 1.0f, kEps2));
  for (int i = 0; i < f.n; ++i) ASSERT_TRUE(std::isfinite(clean[i].x)) << "body " << i;
}

} // namespace
} // namespace graphsim::cuda
