// The frame loops `graphsim bench` times, one per kind of variant, and what they record (bench.cpp runs them).
//
// Every loop runs warmup + frames frames and records, per frame k:
//   - when the host saw k complete: right after the throttle for frame k + F returned (renderDone >= k + 1, a value
//     Vulkan signals), or, for the last F frames, after a wait for exactly that value; --sim-only: after a wait for
//     frame k's CUDA end event, Q = F frames behind the launches so the GPU never runs dry;
//   - the host time of its own work (node updates, launch, submit, total), outside the throttle wait (and outside
//     prepare, which launch-early runs between produce and submit);
//   - its simulation GPU time (CUDA events) and the latest render GPU time (Vulkan timestamps).
// Frame time = interval between consecutive completions of measured frames (the first interval starts at the last
// warm-up frame's completion, or at the loop's start without warm-up).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/bench/bench_options.h"
#include "app/bench/bench_report.h"
#include "app/frame/frame_driver.h"
#include "compute/nbody/nbody_cuda_instruments.h"
#include "render/vulkan_context.h"

namespace graphsim::app {

class CaptureWriter;

using BenchClock = std::chrono::steady_clock;

struct HostSample {
  double nodeUpdatesUs = 0, graphLaunchUs = 0, vkSubmitUs = 0, vkQueueSubmitUs = 0, totalUs = 0, hostWaitUs = 0;
};

// Per-frame records of one variant's run, and their summary.
class FrameLog {
public:
  FrameLog(std::uint64_t warmup, std::uint64_t frames);
  std::uint64_t total() const { return warmup_ + frames_; }
  std::uint64_t warmup() const { return warmup_; }
  // An interrupted run: only the first `run` frames were stepped (and completed); the rest are not reported.
  void truncate(std::uint64_t run);
  void start() { start_ = BenchClock::now(); }
  void completed(std::uint64_t frame) { completion_.at(frame) = BenchClock::now(); }
  void host(std::uint64_t frame, const HostSample& s) { host_.at(frame) = s; }
  void simMs(std::uint64_t frame, double ms) { sim_.at(frame) = ms; }
  void renderMs(std::uint64_t frame, const render::RenderPassTimes& ms) { render_.at(frame) = ms; }
  void captureUs(std::uint64_t frame, double us) { capture_.at(frame) = us; }
  // The calling thread's and the process's CPU clocks, read when measuring starts and when it ends (the completion
  // of the last warm-up frame, or start(), and of the last frame; the loop's thread calls both).
  void cpuMark(bool end);
  // Fills the figures of `result` from the measured frames (k >= warmup). withSubmit/withWait: which optional
  // host fields this loop has.
  void summarise(VariantResult& result, double interactionsPerFrame, bool withSubmit, bool withWait) const;
  // One CSV row per frame (header: kCsvHeader), for --frame-log.
  static constexpr const char* kCsvHeader =
      "variant,frame,measured,completed_ms,interval_ms,sim_gpu_ms,"
      "render_gpu_ms,node_updates_us,graph_launch_us,vk_submit_us,"
      "vk_queue_submit_us,host_total_us,host_wait_us,capture_us\n";
  void appendCsv(std::string& out, const std::string& variant) const;

private:
  std::uint64_t warmup_, frames_;
  BenchClock::time_point start_;
  std::vector<std::optional<BenchClock::time_point>> completion_;
  std::vector<HostSample> host_;
  std::vector<std::optional<double>> sim_;
  std::vector<std::optional<render::RenderPassTimes>> render_;
  std::vector<std::optional<double>> capture_; // loop time spent collecting captures before frame k's launch
  struct CpuClocks {
    double thread = 0, process = 0; // seconds
  };
  std::optional<CpuClocks> cpuStart_, cpuEnd_;
};

// What a loop needs to know about the run.
struct LoopSetup {
  const BenchOptions* options = nullptr;
  int cudaDevice = 0;
  double interactionsPerFrame = 0;
  CaptureWriter* capture = nullptr; // product path only
  std::string variantName;
  render::Camera camera; // the scene's initial camera (Scene::initialCamera)
  std::vector<int> gpus; // --gpus: several GPUs, gpus[0] == cudaDevice; empty: cudaDevice alone
  std::vector<int> devices() const { return gpus.empty() ? std::vector<int>{cudaDevice} : gpus; }
};

struct LoopResult {
  VariantResult result;
  double startupSeconds = 0; // backend construction
  std::string frameCsv;      // per-frame rows when options.frameLog is set
};

class BenchProducer;

// What one variant runs, for any scene; the loop itself is the frame driver's.
struct Variant {
  const LoopSetup& setup;
  render::ParticleRenderer* renderer; // nullptr: --sim-only
  BenchProducer& producer;
  std::uint32_t framesInFlight;
  SubmitOrder order = SubmitOrder::WithProduce;
  LaunchOrder launch = LaunchOrder::AfterThrottle; // BeforeThrottle: launch-early (a gpuOrdered() producer)
  bool withSubmit = true, withWait = false;        // which optional host figures the report gets
  bool capture = false;                            // the product path: --capture-every
};

// Runs warmup + frames frames of one variant on the frame driver and summarises them (a scene's bench calls it
// with its own producers). startupSeconds: the producer's construction.
LoopResult runVariant(const Variant& variant, double startupSeconds);
// The renderer of a variant: the bench's size, the scene's count, F frames in flight.
render::RendererConfig rendererConfig(const BenchOptions& options, render::BodyBufferMode mode, std::uint32_t f);

// The n-body scene's loops (app/scenes/nbody/nbody_bench.cpp runs them).
// CUDA with interop: the product path (Graph) and the launch-mode variants; F frames in flight. submitAfterSim
// (event-submit, F >= 2): frame k's render is submitted only once the host has seen frame k's CUDA end event, one
// iteration later, so the Vulkan queue never waits on a simDone value CUDA has not signalled yet. launch =
// BeforeThrottle (launch-early): frame k is launched right after frame k - 1's submit, before the throttle for k.
LoopResult runInteropLoop(render::VulkanContext& context, const LoopSetup& setup, LaunchMode mode,
                          std::uint32_t framesInFlight, bool submitAfterSim = false,
                          LaunchOrder launch = LaunchOrder::AfterThrottle);
// CUDA without interop: compute-only graph, device->host copy, staged Vulkan upload.
LoopResult runHostCopyLoop(render::VulkanContext& context, const LoopSetup& setup);
// The CPU backend's frame loop (its product path), F frames in flight.
LoopResult runCpuLoop(render::VulkanContext& context, const LoopSetup& setup, std::uint32_t framesInFlight);
// --sim-only.
LoopResult runCudaSimOnlyLoop(const LoopSetup& setup);
LoopResult runCpuSimOnlyLoop(const LoopSetup& setup);

} // namespace graphsim::app
