// The n-body scene's bench: the product graph (or the CPU backend's loop) and the comparisons of
// docs/PERFORMANCE.md (event-submit, launch-early, stream, whole-update, reinstantiate, host-copy, serial), in one run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "app/bench/bench_options.h"
#include "app/bench/bench_producers.h"
#include "app/bench/bench_report.h"
#include "app/bench/bench_support.h"
#include "app/run/open_devices.h"
#include "app/run/ranks.h"
#include "app/run/signals.h"
#include "app/scenes/nbody/nbody_scene.h"
#include "compute/cuda_device.h"
#include "compute/nbody/nbody_cuda_backend.h"
#include "compute/nbody/nbody_tree.h"
#include "render/driver_info.h"
#include "render/vulkan_context.h"

namespace graphsim::app {
namespace {

std::string describe(BenchVariant v, std::uint32_t f) {
  switch (v) {
  case BenchVariant::Graph:
    return "product: one CUDA graph per frame (semaphore wait/signal nodes, individual node updates), F = " +
           std::to_string(f);
  case BenchVariant::EventSubmit:
    return "product graph; render k submitted once the host sees CUDA frame k complete (no Vulkan wait on an "
           "unsignalled simDone)";
  case BenchVariant::LaunchEarly:
    return "product graph; frame k launched right after frame k-1's submit, before the frames-in-flight wait (the "
           "graph's wait node orders it on the GPU), then submitted";
  case BenchVariant::Pdl:
    return "product graph with programmatic dependent launch: each kernel may start as the previous one drains";
  case BenchVariant::Stream: return "same kernels launched on a stream, cudaWait/SignalExternalSemaphoresAsync";
  case BenchVariant::WholeUpdate: return "graph rebuilt every frame and applied with cudaGraphExecUpdate";
  case BenchVariant::Reinstantiate: return "graph rebuilt and instantiated every frame";
  case BenchVariant::HostCopy:
    return "no interop: compute-only graph, device->host copy, Vulkan staging upload (vkCmdCopyBuffer)";
  case BenchVariant::Serial: return "product path with F = 1 (no pipelining)";
  }
  return {};
}

LaunchMode launchModeOf(BenchVariant v) {
  switch (v) {
  case BenchVariant::Pdl: return LaunchMode::Programmatic;
  case BenchVariant::Stream: return LaunchMode::Stream;
  case BenchVariant::WholeUpdate: return LaunchMode::WholeUpdate;
  case BenchVariant::Reinstantiate: return LaunchMode::Reinstantiate;
  default: return LaunchMode::Graph;
  }
}

// Every variant but the product path (`product`), skipped for one reason (--sim-only).
void skipTheOthers(BenchReport& report, const BenchOptions& options, std::optional<BenchVariant> product,
                   const std::string& why) {
  for (BenchVariant v : kBenchVariants) {
    if (v == product) continue;
    report.variants.push_back(
        skippedVariant(std::string(benchVariantName(v)), describe(v, options.framesInFlight), why));
  }
}

// Why a comparison variant does not run here, if it does not. cuda: the CUDA backend's data path (nullptr: cpu).
std::optional<std::string> whyNotRun(BenchVariant v, const BenchOptions& options, const DataPath* cuda) {
  if (interruptRequested()) return interruptedReason();
  if (cuda == nullptr && v == BenchVariant::LaunchEarly)
    return "needs --backend cuda (the CPU backend writes the frame's slot on the host, after the frames-in-flight "
           "wait)";
  if (cuda == nullptr && v != BenchVariant::Serial)
    return "needs --backend cuda (the CPU backend has no CUDA graph, stream or interop)";
  if (cuda != nullptr && !cuda->interop) {
    if (v == BenchVariant::HostCopy) return "the product row above is already the host-copy path";
    if (v == BenchVariant::LaunchEarly)
      return "needs Vulkan-CUDA interop (the host-copy path waits for its frame and writes the slot on the host, so "
             "it cannot launch before the frames-in-flight wait), unavailable: " +
             cuda->fallbackReason;
    return "needs Vulkan-CUDA interop, unavailable: " + cuda->fallbackReason;
  }
  if (cuda != nullptr && usesTree(options.scene.sim) && v == BenchVariant::Stream)
    return "forces: tree: its build and moments are WHILE nodes, which a stream of kernel launches has no twin of";
  if (cuda != nullptr && usesTree(options.scene.sim) && v == BenchVariant::WholeUpdate)
    return "forces: tree: its loops' kernels hold their graph's condition handles, which a whole-graph update from "
           "another graph would leave stale";
  if (v == BenchVariant::Serial && options.framesInFlight == 1)
    return "--frames-in-flight is 1: the product path is serial";
  if (v == BenchVariant::EventSubmit && options.framesInFlight == 1)
    return "needs --frames-in-flight >= 2 (the render is submitted one frame after its simulation is launched)";
  return std::nullopt;
}

// --gpus (docs/MULTI-GPU.md): the compute-only frame on the first GPU alone and on all of them, each timed over the
// bench's warm-up and frames with a wait per frame (wall time: every GPU's graph included), then three profiled
// frames for the collectives' share. The scaling table goes to the notes and the JSON's "multi_gpu".
struct ScalingRow {
  std::vector<int> gpus;
  double frameMs = 0;                     // median wall time of step(): launch to every GPU done
  std::vector<double> gpuMs;              // per GPU, median of its graph's events
  std::vector<double> gatherMs, reduceMs; // per GPU, one profiled frame: all-gathers and force reductions
};

NBodyConfig scalingConfig(const BenchOptions& options) {
  NBodyConfig config = options.scene.sim;
  config.diagnosticsEvery = 0;
  return config;
}

// `sim` on `gpus` (a rank of several processes: its own GPU alone).
ScalingRow measureScaling(const BenchOptions& options, NBodyCudaBackend& sim, const std::vector<int>& gpus) {
  ScalingRow row;
  row.gpus = gpus;
  std::vector<double> wall;
  std::vector<std::vector<double>> perGpu(gpus.size());
  std::uint64_t k = 0;
  for (std::uint64_t i = 0; i < options.warmup + options.frames && !interruptRequested(); ++i, ++k) {
    const auto t0 = BenchClock::now();
    sim.step();
    if (i < options.warmup) continue;
    wall.push_back(std::chrono::duration<double, std::milli>(BenchClock::now() - t0).count());
    const std::vector<double> ms = sim.gpuMs(k);
    for (std::size_t g = 0; g < ms.size(); ++g) perGpu[g].push_back(ms[g]);
  }
  row.frameMs = median(wall);
  for (auto& ms : perGpu) row.gpuMs.push_back(median(ms));
  sim.setProfiling(true);
  for (int i = 0; i < 3 && !interruptRequested(); ++i) sim.step();
  row.gatherMs.assign(gpus.size(), 0.0);
  row.reduceMs.assign(gpus.size(), 0.0);
  for (const NodeInfo& n : sim.nodes()) {
    if (n.type != "nccl" || n.ms < 0) continue;
    std::size_t g = 0;
    for (std::size_t r = 1; r < gpus.size(); ++r) {
      if (n.name.find("@gpu" + std::to_string(gpus[r])) != std::string::npos) g = r;
    }
    (n.name.rfind("reduce", 0) == 0 ? row.reduceMs : row.gatherMs)[g] += n.ms;
  }
  return row;
}

ScalingRow measureScaling(const BenchOptions& options, const std::vector<int>& gpus) {
  NBodyCudaBackend sim(scalingConfig(options), gpus, nullptr, options.waitTimeout);
  return measureScaling(options, sim, gpus);
}

nlohmann::ordered_json perGpuJson(const ScalingRow& r) {
  nlohmann::ordered_json perGpu = nlohmann::ordered_json::array();
  for (std::size_t g = 0; g < r.gpus.size(); ++g) {
    perGpu.push_back({{"gpu", r.gpus[g]},
                      {"sim_ms", r.gpuMs[g]},
                      {"all_gather_ms", r.gatherMs[g]},
                      {"force_reduction_ms", r.reduceMs[g]}});
  }
  return perGpu;
}

void runScaling(const BenchOptions& options, const std::vector<int>& gpus, BenchReport& report) {
  const ScalingRow one = measureScaling(options, {gpus.front()});
  const ScalingRow all = measureScaling(options, gpus);
  const double speedup = all.frameMs > 0 ? one.frameMs / all.frameMs : 0.0;
  const double efficiency = speedup / static_cast<double>(gpus.size());
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  char line[256];
  for (const ScalingRow* r : {&one, &all}) {
    for (std::size_t g = 0; g < r->gpus.size(); ++g) {
      std::snprintf(line, sizeof line,
                    "%zu GPU(s): GPU %d graph %.3f ms (all-gathers %.3f ms, force reductions %.3f ms, one profiled "
                    "frame)",
                    r->gpus.size(), r->gpus[g], r->gpuMs[g], r->gatherMs[g], r->reduceMs[g]);
      report.notes.emplace_back(line);
    }
    rows.push_back({{"gpus", r->gpus.size()}, {"frame_ms", r->frameMs}, {"per_gpu", perGpuJson(*r)}});
  }
  std::snprintf(line, sizeof line,
                "scaling, compute-only, %lld bodies: 1 GPU %.3f ms/frame, %zu GPUs %.3f ms/frame: %.2fx, "
                "efficiency %.1f %%",
                static_cast<long long>(options.scene.sim.bodies), one.frameMs, gpus.size(), all.frameMs, speedup,
                efficiency * 100.0);
  report.notes.emplace_back(line);
  report.multiGpu = {{"gpus", gpus},
                     {"bodies", options.scene.sim.bodies},
                     {"rows", std::move(rows)},
                     {"speedup", speedup},
                     {"efficiency", efficiency},
                     {"positions_bytes_per_substep", options.scene.sim.bodies * 16}};
}

// --rendezvous (docs/MULTI-GPU.md, "One process per GPU"): this process is one rank of a job a launcher started; it
// runs the compute-only graph of its share on its local GPU, the collectives keeping every rank in step. Rank 0
// measures and reports; the others follow it (NBodyCudaBackend::follow), so that the figure includes the control
// broadcast a run of ranks has.
void runAsRank(const BenchOptions& options, BenchReport& report) {
  // The job first (rank 0 needs NCCL for the id; the others only the file), then this rank's GPU.
  const ProcessRank rank = joinLaunchedJob(*options.rank, options.waitTimeout);
  const CudaDeviceList cuda = listCudaDevices();
  if (cuda.devices.empty()) throw EnvironmentError("no CUDA device: " + cuda.whyNone);
  const RankPlace& place = options.rank->place;
  BenchOptions mine = options;
  mine.gpu = localDeviceFor(place, static_cast<int>(cuda.devices.size()));
  const CudaDeviceInfo& info = cudaDeviceFor(mine, cuda);
  describeCuda(report, info, cuda);
  // As the --gpus scaling table measures a row: a wait per frame (every rank's work is in it: the collectives wait
  // for the slowest), then three profiled frames for the collectives' share.
  const auto built = BenchClock::now();
  NBodyCudaBackend sim(scalingConfig(options), info.index, rank, nullptr, options.waitTimeout);
  report.startupSeconds = std::chrono::duration<double>(BenchClock::now() - built).count(); // the NCCL join in it
  if (place.rank != 0) {
    const NBodyCudaBackend::FollowSummary s = sim.follow();
    if (s.rank0Failed) throw Error("rank 0 ended the job with an error (its own message says which)");
    if (!options.quiet) {
      std::fprintf(stderr, "graphsim bench: rank %d of %d on GPU %d followed rank 0 for %llu frames\n", place.rank,
                   place.world, info.index, static_cast<unsigned long long>(s.frames));
    }
    return;
  }
  // Every rank has joined, so every rank has read the id: the file would only mislead a later job.
  removeRendezvous(options.rank->rendezvous);
  const ScalingRow row = measureScaling(options, sim, {info.index});
  skipTheOthers(report, options, std::nullopt,
                "one process per GPU measures the compute-only frame (notes and multi_gpu)");
  char line[320];
  std::snprintf(line, sizeof line,
                "one process per GPU, %lld bodies: %d ranks (%s), rank %d on GPU %d: %.3f ms/frame; graph %.3f ms "
                "(all-gathers %.3f ms, force reductions %.3f ms, one profiled frame)",
                static_cast<long long>(options.scene.sim.bodies), place.world, place.source.c_str(), place.rank,
                info.index, row.frameMs, row.gpuMs[0], row.gatherMs[0], row.reduceMs[0]);
  report.notes.emplace_back(line);
  report.multiGpu = {{"ranks", place.world},     {"rank", place.rank},
                     {"launcher", place.source}, {"bodies", options.scene.sim.bodies},
                     {"frame_ms", row.frameMs},  {"per_gpu", perGpuJson(row)}};
}

void runCuda(const BenchOptions& options, BenchReport& report) {
  if (options.rank) {
    runAsRank(options, report);
    return;
  }
  const CudaDeviceList cuda = listCudaDevices();
  std::vector<int> gpus;
  if (options.gpus) gpus = resolveGpus(*options.gpus, cuda);
  BenchOptions single = options;
  if (!gpus.empty()) single.gpu = gpus.front();
  const CudaDeviceInfo& info = cudaDeviceFor(single, cuda);
  describeCuda(report, info, cuda);
  if (gpus.size() > 1) {
    runScaling(options, gpus, report);
    if (interruptRequested()) return;
  }

  LoopSetup setup{&options, info.index, report.interactionsPerFrame, nullptr, "graph", options.scene.render.camera};
  if (gpus.size() > 1) setup.gpus = gpus;
  if (options.simOnly) {
    addRun(report, runCudaSimOnlyLoop(setup), "graph",
           "compute-only graph (no semaphore nodes, no rendering), launched back to back", 0);
    skipTheOthers(report, options, BenchVariant::Graph, "--sim-only measures the compute-only graph alone");
    return;
  }

  std::optional<render::VulkanContext> opened;
  const DataPath path = openCudaBenchDevice(options, info, cuda, report, opened);
  render::VulkanContext& context = *opened;
  const render::DriverInfo driver = render::describeDriver(context);
  if (!driver.driverInfo.empty()) report.driver = driver.driverInfo;

  // Without interop the product graph cannot hand frames to Vulkan: its host-copy twin stands in (and says so).
  addRun(report,
         runProduct(options, report, setup,
                    [&] {
                      return path.interop ? runInteropLoop(context, setup, LaunchMode::Graph, options.framesInFlight)
                                          : runHostCopyLoop(context, setup);
                    }),
         "graph",
         path.interop ? describe(BenchVariant::Graph, options.framesInFlight)
                      : "product graph with frames copied through the host (no interop: " + path.fallbackReason + ")",
         context.validationMessages());

  for (BenchVariant v : options.variants) {
    if (v == BenchVariant::Graph) continue; // the product path, already run
    const std::string name(benchVariantName(v));
    if (setup.gpus.size() > 1) {
      report.variants.push_back(skippedVariant(name, describe(v, options.framesInFlight),
                                               "the comparison variants run on one GPU; --gpus measures the "
                                               "product path and the scaling table"));
      continue;
    }
    if (const std::optional<std::string> why = whyNotRun(v, options, &path)) {
      report.variants.push_back(skippedVariant(name, describe(v, options.framesInFlight), *why));
      continue;
    }
    setup.variantName = name;
    const std::uint64_t messagesBefore = context.validationMessages();
    const std::uint32_t f = v == BenchVariant::Serial ? 1 : options.framesInFlight;
    const LaunchOrder launch =
        v == BenchVariant::LaunchEarly ? LaunchOrder::BeforeThrottle : LaunchOrder::AfterThrottle;
    LoopResult r = v == BenchVariant::HostCopy
                       ? runHostCopyLoop(context, setup)
                       : runInteropLoop(context, setup, launchModeOf(v), f, v == BenchVariant::EventSubmit, launch);
    addRun(report, std::move(r), name, describe(v, options.framesInFlight),
           context.validationMessages() - messagesBefore);
  }
}

void runCpu(const BenchOptions& options, BenchReport& report) {
  report.simTimer = "cpu-wall";
  LoopSetup setup{&options, 0, report.interactionsPerFrame, nullptr, "cpu", options.scene.render.camera};
  std::optional<render::VulkanContext> opened;
  openCpuBenchDevice(options, report, opened);
  if (options.simOnly) {
    addRun(report, runCpuSimOnlyLoop(setup), "cpu", "the CPU backend's step, back to back (no rendering)", 0);
    skipTheOthers(report, options, std::nullopt, "--sim-only measures the simulation alone");
    return;
  }
  render::VulkanContext& context = *opened;
  addRun(report, runProduct(options, report, setup, [&] { return runCpuLoop(context, setup, options.framesInFlight); }),
         "cpu",
         "product path of the CPU backend: the stage list on the host, written to a mapped Vulkan buffer, F = " +
             std::to_string(options.framesInFlight),
         context.validationMessages());
  for (BenchVariant v : options.variants) {
    const std::string name(benchVariantName(v));
    if (const std::optional<std::string> why = whyNotRun(v, options, nullptr)) {
      report.variants.push_back(skippedVariant(name, describe(v, options.framesInFlight), *why));
      continue;
    }
    setup.variantName = name;
    const std::uint64_t messagesBefore = context.validationMessages();
    addRun(report, runCpuLoop(context, setup, 1), name, "CPU backend's frame loop with F = 1 (no pipelining)",
           context.validationMessages() - messagesBefore);
  }
}

// forces: tree (docs/FORCES.md "The tree"): a compute-only backend of the same settings after the runs, for what the
// frame loops do not show: the tree's depth, nodes and memory, each pass's GPU time (the graph's profiling marks,
// averaged over a few frames), and the force error against direct summation at theta 0.3, 0.5, 0.7 over bodies
// sampled evenly through the arrays (the exact sums in double on the CPU).
void addTreeReport(const BenchOptions& options, BenchReport& report) {
  if (report.variants.empty() || interruptRequested()) return;
  const CudaDeviceList cuda = listCudaDevices();
  NBodyConfig config = options.scene.sim;
  config.diagnosticsEvery = 0;
  NBodyCudaBackend backend(config, cudaDeviceFor(options, cuda).index, nullptr, options.waitTimeout);
  nlohmann::ordered_json tree;
  (void)backend.setProfiling(true);
  constexpr int kProfiled = 4;
  std::vector<std::pair<std::string, double>> passes;
  for (int k = 0; k <= kProfiled; ++k) {
    backend.step();
    if (k == 0) continue; // frame k's marks are read at frame k + 1's launch
    for (const NodeInfo& n : backend.nodes()) {
      if (n.ms < 0 || (n.name.rfind("tree_", 0) != 0 && n.name != "forces")) continue;
      const auto it = std::find_if(passes.begin(), passes.end(), [&](const auto& p) { return p.first == n.name; });
      if (it == passes.end()) passes.emplace_back(n.name, n.ms / kProfiled);
      else it->second += n.ms / kProfiled;
    }
  }
  (void)backend.setProfiling(false);
  nlohmann::ordered_json passJson;
  for (const auto& [name, ms] : passes) passJson[name] = ms;
  if (const std::optional<NBodyCudaBackend::TreeStats> stats = backend.treeStats()) {
    tree["depth"] = stats->depth;
    tree["nodes"] = stats->nodes;
    tree["overflow"] = stats->overflow;
    tree["walk_overflow"] = stats->walkOverflow;
    tree["gpu_bytes_per_body"] =
        static_cast<double>(stats->bytes) / static_cast<double>(std::max<std::int64_t>(config.bodies, 1));
  }
  tree["pass_ms"] = passJson;
  const std::int64_t samples = config.bodies > 4'000'000 ? 512 : 2048;
  nlohmann::ordered_json errors;
  // The configured tolerance at three angles, and theta 0.5 without the relative criterion beside them (unless the
  // configured tolerance is already 0).
  const float tolerance = config.params.treeTolerance;
  const std::pair<float, float> runs[] = {{0.3f, tolerance}, {0.5f, tolerance}, {0.7f, tolerance}, {0.5f, 0.0f}};
  for (std::size_t r = 0; r < (tolerance > 0.0f ? 4u : 3u); ++r) {
    if (interruptRequested()) break;
    const auto [theta, tol] = runs[r];
    NBodyParams p = config.params;
    p.theta = theta;
    p.treeTolerance = tol;
    backend.setParams(p);
    BodyState before;
    std::vector<float> colour;
    backend.download(before, colour);
    backend.step(); // forces first: its accelerations are those of `before`
    const tree::ForceError e = tree::sampledForceError(before.posMass, backend.downloadAccelerations(), p, samples);
    char key[40];
    std::snprintf(key, sizeof key, tol == tolerance ? "%.1f" : "%.1f, tolerance %g", theta, tol);
    errors[key] = {{"median", e.median}, {"p99", e.p99}, {"max", e.max}};
    char line[200];
    std::snprintf(line, sizeof line,
                  "tree, theta %.1f, tolerance %g: relative force error against direct summation median %.2e, p99 "
                  "%.2e, max %.2e (%lld bodies sampled)",
                  theta, tol, e.median, e.p99, e.max, static_cast<long long>(e.bodies));
    report.notes.emplace_back(line);
  }
  tree["tolerance"] = tolerance;
  tree["sampled_bodies"] = samples;
  tree["force_error"] = errors;
  report.variants.front().sceneObjects.emplace_back("tree",
                                                    std::make_shared<const nlohmann::ordered_json>(std::move(tree)));
}

} // namespace

void runNBodyBench(const BenchOptions& options, BenchReport& report) {
  const NBodyConfig& sim = options.scene.sim;
  report.initial = sim.initial;
  report.substeps = sim.substeps;
  report.seed = sim.seed;
  // N^2 pairs per forces launch (the nbody sample's count: the self pair included), one launch per substep.
  const bool forces = sim.enabled[static_cast<int>(NBodyStage::Forces)];
  report.interactionsPerFrame =
      forces ? static_cast<double>(sim.bodies) * static_cast<double>(sim.bodies) * sim.substeps : 0.0;
  if (options.backend == BackendKind::Cuda) {
    runCuda(options, report);
    if (usesTree(sim) && !options.rank && !options.gpus) addTreeReport(options, report);
  } else {
    runCpu(options, report);
  }
}

} // namespace graphsim::app
