// What `graphsim bench` was asked to do, after parsing and validation (app/cli/bench_cli.cpp).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/run/ranks.h"
#include "app/run/run_options.h"
#include "app/scenes/scene_config.h"
#include "app/video/video_settings.h"

namespace graphsim::app {

// --capture-dir's files: frame_NNNNNN.png and its sidecar frame_NNNNNN.json (app/bench/bench_capture.cpp).
inline constexpr std::string_view kBenchCaptureStem = "frame";

// The paths a bench run compares, in report order. Graph is the product path of the CUDA backend; the CPU backend's
// product path is its own frame loop (reported as "cpu"). Every variant runs the same scene, seed and frame count.
enum class BenchVariant {
  Graph,         // one CUDA graph per frame: semaphore nodes, individual node updates, F frames in flight
  EventSubmit,   // the same graph; frame k's render submitted once the host sees frame k's CUDA end event
  LaunchEarly,   // the same graph; frame k launched before the throttle for k (LaunchOrder::BeforeThrottle)
  Pdl,           // the same graph, its consecutive kernels joined by programmatic-dependent-launch edges
  Stream,        // the same kernels on a stream with cudaWait/SignalExternalSemaphoresAsync
  WholeUpdate,   // a rebuilt graph applied with cudaGraphExecUpdate every frame
  Reinstantiate, // a rebuilt graph instantiated every frame
  HostCopy,      // no interop: the compute-only graph, a device->host copy, a Vulkan staging upload
  Serial,        // the product path with F = 1
};
inline constexpr std::array<BenchVariant, 9> kBenchVariants = {
    BenchVariant::Graph,         BenchVariant::EventSubmit, BenchVariant::LaunchEarly,
    BenchVariant::Pdl,           BenchVariant::Stream,      BenchVariant::WholeUpdate,
    BenchVariant::Reinstantiate, BenchVariant::HostCopy,    BenchVariant::Serial};
std::string_view benchVariantName(BenchVariant variant);
std::optional<BenchVariant> benchVariantFromName(std::string_view name);

// The fluid scene's comparisons (app/scenes/fluid/fluid_bench.cpp), in report order. Its product path (the WHILE
// graph) always runs first and has no --variants name. Cells, Wcsph and WcsphStiff exist with the dfsph solver only;
// WcsphStiff's stiffness is aimed with Wcsph's measured peak compression, so it is chosen with Wcsph.
enum class FluidBenchVariant {
  Stream,        // the same kernels on a stream, the host deciding each substep and solver iteration
  FixedSubsteps, // the body unrolled the product's median substeps (and solver iterations), no conditional node
  MemoryNodes,   // the product with scratch from graph memory alloc/free nodes
  Cells,         // the product with every DFSPH neighbour pass walking the 27 cells (no per-step neighbour lists)
  Wcsph,         // the product's graph with the WCSPH solver, substeps uncapped
  WcsphStiff,    // that, stiffened to the product's peak compression
};
inline constexpr std::array<FluidBenchVariant, 6> kFluidBenchVariants = {
    FluidBenchVariant::Stream, FluidBenchVariant::FixedSubsteps, FluidBenchVariant::MemoryNodes,
    FluidBenchVariant::Cells,  FluidBenchVariant::Wcsph,         FluidBenchVariant::WcsphStiff};
std::string_view fluidBenchVariantName(FluidBenchVariant variant);

struct BenchOptions {
  SceneSettings scene;                     // the preset with --bodies; the preset's seed (fixed)
  BackendKind backend = BackendKind::Cuda; // Cpu or Cuda
  std::uint64_t frames = 1000;             // measured frames (after the warm-up)
  std::uint64_t warmup = 100;              // frames run first and not measured
  std::uint32_t framesInFlight = 3;
  // --variants of every scene but the fluid, in kBenchVariants order; the product path always runs first.
  std::vector<BenchVariant> variants;
  // --variants of the fluid scene, in kFluidBenchVariants order, after its product; nullopt: all (the default), every
  // comparison the scene's solver has.
  std::optional<std::vector<FluidBenchVariant>> fluidVariants;
  bool simOnly = false; // compute-only graph, no rendering, no semaphores
  std::optional<std::filesystem::path> json, csv;
  std::optional<std::filesystem::path> frameLog; // per-frame CSV of every variant (completion times, host, GPU)
  std::uint64_t captureEvery = 0;                // > 0: product path, frames K, 2K, ... to captureDir
  std::optional<std::filesystem::path> captureDir;
  // --video: the product path's measured frames as one mp4 instead of PNGs (every frame read back, captureEvery = 1;
  // the warm-up's are not encoded). Compare its frame times with a run without --video.
  std::optional<VideoSettings> video;
  bool validation = false;
  std::optional<int> gpu;           // cpu: Vulkan device index; cuda: CUDA device index
  std::optional<GpuList> gpus;      // --gpus: several GPUs (nbody, cuda); the scaling table (docs/MULTI-GPU.md)
  std::optional<LaunchedRank> rank; // --rendezvous: one rank of a job of one process per GPU (docs/MULTI-GPU.md)
  std::chrono::milliseconds waitTimeout{5000};
  render::ThrottleWait throttleWait = render::RendererConfig{}.throttleWait; // the renderer's frames-in-flight wait
  bool quiet = false;
  InteropMode interop = InteropMode::Auto; // cuda: interop or host copy for the product path
  std::string commandLine;                 // as typed, for the report
};

} // namespace graphsim::app
