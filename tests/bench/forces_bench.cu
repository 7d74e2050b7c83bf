// Standalone benchmark and check of the forces stage (compute/nbody/cuda/forces_kernel.cu, included whole so that other
// launch shapes of its two kernel templates, the tiled one and the symmetric-pair one, can be timed beside the
// stage's). Needs
// a GPU and nothing of the app: one static binary (target forces_bench, build/bin/forces_bench), or by hand:
//   nvcc -O3 -std=c++17 -arch=sm_90 -cudart static -I. -o forces_bench tests/bench/forces_bench.cu
//   forces_bench            small-n checks, then timings of every shape for N = 16384 .. 1048576 (interactions/s =
//                           N^2 / time per launch, GFLOP/s at 20 flops), each checked against a double-precision
//                           sum for 50 sampled bodies
//   forces_bench small      only the small-n checks (every body, every shape, n = 1 .. 4097, eps^2 = 0 and > 0):
//                           the run for compute-sanitizer --tool memcheck / racecheck
//   options (after the mode, any order): --only=A,B  only the variants whose name contains A or B (the stage is
//                           always kept as the baseline); --sizes=262144,1048576  the N of the timing table
// Every variant gets PASS / FAIL: small-n, finite and max error <= 1e-4 of sum |terms| over every body (n == 1:
// exactly 0); timing rows, finite and, over the 50 sampled bodies, max error <= 1e-5 of sum |terms| and <= 1e-4 of
// |a|. The symmetric kernels run only with eps^2 >= kSymmetricMinEps2 (forcesArgs); with eps^2 = 0 they fall back to
// the tiled kernel as the stage does.
// docs/FORCES.md has the figures it printed on an H200.
#include "compute/nbody/cuda/forces_kernel.cu"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#define CK(x)                                                                                                          \
  do {                                                                                                                 \
    cudaError_t e_ = (x);                                                                                              \
    if (e_ != cudaSuccess) {                                                                                           \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));                          \
      std::exit(1);                                                                                                    \
    }                                                                                                                  \
  } while (0)

using namespace graphsim::cuda;

struct Variant {
  std::string name;
  const void* func;                              // softened kernel
  const void* funcGuard;                         // eps2 == 0 kernel
  int threads, blockBodies;                      // blockBodies 0: launch through forcesSpec; -1: through launchFn
  void (*launchFn)(const ForcesArgs&) = nullptr; // the symmetric kernels
  unsigned (*gridFn)(int n) = nullptr;
};

template <class S>
Variant variant(const char* name) {
  return {name, reinterpret_cast<const void*>(forcesKernel<S, false>),
          reinterpret_cast<const void*>(forcesKernel<S, true>), S::kThreads, S::kBlockBodies};
}

// The symmetric kernels' scratch (nbody_kernels.h, ForcesScratch) for up to n bodies of any shape (tiles of >= 32
// bodies), zeroed once: the kernel leaves it zeroed.
static ForcesScratch scratchFor(int n) {
  static ForcesScratch s;
  static int capacity = -1;
  if (n > capacity) {
    if (s.fixed != nullptr) CK(cudaFree(s.fixed));
    if (s.tileDone != nullptr) CK(cudaFree(s.tileDone));
    const size_t bodies = static_cast<size_t>(std::max(n, 1)), tiles = bodies / 32 + 2;
    CK(cudaMalloc(&s.fixed, 3 * bodies * sizeof(unsigned long long)));
    CK(cudaMalloc(&s.tileDone, tiles * sizeof(unsigned int)));
    CK(cudaMemset(s.fixed, 0, 3 * bodies * sizeof(unsigned long long)));
    CK(cudaMemset(s.tileDone, 0, tiles * sizeof(unsigned int)));
    capacity = n;
  }
  return s;
}

// The forces arguments for n bodies at d_p (their masses summing to massSum) as forcesArgs builds them, but with the
// symmetric kernel's scratch and scale at every n (the symmetric variants run below kSymmetricMinBodies too);
// stageArgs turns them into exactly the stage's.
static ForcesArgs benchArgs(float4* d_p, float4* d_a, int n, float G, float eps2, double massSum) {
  BodiesView view;
  view.posMass = d_p;
  view.accel = d_a;
  view.n = std::max(n, kSymmetricMinBodies);
  view.forces = scratchFor(n);
  view.massSum = static_cast<float>(massSum);
  ForcesArgs a = forcesArgs(view, G, eps2);
  a.n = n;
  a.end = n; // every body i (forcesArgs took the padded count)
  return a;
}

static ForcesArgs stageArgs(ForcesArgs a) {
  if (a.n < kSymmetricMinBodies) {
    a.fixed = nullptr;
    a.tileDone = nullptr;
    a.toFixed = 0.0f;
  }
  return a;
}

static double massOf(const std::vector<float4>& b) {
  double m = 0;
  for (const float4& q : b) m += q.w;
  return m;
}

template <class S>
void symLaunch(const ForcesArgs& a) {
  const KernelNodeSpec spec = a.toFixed > 0 ? symSpecFor<S>(a) : forcesSpec(a); // eps^2 too small: the tiled kernel
  void* slot[1];
  const cudaKernelNodeParams p = spec.nodeParams(slot);
  CK(cudaLaunchKernel(p.func, p.gridDim, p.blockDim, p.kernelParams, p.sharedMemBytes, 0));
}

template <class S>
unsigned symGrid(int n) {
  ForcesArgs all{};
  all.n = all.end = n; // every body i, one GPU
  return symBlocks<S>(all);
}

template <class S>
Variant symVariant(const char* name) {
  return {name,
          reinterpret_cast<const void*>(symForcesKernel<S, false>),
          reinterpret_cast<const void*>(symForcesKernel<S, false>),
          S::kThreads,
          -1,
          symLaunch<S>,
          symGrid<S>};
}

static std::vector<float4> makeBodies(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f), m(0.5f, 1.5f);
  std::vector<float4> b(n);
  for (int i = 0; i < n; ++i) {
    float x, y, z;
    do {
      x = u(rng), y = u(rng), z = u(rng);
    } while (x * x + y * y + z * z > 1.0f);
    b[i] = make_float4(x, y, z, m(rng) / static_cast<float>(n));
  }
  return b;
}

// Double-precision reference for body i, j ascending; r2 == 0 contributes 0. Returns |a| scale too.
static void refAccel(const std::vector<float4>& b, int i, double eps2, double G, double out[3], double& absSum) {
  double ax = 0, ay = 0, az = 0, s = 0;
  for (size_t j = 0; j < b.size(); ++j) {
    const double dx = double(b[j].x) - b[i].x, dy = double(b[j].y) - b[i].y, dz = double(b[j].z) - b[i].z;
    const double r2 = dx * dx + dy * dy + dz * dz + eps2;
    if (r2 <= 0) continue;
    const double w = b[j].w / (r2 * std::sqrt(r2));
    ax += dx * w, ay += dy * w, az += dz * w;
    s += std::sqrt(dx * dx + dy * dy + dz * dz) * w;
  }
  out[0] = G * ax, out[1] = G * ay, out[2] = G * az;
  absSum = G * s;
}

struct Check {
  double maxRel = 0, maxRelScale = 0;
  bool finite = true;
};

struct Ref {
  std::vector<int> idx;
  std::vector<double> a, scale; // 3 per body; sum of |terms|
};

static Ref makeRef(const std::vector<float4>& b, const std::vector<int>& idx, float eps2, float G) {
  Ref r;
  r.idx = idx;
  for (int i : idx) {
    double o[3], s;
    refAccel(b, i, eps2, G, o, s);
    r.a.insert(r.a.end(), o, o + 3);
    r.scale.push_back(s);
  }
  return r;
}

static Check check(const Ref& ref, const std::vector<float4>& acc) {
  Check c;
  for (size_t k = 0; k < ref.idx.size(); ++k) {
    const double* r = &ref.a[3 * k];
    const float4 g = acc[ref.idx[k]];
    if (!std::isfinite(g.x) || !std::isfinite(g.y) || !std::isfinite(g.z) || g.w != 0.0f) c.finite = false;
    const double e = std::sqrt((g.x - r[0]) * (g.x - r[0]) + (g.y - r[1]) * (g.y - r[1]) + (g.z - r[2]) * (g.z - r[2]));
    const double mag = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    if (mag > 0) c.maxRel = std::max(c.maxRel, e / mag);
    else if (e > 0) c.maxRel = INFINITY;
    if (ref.scale[k] > 0) c.maxRelScale = std::max(c.maxRelScale, e / ref.scale[k]);
  }
  return c;
}

static void launch(const void* func, dim3 grid, dim3 block, const ForcesArgs& a) {
  ForcesArgs copy = a;
  void* args[] = {&copy};
  CK(cudaLaunchKernel(func, grid, block, args, 0, 0));
}

static void launchSpec(const ForcesArgs& a) {
  const KernelNodeSpec spec = forcesSpec(stageArgs(a));
  void* slot[1];
  const cudaKernelNodeParams p = spec.nodeParams(slot);
  CK(cudaLaunchKernel(p.func, p.gridDim, p.blockDim, p.kernelParams, p.sharedMemBytes, 0));
}

static unsigned gridOf(const Variant& v, const ForcesArgs& a) {
  if (v.blockBodies == 0) return forcesSpec(stageArgs(a)).grid.x;
  if (v.blockBodies < 0) return a.toFixed > 0 ? v.gridFn(a.n) : forcesSpec(a).grid.x;
  const unsigned n = static_cast<unsigned>(a.n);
  return n == 0 ? 1u : (n + v.blockBodies - 1) / v.blockBodies;
}

static void launchVariant(const Variant& v, const ForcesArgs& a) {
  if (v.blockBodies == 0) return launchSpec(a);
  if (v.blockBodies < 0) return v.launchFn(a);
  launch(a.eps2 >= FLT_MIN ? v.func : v.funcGuard, dim3(gridOf(v, a)), dim3(v.threads), a);
}

// Milliseconds per launch of `go`, launched K times back to back between events e0 and e1.
template <class Launch>
static float msPerLaunch(cudaEvent_t e0, cudaEvent_t e1, int K, Launch&& go) {
  CK(cudaEventRecord(e0));
  for (int k = 0; k < K; ++k) go();
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  return ms / K;
}

// One row of the timing table: the accelerations in d_a (n bodies) checked against ref, and the rates. Returns 1 on
// FAIL (non-finite, or max error over the sampled bodies > 1e-5 of sum |terms| or > 1e-4 of |a|).
static int printTimingRow(const char* name, int n, unsigned grid, float ms, const Ref& ref, const float4* d_a) {
  std::vector<float4> acc(n);
  CK(cudaMemcpy(acc.data(), d_a, n * sizeof(float4), cudaMemcpyDeviceToHost));
  const Check c = check(ref, acc);
  const double rate = double(n) * double(n) / (ms * 1e-3);
  const bool ok = c.finite && c.maxRelScale <= 1e-5 && c.maxRel <= 1e-4;
  std::printf("%-26s %8d %6u %10.3f %12.4g %9.0f %7.3f %10.3g %10.3g %s%s\n", name, n, grid, ms, rate, rate * 20 / 1e9,
              rate / 2.8e12, c.maxRel, c.maxRelScale, ok ? "PASS" : "FAIL", c.finite ? "" : " NONFINITE");
  return ok ? 0 : 1;
}

static int smallChecks(const std::vector<Variant>& vs) {
  int failures = 0;
  std::vector<double> worstRel(vs.size(), 0.0), worstScale(vs.size(), 0.0);
  std::vector<int> variantFailures(vs.size(), 0);
  const float G = 1.0f;
  for (int n : {1, 2, 3, 31, 255, 256, 257, 1000, 4097}) {
    for (float eps2 : {0.0f, 6.25e-4f}) {
      std::vector<float4> b = makeBodies(n, 7u + n);
      if (n >= 4) b[3] = b[2]; // a coincident pair: with eps2 == 0 its r2 == 0 too, contributing 0
      float4 *d_p, *d_a;
      CK(cudaMalloc(&d_p, n * sizeof(float4)));
      CK(cudaMalloc(&d_a, n * sizeof(float4)));
      CK(cudaMemcpy(d_p, b.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
      CK(cudaMemset(d_a, 0xff, n * sizeof(float4)));
      const ForcesArgs a = benchArgs(d_p, d_a, n, G, eps2, massOf(b));
      std::vector<int> idx(n);
      for (int i = 0; i < n; ++i) idx[i] = i;
      const Ref ref = makeRef(b, idx, eps2, G);
      for (size_t vi = 0; vi < vs.size(); ++vi) {
        const Variant& v = vs[vi];
        CK(cudaMemset(d_a, 0xff, n * sizeof(float4)));
        for (int rep = 0; rep < 2; ++rep) launchVariant(v, a);
        CK(cudaDeviceSynchronize());
        std::vector<float4> acc(n);
        CK(cudaMemcpy(acc.data(), d_a, n * sizeof(float4), cudaMemcpyDeviceToHost));
        const Check c = check(ref, acc);
        // n == 1 (and the coincident pair) must give exactly 0 / finite values.
        const bool ok =
            c.finite && c.maxRelScale < 1e-4 && (n != 1 || (acc[0].x == 0 && acc[0].y == 0 && acc[0].z == 0));
        if (!ok || &v == &vs.front())
          std::printf("small %-22s n=%5d eps2=%-8g grid=%u  max rel err %.3g (of |a|), %.3g (of sum |terms|)  %s\n",
                      v.name.c_str(), n, eps2, gridOf(v, a), c.maxRel, c.maxRelScale, ok ? "ok" : "FAIL");
        failures += ok ? 0 : 1;
        variantFailures[vi] += ok ? 0 : 1;
        worstRel[vi] = std::max(worstRel[vi], c.maxRel);
        worstScale[vi] = std::max(worstScale[vi], c.maxRelScale);
      }
      CK(cudaFree(d_p));
      CK(cudaFree(d_a));
    }
  }
  for (size_t vi = 0; vi < vs.size(); ++vi)
    std::printf(
        "small %-26s worst over n = 1 .. 4097, eps2 = 0 and > 0: max rel err %.3g (of |a|), %.3g (of sum "
        "|terms|)  %s\n",
        vs[vi].name.c_str(), worstRel[vi], worstScale[vi], variantFailures[vi] == 0 ? "PASS" : "FAIL");
  return failures;
}

int main(int argc, char** argv) {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int clockKHz = 0;
  cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, 0);
  std::printf("device %s, %d SMs, max clock %d MHz\n", prop.name, prop.multiProcessorCount, clockKHz / 1000);
  const ForcesArgs probe = benchArgs(nullptr, nullptr, 131072, 1.0f, 6.25e-4f, 1.0);
  const ForcesArgs probe0 = benchArgs(nullptr, nullptr, 131072, 1.0f, 0.0f, 1.0);
  const std::vector<Variant> all = {
      {"stage(spec)", forcesSpec(probe).func, forcesSpec(probe0).func, static_cast<int>(forcesSpec(probe).block.x), 0},
      // The tiled kernel (the stage for eps^2 = 0; before issue 14 the stage for every eps^2).
      variant<Shape<4, 32, 8, 32, 4>>("tiled B4 L32 S8 U32 M4"),
      variant<Shape<4, 32, 8, 16, 4>>("B4 L32 S8 U16 M4"),
      variant<Shape<4, 32, 8, 8, 4>>("B4 L32 S8 U8 M4"),
      variant<Shape<8, 32, 8, 8, 2>>("B8 L32 S8 U8 M2"),
      variant<Shape<8, 32, 8, 16, 2>>("B8 L32 S8 U16 M2"),
      variant<Shape<8, 32, 16, 8, 1>>("B8 L32 S16 U8 M1"),
      variant<Shape<4, 32, 16, 16, 2>>("B4 L32 S16 U16 M2"),
      variant<Shape<8, 64, 4, 8, 2>>("B8 L64 S4 U8 M2"),
      // Symmetric pairs: bodies i per lane, warps per block, unroll, min blocks per SM (the stage: B8 W4 U8 M4).
      symVariant<SymShape<8, 4, 16, 4>>("sym B8 W4 U16 M4"),
      symVariant<SymShape<8, 4, 8, 4>>("sym B8 W4 U8 M4"),
      symVariant<SymShape<8, 4, 32, 4>>("sym B8 W4 U32 M4"),
      symVariant<SymShape<8, 8, 16, 2>>("sym B8 W8 U16 M2"),
      symVariant<SymShape<4, 4, 32, 8>>("sym B4 W4 U32 M8"),
      symVariant<SymShape<12, 4, 16, 3>>("sym B12 W4 U16 M3"),
      symVariant<SymShape<16, 4, 16, 2>>("sym B16 W4 U16 M2"),
  };
  // Options: mode (small | probe), --only=A,B (name substrings; the stage is always kept), --sizes=N,N.
  const char* mode = "";
  std::vector<std::string> only;
  std::vector<int> sizes = {16384, 65536, 131072, 262144, 524288, 1048576};
  for (int k = 1; k < argc; ++k) {
    const std::string arg = argv[k];
    auto splitList = [](const std::string& list) {
      std::vector<std::string> out;
      size_t start = 0;
      while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        if (comma > start) out.push_back(list.substr(start, comma - start));
        start = comma + 1;
      }
      return out;
    };
    if (arg.rfind("--only=", 0) == 0) {
      only = splitList(arg.substr(7));
    } else if (arg.rfind("--sizes=", 0) == 0) {
      sizes.clear();
      for (const std::string& v : splitList(arg.substr(8))) sizes.push_back(std::atoi(v.c_str()));
    } else {
      mode = argv[k];
    }
  }
  std::vector<Variant> vs;
  for (const Variant& v : all) {
    bool keep = only.empty() || &v == &all.front();
    for (const std::string& o : only) keep = keep || v.name.find(o) != std::string::npos;
    if (keep) vs.push_back(v);
  }
  if (std::strcmp(mode, "probe") == 0) return 0;
  const int smallFailures = smallChecks(vs);
  std::printf("small-n checks (%zu kernels x 9 n x 2 eps2): %d failures\n", vs.size(), smallFailures);
  if (std::strcmp(mode, "small") == 0) return smallFailures == 0 ? 0 : 1;
  for (const Variant& v : vs) {
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, v.func));
    int occ = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, v.func, v.threads, 0));
    std::printf("variant %-26s regs %3d local %zu smem %zu threads %d blocks/SM %d\n", v.name.c_str(), fa.numRegs,
                fa.localSizeBytes, fa.sharedSizeBytes, v.threads, occ);
  }
  std::fflush(stdout);

  const float G = 1.0f, eps2 = 0.025f * 0.025f;
  const int nMax = *std::max_element(sizes.begin(), sizes.end());
  std::vector<float4> bodies = makeBodies(nMax, 42);
  float4 *d_p, *d_a;
  CK(cudaMalloc(&d_p, nMax * sizeof(float4)));
  CK(cudaMalloc(&d_a, nMax * sizeof(float4)));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  int timingFailures = 0;
  std::printf("\n%-26s %8s %6s %10s %12s %9s %7s %10s %10s %s\n", "variant", "N", "grid", "ms/launch", "interact/s",
              "GFLOP/s", "of2.8e12", "maxrel|a|", "maxrelsum", "check");
  for (int n : sizes) {
    // Bodies for this N: the first n of one uniform ball, masses scaled to a total of about 1.
    std::vector<float4> b(bodies.begin(), bodies.begin() + n);
    for (auto& q : b) q.w *= static_cast<float>(nMax) / static_cast<float>(n);
    const double massSum = massOf(b);
    CK(cudaMemcpy(d_p, b.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
    std::vector<int> idx;
    for (int k = 0; k < 48; ++k) idx.push_back(static_cast<int>((static_cast<long long>(k) * 2654435761LL) % n));
    idx.push_back(0);
    idx.push_back(n - 1);
    const Ref ref = makeRef(b, idx, eps2, G), ref0 = makeRef(b, idx, 0.0f, G);
    for (const Variant& v : vs) {
      const ForcesArgs a = benchArgs(d_p, d_a, n, G, eps2, massSum);
      const dim3 grid(gridOf(v, a));
      auto go = [&] { launchVariant(v, a); };
      CK(cudaMemset(d_a, 0, n * sizeof(float4)));
      go(); // warm-up
      CK(cudaDeviceSynchronize());
      const float ms1 = msPerLaunch(e0, e1, 1, go); // sizes K for about 400 ms of launches
      int K = static_cast<int>(std::ceil(400.0 / ms1));
      K = std::max(2, std::min(K, 200));
      timingFailures += printTimingRow(v.name.c_str(), n, grid.x, msPerLaunch(e0, e1, K, go), ref, d_a);
      std::fflush(stdout);
    }
    // The no-softening kernel (FMNMX guard) of the stage shape, once per N.
    {
      const ForcesArgs a = benchArgs(d_p, d_a, n, G, 0.0f, massSum);
      launchSpec(a);
      CK(cudaDeviceSynchronize());
      const int K = n >= 524288 ? 2 : 5;
      const float ms = msPerLaunch(e0, e1, K, [&] { launchSpec(a); });
      timingFailures += printTimingRow("stage eps2=0 (guard)", n, forcesSpec(stageArgs(a)).grid.x, ms, ref0, d_a);
    }
    std::fflush(stdout);
  }
  std::printf("timing-row checks: %d failures\n", timingFailures);
  return smallFailures == 0 && timingFailures == 0 ? 0 : 1;
}
