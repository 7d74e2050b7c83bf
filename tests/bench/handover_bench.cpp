// handover_bench: the CUDA -> Vulkan -> CUDA hand-over through the two shared timeline semaphores of the frame
// protocol (docs/FRAME.md), with (next to) no work on either side, so that a frame costs the hand-over itself
// (issue 14; docs/PERFORMANCE.md, "The hand-over benchmark"). Built with the tests, not a test itself (ctest runs it
// with a few frames: skipped without a CUDA device).
//
// Set-up as the app's: CUDA device --gpu I, the Vulkan device with the same UUID (render::VulkanContext, headless,
// interop extensions), two exportable render::TimelineSemaphores (the renderer's export path, TimelineSemaphore::
// exportFd) imported with cuda::importTimelineSemaphore, fresh for every run. Frame k with F frames in flight
// (compute/protocol.h, F = 1..4):
//   host:   waits renderDone >= k - F + 1 (k >= F; bounded vkWaitSemaphores): frame k - F is complete
//   CUDA:   a graph instantiated once per run, [wait renderDone >= max(0, k-F+1)] -> empty kernel <<<1, 1>>> ->
//           [signal simDone = k + 1], both values set on the exec before each cudaGraphLaunch (as
//           NBodyFrameGraph::launch)
//   Vulkan: one vkQueueSubmit waiting simDone >= k + 1 (at ALL_COMMANDS) and signalling renderDone = k + 1; mode
//           `empty`: no command buffer at all; mode `fill`: a buffer barrier and a 4-byte vkCmdFillBuffer, so that the
//           GPU really runs Vulkan work (one pre-recorded command buffer per slot k % F)
// Baselines in the same process, same loop and throttle, no hand-over:
//   cuda-alone:   the same graph without the semaphore nodes, launched back to back, an event recorded after each
//                 launch; before launching frame k the host polls (bounded) frame k - F's event
//   vulkan-alone: the same submits (per mode) without the simDone wait, signalling a timeline of their own
// hand-over per frame = interleaved - cuda-alone - vulkan-alone (same F and mode). PERFORMANCE.md's frame model
// (sim + render + 2 x switch / F) makes one context switch = hand-over x F / 2 ("per switch"). At F = 1 every frame
// is one round trip CUDA -> Vulkan -> host throttle -> CUDA: the interleaved mean at F = 1 ("round trip").
//
// Timing as graphsim bench's (docs/PERFORMANCE.md, Method): host steady_clock; frame k completes when the wait before
// frame k + F returns (the last F frames are waited for one by one). Over the --frames frames after --warmup: mean =
// time from the last warm-up frame's completion to the last frame's, divided by the frames; p50/p99 are nearest-rank
// percentiles of the intervals between consecutive completions. Runs: for F = 1..4, cuda-alone, then for each mode
// vulkan-alone and interleaved.
//
//   handover_bench [--frames M] [--warmup W] [--gpu I] [--json PATH] [--wait-timeout-ms MS] [--validation]
//                  [--vulkan-only] [--help]
//
// Exit status: 0 measured, or "skipped: <reason>" on stdout (no CUDA device, no usable Vulkan device: CI); 1 a CUDA
// or Vulkan error, a wait that timed out (the message names the late side) or, with --validation, a validation
// message; 2 a bad flag.
//
// JSON (--json PATH), times in milliseconds:
//   { "schema": "graphsim.handover_bench/1",
//     "skipped": "<reason>",                      only when skipped, and then nothing else but "schema"
//     "frames": M, "warmup": W, "wait_timeout_ms": MS, "validation": bool, "vulkan_only": bool,
//     "device": { "cuda_index": I, "cuda_name": str, "cuda_uuid": str, "cuda_driver_version": int,
//                 "cuda_runtime_version": int,   (the cuda_* keys are absent with --vulkan-only)
//                 "vulkan_name": str, "vulkan_uuid": str },
//     "runs": [ { "kind": "cuda-alone" | "vulkan-alone" | "interleaved", "mode": "empty" | "fill" | null (cuda-alone),
//                 "frames_in_flight": F, "mean_ms", "p50_ms", "p99_ms", "min_ms", "max_ms", "measured_seconds" } ],
//     "handover": [ { "mode", "frames_in_flight", "interleaved_ms", "cuda_alone_ms", "vulkan_alone_ms",
//                     "handover_ms" (per frame), "per_switch_ms" (handover_ms x F / 2) } ],  ([] with --vulkan-only)
//     "round_trip_ms": { "empty": x, "fill": y } }   interleaved mean at F = 1 (absent with --vulkan-only)
//
// --vulkan-only runs only the vulkan-alone runs, on the Vulkan device --gpu I picks (index among the Vulkan devices)
// or the default one, without CUDA: it checks the Vulkan half where there is no CUDA device (lavapipe, with
// --validation). --validation turns on the Khronos validation layer with synchronisation validation (timings are
// then meaningless).
#include <cuda_runtime_api.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "compute/cuda/cuda_check.h"
#include "compute/cuda/cuda_handles.h"
#include "compute/cuda/external_interop.h"
#include "compute/cuda/poll.h"
#include "compute/cuda_device.h"
#include "compute/errors.h"
#include "compute/protocol.h"
#include "render/timeline_semaphore.h"
#include "render/vk_barrier.h"
#include "render/vk_check.h"
#include "render/vk_handle.h"
#include "render/vk_memory.h"
#include "render/vulkan_context.h"
#include "tests/bench/handover_kernel.h"

namespace graphsim::bench {
namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;

constexpr const char* kSchema = "graphsim.handover_bench/1";

constexpr const char* kUsage =
    "usage: handover_bench [--frames M] [--warmup W] [--gpu I] [--json PATH] [--wait-timeout-ms MS] [--validation]\n"
    "                      [--vulkan-only] [--help]\n";

constexpr const char* kHelp =
    "Measures the CUDA -> Vulkan -> CUDA hand-over through the shared timeline semaphores (simDone, renderDone) with\n"
    "empty work on both sides, for F = 1..4 frames in flight and two Vulkan modes (empty: no command buffer; fill: a\n"
    "4-byte vkCmdFillBuffer), next to the CUDA-alone and Vulkan-alone baselines: hand-over = interleaved - both.\n"
    "\n"
    "  --frames M           measured frames per run (default 2000)\n"
    "  --warmup W           frames before them, not measured (default 200)\n"
    "  --gpu I              CUDA device I and the Vulkan device with its UUID (default 0); with --vulkan-only the\n"
    "                       Vulkan device I (default: the app's default choice)\n"
    "  --json PATH          also write the results as JSON (schema in tests/bench/handover_bench.cpp)\n"
    "  --wait-timeout-ms MS bound of every host wait (default 5000); a timeout ends the run naming the late side\n"
    "  --validation         Khronos validation with synchronisation validation (timings meaningless)\n"
    "  --vulkan-only        only the Vulkan-alone runs, no CUDA (checks the Vulkan half anywhere)\n"
    "  --help               this text\n"
    "\n"
    "Without a CUDA device or a usable Vulkan device it prints \"skipped: <reason>\" and exits 0.\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::uint64_t frames = 2000;
  std::uint64_t warmup = 200;
  std::optional<int> gpu;
  std::string json;
  std::chrono::milliseconds waitTimeout{5000};
  bool validation = false;
  bool vulkanOnly = false;
  bool help = false;
};

template <typename T>
T parseInteger(std::string_view flag, std::string_view text, T min, T max) {
  T value{};
  const char* end = text.data() + text.size();
  const auto [last, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc{} || last != end || value < min || value > max) {
    throw UsageError(std::string(flag) + " wants an integer in " + std::to_string(min) + ".." + std::to_string(max) +
                     ", got '" + std::string(text) + "'");
  }
  return value;
}

Options parseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string_view flag = argv[i];
    std::optional<std::string_view> attached; // --flag=value
    if (const std::size_t eq = flag.find('='); flag.starts_with("--") && eq != std::string_view::npos) {
      attached = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    }
    const auto value = [&]() -> std::string_view {
      if (attached) return *attached;
      if (i + 1 >= argc || std::string_view(argv[i + 1]).starts_with("--")) {
        throw UsageError(std::string(flag) + " needs a value");
      }
      return argv[++i];
    };
    const auto noValue = [&] {
      if (attached) throw UsageError(std::string(flag) + " takes no value");
    };
    if (flag == "--help" || flag == "-h") {
      noValue();
      o.help = true;
    } else if (flag == "--frames") {
      o.frames = parseInteger<std::uint64_t>(flag, value(), 1, 100'000'000);
    } else if (flag == "--warmup") {
      o.warmup = parseInteger<std::uint64_t>(flag, value(), 0, 100'000'000);
    } else if (flag == "--gpu") {
      o.gpu = parseInteger<int>(flag, value(), 0, 1023);
    } else if (flag == "--json") {
      o.json = value();
      if (o.json.empty()) throw UsageError("--json needs a path");
    } else if (flag == "--wait-timeout-ms") {
      o.waitTimeout = std::chrono::milliseconds(parseInteger<std::int64_t>(flag, value(), 1, 3'600'000));
    } else if (flag == "--validation") {
      noValue();
      o.validation = true;
    } else if (flag == "--vulkan-only") {
      noValue();
      o.vulkanOnly = true;
    } else {
      throw UsageError("unknown argument '" + std::string(argv[i]) + "'");
    }
  }
  return o;
}

// After a failure while the GPU may still use the run's semaphores, graph or command buffers (a wait timed out, a
// call failed mid-run): report and leave without destroying them, as the renderer leaks rather than destroy under the
// GPU's feet.
[[noreturn]] void abandon(const std::string& message) {
  std::fflush(stdout);
  std::fprintf(stderr, "handover_bench: %s\nhandover_bench: exiting without destroying what the GPU may still use\n",
               message.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

std::string ms(std::chrono::milliseconds t) { return std::to_string(t.count()) + " ms"; }

// ---- what is measured ----

enum class Mode { Empty, Fill };
constexpr std::array<Mode, 2> kModes = {Mode::Empty, Mode::Fill};
const char* modeName(Mode m) { return m == Mode::Empty ? "empty" : "fill"; }

enum class Kind { CudaAlone, VulkanAlone, Interleaved };
const char* kindName(Kind k) {
  switch (k) {
  case Kind::CudaAlone: return "cuda-alone";
  case Kind::VulkanAlone: return "vulkan-alone";
  case Kind::Interleaved: return "interleaved";
  }
  return "?";
}

struct Stats {
  double meanMs = 0, p50Ms = 0, p99Ms = 0, minMs = 0, maxMs = 0, measuredSeconds = 0;
};

struct Result {
  Kind kind;
  std::optional<Mode> mode; // none for cuda-alone
  std::uint32_t framesInFlight;
  Stats stats;
};

std::string describe(Kind kind, std::optional<Mode> mode, std::uint32_t framesInFlight) {
  return std::string(kindName(kind)) + (mode ? std::string(", ") + modeName(*mode) : "") +
         ", F = " + std::to_string(framesInFlight);
}

// Nearest-rank percentile p (0..100] of sorted values.
double percentile(const std::vector<double>& sorted, double p) {
  const auto n = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(p / 100.0 * n)));
  return sorted[std::min(rank, sorted.size()) - 1];
}

// When each frame completed, as the host saw it.
class Completions {
public:
  Completions(std::uint64_t warmup, std::uint64_t frames) : warmup_(warmup), done_(warmup + frames) {}
  void start() { start_ = Clock::now(); }
  void complete(std::uint64_t frame) { done_[frame] = Clock::now(); }

  Stats stats() const {
    const auto toMs = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
    const Clock::time_point origin = warmup_ > 0 ? done_[warmup_ - 1] : start_;
    std::vector<double> intervals;
    intervals.reserve(done_.size() - warmup_);
    for (std::size_t k = warmup_; k < done_.size(); ++k) {
      intervals.push_back(toMs(done_[k] - (k == warmup_ ? origin : done_[k - 1])));
    }
    Stats s;
    const double measuredMs = toMs(done_.back() - origin);
    s.measuredSeconds = measuredMs / 1000.0;
    s.meanMs = measuredMs / static_cast<double>(intervals.size());
    std::sort(intervals.begin(), intervals.end());
    s.p50Ms = percentile(intervals, 50);
    s.p99Ms = percentile(intervals, 99);
    s.minMs = intervals.front();
    s.maxMs = intervals.back();
    return s;
  }

private:
  std::uint64_t warmup_;
  std::vector<Clock::time_point> done_;
  Clock::time_point start_;
};

// The loop every run shares, frames 0 .. W+M-1 with F in flight: before producing frame k >= F, awaitFrame(k - F)
// (frame k - F is then complete); produce(k); at the end the last F frames one by one, then finish(). Anything that
// fails inside abandons the process (the GPU may still use the run's objects).
template <typename Await, typename Produce, typename Finish>
Stats measure(const Options& o, std::uint32_t framesInFlight, const std::string& what, const Await& awaitFrame,
              const Produce& produce, const Finish& finish) {
  const std::uint64_t total = o.warmup + o.frames;
  Completions completions(o.warmup, o.frames);
  try {
    completions.start();
    for (std::uint64_t k = 0; k < total; ++k) {
      if (k >= framesInFlight) {
        awaitFrame(k - framesInFlight);
        completions.complete(k - framesInFlight);
      }
      produce(k);
    }
    for (std::uint64_t k = total > framesInFlight ? total - framesInFlight : 0; k < total; ++k) {
      awaitFrame(k);
      completions.complete(k);
    }
    finish();
  } catch (const std::exception& e) {
    abandon(what + ": " + e.what());
  }
  return completions.stats();
}

// ---- the Vulkan side ----

// The Vulkan work of a frame: nothing (empty) or one of the per-slot command buffers that fill 4 bytes (fill).
class VulkanWork {
public:
  explicit VulkanWork(const render::VulkanContext& vk) : vk_(vk) {
    target_ = render::createBoundBuffer(vk, 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                        {.required = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT});
    const VkCommandPoolCreateInfo poolInfo{.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                           .queueFamilyIndex = vk.queueFamily()};
    VkCommandPool pool = VK_NULL_HANDLE;
    VK_CHECK(vkCreateCommandPool(vk.device(), &poolInfo, nullptr, &pool));
    pool_ = render::OwnedCommandPool(vk.device(), pool);
    const VkCommandBufferAllocateInfo allocInfo{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                                .commandPool = pool,
                                                .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                                .commandBufferCount = kMaxFramesInFlight};
    VK_CHECK(vkAllocateCommandBuffers(vk.device(), &allocInfo, fill_.data()));
    // Recorded once; the buffer of slot s is reused by frame k + F once the throttle saw frame k complete. The barrier
    // orders this fill after the previous submits' fills (write after write).
    const VkBuffer target = target_.buffer.get();
    for (std::uint32_t slot = 0; slot < kMaxFramesInFlight; ++slot) {
      const VkCommandBuffer cmd = fill_[slot];
      // Recorded once, submitted every F frames; the throttle orders the reuse, but the validation layer (1.3.239)
      // does not retire submits through timeline waits (the renderer waits a fence per slot for it): without the
      // flag it would report every resubmit as a command buffer still in use.
      const VkCommandBufferBeginInfo begin{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                           .flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT};
      VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
      render::cmdBufferBarrier(cmd, target, VK_WHOLE_SIZE, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                               VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
      vkCmdFillBuffer(cmd, target, 0, 4, slot);
      VK_CHECK(vkEndCommandBuffer(cmd));
    }
  }

  // One vkQueueSubmit: waits `wait` >= waitValue (none when wait is VK_NULL_HANDLE), signals `signal` = signalValue.
  void submit(Mode mode, std::uint32_t slot, VkSemaphore wait, std::uint64_t waitValue, VkSemaphore signal,
              std::uint64_t signalValue) const {
    const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    const std::uint32_t waits = wait != VK_NULL_HANDLE ? 1u : 0u;
    const VkTimelineSemaphoreSubmitInfo timeline{.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                                 .waitSemaphoreValueCount = waits,
                                                 .pWaitSemaphoreValues = &waitValue,
                                                 .signalSemaphoreValueCount = 1,
                                                 .pSignalSemaphoreValues = &signalValue};
    const VkSubmitInfo info{.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                            .pNext = &timeline,
                            .waitSemaphoreCount = waits,
                            .pWaitSemaphores = &wait,
                            .pWaitDstStageMask = &waitStage,
                            .commandBufferCount = mode == Mode::Fill ? 1u : 0u,
                            .pCommandBuffers = &fill_[slot],
                            .signalSemaphoreCount = 1,
                            .pSignalSemaphores = &signal};
    VK_CHECK(vkQueueSubmit(vk_.queue(), 1, &info, VK_NULL_HANDLE));
  }

private:
  const render::VulkanContext& vk_;
  render::BoundBuffer target_;
  render::OwnedCommandPool pool_; // frees the command buffers
  std::array<VkCommandBuffer, kMaxFramesInFlight> fill_{};
};

// ---- the CUDA side ----

// simDone and renderDone as the app shares them: Vulkan creates and exports, CUDA imports. Declared Vulkan first, so
// that the CUDA imports are destroyed before the Vulkan semaphores (docs/FRAME.md, Shutdown).
struct SharedSemaphores {
  explicit SharedSemaphores(const render::VulkanContext& vk)
      : simDone(vk, true), renderDone(vk, true),
        cudaSimDone(
            cuda::importTimelineSemaphore(cuda::UniqueFd(simDone.exportFd()), "the simDone timeline semaphore")),
        cudaRenderDone(cuda::importTimelineSemaphore(cuda::UniqueFd(renderDone.exportFd()),
                                                     "the renderDone timeline semaphore")) {}

  render::TimelineSemaphore simDone;    // CUDA signals, Vulkan waits
  render::TimelineSemaphore renderDone; // Vulkan signals, CUDA and the host wait
  cuda::ExternalSemaphore cudaSimDone, cudaRenderDone;
};

// The CUDA frame: [wait renderDone] -> empty kernel <<<1, 1>>> -> [signal simDone], or (no semaphores) the kernel
// alone.
class HandoverGraph {
public:
  explicit HandoverGraph(const SharedSemaphores* semaphores) : graph_(cuda::makeGraph()) {
    cudaGraph_t g = graph_.get();
    cudaGraphNode_t prev = nullptr;
    const auto deps = [&] { return prev != nullptr ? &prev : nullptr; };
    const auto depCount = [&] { return prev != nullptr ? std::size_t{1} : std::size_t{0}; };
    if (semaphores != nullptr) {
      renderDone_ = semaphores->cudaRenderDone.get();
      simDone_ = semaphores->cudaSimDone.get();
      const cudaExternalSemaphoreWaitParams waitParams{}; // value 0 here; launch() sets the frame's
      const cudaExternalSemaphoreWaitNodeParams wait{&renderDone_, &waitParams, 1};
      CUDA_CHECK_CTX(cudaGraphAddExternalSemaphoresWaitNode(&waitNode_, g, deps(), depCount(), &wait),
                     "adding the renderDone wait node");
      prev = waitNode_;
    }
    cudaKernelNodeParams kernel{};
    kernel.func = emptyKernelFunction();
    kernel.gridDim = dim3(1, 1, 1);
    kernel.blockDim = dim3(1, 1, 1);
    cudaGraphNode_t kernelNode = nullptr;
    CUDA_CHECK_CTX(cudaGraphAddKernelNode(&kernelNode, g, deps(), depCount(), &kernel), "adding the empty kernel node");
    prev = kernelNode;
    if (semaphores != nullptr) {
      const cudaExternalSemaphoreSignalParams signalParams{};
      const cudaExternalSemaphoreSignalNodeParams signal{&simDone_, &signalParams, 1};
      CUDA_CHECK_CTX(cudaGraphAddExternalSemaphoresSignalNode(&signalNode_, g, deps(), depCount(), &signal),
                     "adding the simDone signal node");
    }
    cudaGraphExec_t exec = nullptr;
    CUDA_CHECK_CTX(cudaGraphInstantiate(&exec, g, 0), "instantiating the hand-over graph");
    exec_ = cuda::GraphExec(exec);
  }

  // Frame k: the semaphore values of the protocol on the exec (as NBodyFrameGraph::launch), then cudaGraphLaunch.
  void launch(const FrameProtocol& protocol, std::uint64_t k, cudaStream_t stream) {
    if (waitNode_ != nullptr) {
      cudaExternalSemaphoreWaitParams waitParams{};
      waitParams.params.fence.value = protocol.renderDoneWaited(k);
      cudaExternalSemaphoreSignalParams signalParams{};
      signalParams.params.fence.value = protocol.simDoneSignalled(k);
      const cudaExternalSemaphoreWaitNodeParams wait{&renderDone_, &waitParams, 1};
      const cudaExternalSemaphoreSignalNodeParams signal{&simDone_, &signalParams, 1};
      CUDA_CHECK_CTX(cudaGraphExecExternalSemaphoresWaitNodeSetParams(exec_.get(), waitNode_, &wait),
                     "the renderDone wait node");
      CUDA_CHECK_CTX(cudaGraphExecExternalSemaphoresSignalNodeSetParams(exec_.get(), signalNode_, &signal),
                     "the simDone signal node");
    }
    CUDA_CHECK(cudaGraphLaunch(exec_.get(), stream));
  }

private:
  cudaExternalSemaphore_t renderDone_ = nullptr, simDone_ = nullptr;
  cuda::Graph graph_; // kept: its node handles address the exec's nodes
  cuda::GraphExec exec_;
  cudaGraphNode_t waitNode_ = nullptr, signalNode_ = nullptr;
};

cuda::Event makeEvent() {
  cudaEvent_t e = nullptr;
  CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  return cuda::Event(e);
}

// Bounded wait for everything queued on the stream (the end of a run, before its objects go).
void waitStream(cudaStream_t stream, const Options& o, const std::string& what) {
  const bool done = cuda::pollCudaUntilDone([&] { return cudaStreamQuery(stream); }, "cudaStreamQuery",
                                            [&] { return what; }, Clock::now() + o.waitTimeout);
  if (!done) abandon("CUDA side stalled: the stream did not finish " + what + " within " + ms(o.waitTimeout));
}

// ---- the runs ----

// After a run's last renderDone was waited for (bounded), so this returns at once: the validation layer (1.3.239)
// does not retire submits through timeline waits, and would see the run's semaphores destroyed while in use.
void retireQueue(const render::VulkanContext& vk) { VK_CHECK(vkQueueWaitIdle(vk.queue())); }

Stats runCudaAlone(const Options& o, const FrameProtocol& protocol, cudaStream_t stream) {
  const std::string what = describe(Kind::CudaAlone, std::nullopt, protocol.framesInFlight());
  HandoverGraph graph(nullptr);
  std::array<cuda::Event, kMaxFramesInFlight> ends; // frame k's end: ends[slot(k)]
  for (cuda::Event& e : ends) e = makeEvent();
  return measure(
      o, protocol.framesInFlight(), what,
      [&](std::uint64_t j) {
        const cudaEvent_t end = ends[protocol.slot(j)].get();
        const bool done = cuda::pollCudaUntilDone([&] { return cudaEventQuery(end); }, "cudaEventQuery",
                                                  [&] { return "frame " + std::to_string(j) + "'s end event"; },
                                                  Clock::now() + o.waitTimeout);
        if (!done) {
          abandon("CUDA side stalled (" + what + "): frame " + std::to_string(j) +
                  "'s end event did not complete within " + ms(o.waitTimeout));
        }
      },
      [&](std::uint64_t k) {
        graph.launch(protocol, k, stream);
        CUDA_CHECK(cudaEventRecord(ends[protocol.slot(k)].get(), stream));
      },
      [&] { waitStream(stream, o, "the " + what + " run"); });
}

Stats runVulkanAlone(const Options& o, const FrameProtocol& protocol, const render::VulkanContext& vk,
                     const VulkanWork& work, Mode mode) {
  const std::string what = describe(Kind::VulkanAlone, mode, protocol.framesInFlight());
  const render::TimelineSemaphore done(vk, false);
  return measure(
      o, protocol.framesInFlight(), what,
      [&](std::uint64_t j) {
        const std::uint64_t value = protocol.renderDoneSignalled(j);
        if (!done.hostWait(value, o.waitTimeout)) {
          abandon("render side stalled (" + what + "): its timeline did not reach " + std::to_string(value) +
                  " (frame " + std::to_string(j) + ") within " + ms(o.waitTimeout) + "; it is at " +
                  std::to_string(done.value()));
        }
      },
      [&](std::uint64_t k) {
        work.submit(mode, protocol.slot(k), VK_NULL_HANDLE, 0, done.get(), protocol.renderDoneSignalled(k));
      },
      [&] { retireQueue(vk); });
}

Stats runInterleaved(const Options& o, const FrameProtocol& protocol, const render::VulkanContext& vk,
                     const VulkanWork& work, Mode mode, cudaStream_t stream) {
  const std::string what = describe(Kind::Interleaved, mode, protocol.framesInFlight());
  const SharedSemaphores s(vk);
  HandoverGraph graph(&s);
  return measure(
      o, protocol.framesInFlight(), what,
      // The throttle: renderDone >= renderDoneSignalled(j), which is renderDoneWaited(j + F).
      [&](std::uint64_t j) {
        const std::uint64_t value = protocol.renderDoneSignalled(j);
        if (s.renderDone.hostWait(value, o.waitTimeout)) return;
        // Frame j's submit signals renderDone = j + 1 once CUDA's simDone = j + 1 arrived: which side is late? Reading
        // the CUDA-signalled counter is not a wait (docs/FRAME.md).
        const std::uint64_t simDoneNow = s.simDone.value();
        const bool cudaLate = simDoneNow < protocol.simDoneSignalled(j);
        abandon(std::string(cudaLate ? "CUDA side stalled" : "render side stalled") + " (" + what +
                "): renderDone did not reach " + std::to_string(value) + " (frame " + std::to_string(j) + ") within " +
                ms(o.waitTimeout) + " (renderDone is at " + std::to_string(s.renderDone.value()) + ", simDone at " +
                std::to_string(simDoneNow) + ": " +
                (cudaLate ? "CUDA has not signalled frame " + std::to_string(j) +
                                "'s simDone = " + std::to_string(protocol.simDoneSignalled(j))
                          : "CUDA signalled frame " + std::to_string(j) + " but its Vulkan submit did not complete") +
                ")");
      },
      [&](std::uint64_t k) {
        graph.launch(protocol, k, stream);
        work.submit(mode, protocol.slot(k), s.simDone.get(), protocol.simDoneSignalled(k), s.renderDone.get(),
                    protocol.renderDoneSignalled(k));
      },
      [&] {
        waitStream(stream, o, "the " + what + " run");
        retireQueue(vk);
      });
}

// ---- report ----

const Result& find(const std::vector<Result>& results, Kind kind, std::optional<Mode> mode, std::uint32_t f) {
  for (const Result& r : results) {
    if (r.kind == kind && r.mode == mode && r.framesInFlight == f) return r;
  }
  throw std::logic_error("handover_bench: no result for " + describe(kind, mode, f));
}

struct Handover {
  Mode mode;
  std::uint32_t framesInFlight;
  double interleavedMs = 0, cudaMs = 0, vulkanMs = 0, handoverMs = 0, perSwitchMs = 0;
};

std::vector<Handover> handovers(const std::vector<Result>& results) {
  std::vector<Handover> out;
  for (const Mode mode : kModes) {
    for (std::uint32_t f = 1; f <= kMaxFramesInFlight; ++f) {
      Handover h{.mode = mode, .framesInFlight = f};
      h.interleavedMs = find(results, Kind::Interleaved, mode, f).stats.meanMs;
      h.cudaMs = find(results, Kind::CudaAlone, std::nullopt, f).stats.meanMs;
      h.vulkanMs = find(results, Kind::VulkanAlone, mode, f).stats.meanMs;
      h.handoverMs = h.interleavedMs - h.cudaMs - h.vulkanMs;
      h.perSwitchMs = h.handoverMs * f / 2.0;
      out.push_back(h);
    }
  }
  return out;
}

void printTable(const std::vector<Result>& results, bool vulkanOnly) {
  if (vulkanOnly) {
    std::printf("%-5s %2s | %-26s\n", "mode", "F", "vulkan alone (ms/frame)");
    std::printf("%-5s %2s | %8s %8s %8s\n", "", "", "mean", "p50", "p99");
    for (const Result& r : results) {
      std::printf("%-5s %2u | %8.4f %8.4f %8.4f\n", modeName(*r.mode), r.framesInFlight, r.stats.meanMs, r.stats.p50Ms,
                  r.stats.p99Ms);
    }
    return;
  }
  std::printf("%-5s %2s | %-26s | %-21s | %-22s\n", "mode", "F", "interleaved (ms/frame)", "alone: mean (ms/frame)",
              "hand-over (ms)");
  std::printf("%-5s %2s | %8s %8s %8s | %10s %10s | %10s %11s\n", "", "", "mean", "p50", "p99", "cuda", "vulkan",
              "per frame", "per switch");
  for (const Handover& h : handovers(results)) {
    const Stats& i = find(results, Kind::Interleaved, h.mode, h.framesInFlight).stats;
    std::printf("%-5s %2u | %8.4f %8.4f %8.4f | %10.4f %10.4f | %10.4f %11.4f\n", modeName(h.mode), h.framesInFlight,
                i.meanMs, i.p50Ms, i.p99Ms, h.cudaMs, h.vulkanMs, h.handoverMs, h.perSwitchMs);
  }
  std::printf(
      "per frame = interleaved - cuda alone - vulkan alone; per switch = per frame x F / 2 (PERFORMANCE.md's\n"
      "model: 2 context switches per F frames)\n");
  std::printf("round trip (F = 1, one CUDA -> Vulkan -> CUDA hand-over pair per frame): empty %.4f ms, fill %.4f ms\n",
              find(results, Kind::Interleaved, Mode::Empty, 1).stats.meanMs,
              find(results, Kind::Interleaved, Mode::Fill, 1).stats.meanMs);
}

Json toJson(const Options& o, const Json& device, const std::vector<Result>& results) {
  Json j;
  j["schema"] = kSchema;
  j["frames"] = o.frames;
  j["warmup"] = o.warmup;
  j["wait_timeout_ms"] = o.waitTimeout.count();
  j["validation"] = o.validation;
  j["vulkan_only"] = o.vulkanOnly;
  j["device"] = device;
  Json runs = Json::array();
  for (const Result& r : results) {
    runs.push_back({{"kind", kindName(r.kind)},
                    {"mode", r.mode ? Json(modeName(*r.mode)) : Json(nullptr)},
                    {"frames_in_flight", r.framesInFlight},
                    {"mean_ms", r.stats.meanMs},
                    {"p50_ms", r.stats.p50Ms},
                    {"p99_ms", r.stats.p99Ms},
                    {"min_ms", r.stats.minMs},
                    {"max_ms", r.stats.maxMs},
                    {"measured_seconds", r.stats.measuredSeconds}});
  }
  j["runs"] = runs;
  Json handover = Json::array();
  if (!o.vulkanOnly) {
    for (const Handover& h : handovers(results)) {
      handover.push_back({{"mode", modeName(h.mode)},
                          {"frames_in_flight", h.framesInFlight},
                          {"interleaved_ms", h.interleavedMs},
                          {"cuda_alone_ms", h.cudaMs},
                          {"vulkan_alone_ms", h.vulkanMs},
                          {"handover_ms", h.handoverMs},
                          {"per_switch_ms", h.perSwitchMs}});
    }
  }
  j["handover"] = handover;
  if (!o.vulkanOnly) {
    j["round_trip_ms"] = {{"empty", find(results, Kind::Interleaved, Mode::Empty, 1).stats.meanMs},
                          {"fill", find(results, Kind::Interleaved, Mode::Fill, 1).stats.meanMs}};
  }
  return j;
}

void writeJson(const std::string& path, const Json& j) {
  std::ofstream out(path);
  out << j.dump(2) << '\n';
  out.close();
  if (!out) throw std::runtime_error("cannot write --json " + path);
}

int skip(const Options& o, const std::string& reason) {
  std::printf("skipped: %s\n", reason.c_str());
  if (!o.json.empty()) writeJson(o.json, Json{{"schema", kSchema}, {"skipped", reason}});
  return 0;
}

// ---- main ----

int run(const Options& o) {
  Json device = Json::object();
  render::DeviceRequest request;
  request.validation = o.validation;
  if (!o.vulkanOnly) {
    const CudaDeviceList cuda = listCudaDevices();
    if (cuda.devices.empty()) return skip(o, "no CUDA device (" + cuda.whyNone + ")");
    const int index = o.gpu.value_or(0);
    if (index >= static_cast<int>(cuda.devices.size())) {
      throw UsageError("--gpu " + std::to_string(index) + ": there are " + std::to_string(cuda.devices.size()) +
                       " CUDA devices");
    }
    const CudaDeviceInfo& d = cuda.devices[static_cast<std::size_t>(index)];
    CUDA_CHECK(cudaSetDevice(index));
    request.uuid = d.uuid;
    request.requireInterop = true;
    device["cuda_index"] = index;
    device["cuda_name"] = d.name;
    device["cuda_uuid"] = render::formatUuid(d.uuid);
    device["cuda_driver_version"] = cuda.driverVersion;
    device["cuda_runtime_version"] = cuda.runtimeVersion;
    std::printf("CUDA %d: %s, UUID %s\n", index, d.name.c_str(), render::formatUuid(d.uuid).c_str());
  } else if (o.gpu) {
    request.index = *o.gpu;
  }

  std::optional<render::VulkanContext> vk;
  try {
    vk.emplace(request);
  } catch (const EnvironmentError& e) {
    return skip(o, std::string("no usable Vulkan device: ") + e.what());
  }
  device["vulkan_name"] = vk->info().name;
  device["vulkan_uuid"] = render::formatUuid(vk->info().uuid);
  std::printf("Vulkan: %s, UUID %s\n%llu frames per run after %llu warm-up frames%s\n\n", vk->info().name.c_str(),
              render::formatUuid(vk->info().uuid).c_str(), static_cast<unsigned long long>(o.frames),
              static_cast<unsigned long long>(o.warmup), o.validation ? "; validation on: timings meaningless" : "");
  std::fflush(stdout);

  const VulkanWork work(*vk);
  std::optional<cuda::Stream> stream;
  if (!o.vulkanOnly) stream = cuda::makeStream();

  std::vector<Result> results;
  for (std::uint32_t f = 1; f <= kMaxFramesInFlight; ++f) {
    const FrameProtocol protocol(f);
    if (!o.vulkanOnly) results.push_back({Kind::CudaAlone, std::nullopt, f, runCudaAlone(o, protocol, stream->get())});
    for (const Mode mode : kModes) {
      results.push_back({Kind::VulkanAlone, mode, f, runVulkanAlone(o, protocol, *vk, work, mode)});
      if (!o.vulkanOnly) {
        results.push_back({Kind::Interleaved, mode, f, runInterleaved(o, protocol, *vk, work, mode, stream->get())});
      }
    }
  }

  printTable(results, o.vulkanOnly);
  if (!o.json.empty()) writeJson(o.json, toJson(o, device, results));
  if (o.validation && vk->validationMessages() > 0) {
    std::fprintf(stderr, "handover_bench: %llu validation messages (printed above)\n",
                 static_cast<unsigned long long>(vk->validationMessages()));
    return 1;
  }
  return 0;
}

} // namespace
} // namespace graphsim::bench

int main(int argc, char** argv) {
  using namespace graphsim::bench;
  Options options;
  try {
    options = parseOptions(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "handover_bench: %s\n%s(--help for more)\n", e.what(), kUsage);
    return 2;
  }
  if (options.help) {
    std::printf("%s\n%s", kUsage, kHelp);
    return 0;
  }
  try {
    return run(options);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "handover_bench: %s\n", e.what());
    return 2;
  } catch (const graphsim::EnvironmentError& e) {
    // The machine lacks what the hand-over needs (e.g. a driver that cannot export timeline semaphores).
    return skip(options, e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "handover_bench: %s\n", e.what());
    return 1;
  }
}
