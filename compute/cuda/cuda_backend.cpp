// CudaBackend: device choice, interop import, state and frame graph, and the bounded waits around them.
//
// Ownership and freeing order (docs/FRAME.md, Shutdown): Impl declares the stream and timing events first, then the
// imported semaphores, then the imported render buffers, the state arrays and last the graph, so that destruction runs
// in reverse: graph exec and graphs, state, mapped pointers + external memory (cudaFree, then
// cudaDestroyExternalMemory, per buffer), semaphores, events, stream. ~CudaBackend first waits (bounded) for the
// stream, so nothing is destroyed while the GPU may use it.
#include "compute/cuda_backend.h"
#include "compute/cuda_instruments.h" // LaunchMode, LaunchHostTiming: the private instruments

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include <nvtx3/nvToolsExtCudaRt.h>

#include "compute/cpu_stages.h"
#include "compute/cuda/collectives.h"
#include "compute/cuda/cuda_check.h"
#include "compute/cuda/cuda_handles.h"
#include "compute/cuda/device_bodies.h"
#include "compute/cuda/external_interop.h"
#include "compute/cuda/frame_graph.h"
#include "compute/cuda/frame_timings.h"
#include "compute/cuda/graph_slices.h"
#include "compute/cuda/leapfrog_start.h"
#include "compute/cuda/mapped_report.h"
#include "compute/cuda/poll.h"
#include "compute/cuda/shutdown.h"
#include "compute/cuda_device.h"
#include "compute/initial_conditions.h"
#include "compute/protocol.h"

namespace graphsim {
namespace {

using Clock = std::chrono::steady_clock;

// Launches whose frame index the host remembers for the blow-up report. The report of a launch is read at the
// latest at the launch kLaunchLog later (Impl::launch), and every loop here keeps at most F <= 4 frames queued
// (renderDone throttle, waitForFrame, step()), so the entry it needs is still there.
constexpr std::size_t kLaunchLog = 64;

// The host state a reset starts from. LeapfrogStart::Host builds it exactly as CpuBackend::reset does (same
// functions, same order), so that both backends start bit-identical: bodies, leapfrog half-step velocities, a(0)
// rounded from double, and the colour of the initial velocities. LeapfrogStart::Device stops after the bodies
// (velocities at t = 0, accel and colour zero): startLeapfrogOnDevice does the rest on the GPU.
struct HostStart {
  BodyState state;
  std::vector<Float4> accel;
  std::vector<float> colour;
};
HostStart makeHostStart(const SceneConfig& config, LeapfrogStart start) {
  HostStart h;
  h.state = makeInitialConditions(config);
  if (start == LeapfrogStart::Host) {
    startLeapfrog(h.state, config.params, h.accel);
    cpu::computeColour(h.state.vel, config.params.colourScale, h.colour);
  } else {
    h.accel.assign(h.state.size(), Float4{});
    h.colour.assign(h.state.size(), 0.0f);
  }
  return h;
}

// The CUDA device current for the scope (every call on another GPU's stream, graph or memory runs inside one), and
// the primary GPU again after it.
class OnDevice {
public:
  OnDevice(int device, int primary) : primary_(primary) { CUDA_CHECK(cudaSetDevice(device)); }
  ~OnDevice() { CUDA_LOG(cudaSetDevice(primary_)); }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;

private:
  int primary_;
};

std::string describeDevices(const CudaDeviceList& list) {
  if (list.devices.empty()) return "none (" + list.whyNone + ")";
  std::string s;
  for (const CudaDeviceInfo& d : list.devices) s += (s.empty() ? "" : ", ") + std::to_string(d.index) + ": " + d.name;
  return s;
}

} // namespace

struct CudaBackend::Impl {
  SceneConfig config;
  std::chrono::milliseconds waitTimeout{5000};
  LeapfrogStart leapfrogStart = LeapfrogStart::Device;
  LaunchMode mode = LaunchMode::Graph;
  ComparisonLaunch comparisonLaunch = nullptr; // set with a comparison mode (CudaInstruments::setLaunchMode)

  cuda::Stream stream;
  cuda::FrameTimings timing; // frame k's GPU time and end event

  cuda::ExternalSemaphore renderDone, simDone;
  std::vector<cuda::ExternalBuffer> renderBuffers; // F buffers; frame k writes renderBuffers[protocol.slot(k)]
  FrameProtocol protocol{1};                       // interop: F = the render buffers; compute-only: 1
  std::uint64_t renderCapacity = 0;                // bodies that fit in the smallest render buffer

  cuda::DeviceArray<float4> computeOutput; // write_render's target without interop
  cuda::PinnedArray<float4> hostOutput;    // copyRenderOutput's staging, allocated on first use
  cuda::DeviceBodies bodies;

  // Blow-up detection (docs/FRAME.md): the word the stage kernels flag (device memory), the word the graph's
  // report_blow_up node writes once per reset (mapped pinned host memory), and the frame of each recent launch: the
  // report names its launch by the ordinal the report node counts on the GPU, which the host counts alike.
  cuda::DeviceArray<cuda::BlowUpDeviceState> blowUpState;
  cuda::PinnedArray<unsigned long long> blowUpWord;
  unsigned long long* d_blowUpWord = nullptr;
  struct LaunchRecord {
    std::uint32_t ordinal = 0;
    std::uint64_t frame = 0;
  };
  std::array<LaunchRecord, kLaunchLog> launchLog{};
  std::uint32_t nextLaunchOrdinal = 0; // wraps with the GPU's 32-bit count
  mutable std::optional<BlowUp> blowUp;

  // Diagnostics (docs/DIAGNOSTICS.md): the node's device state (zeroed once) and the mapped pinned report it writes;
  // the series (one per reset) and the latest sample read from the report.
  cuda::DeviceArray<cuda::DiagnosticsDeviceState> diagnosticsState;
  cuda::PinnedArray<cuda::DiagnosticsHostReport> diagnosticsReport;
  cuda::DiagnosticsHostReport* d_diagnosticsReport = nullptr;
  std::uint64_t diagnosticsSeries = 0;
  mutable std::optional<DiagnosticsSample> diagnostics;

  // Several GPUs (docs/MULTI-GPU.md). The GPU above (the one the renderer shares) is rank 0; each peer is one more
  // rank with its own stream, full state arrays and frame graph (GraphSlice), all built and launched from here.
  // Declared before the graphs: the communicators and captured collectives outlive every exec that uses them.
  int device = 0;
  std::unique_ptr<cuda::Collectives> collectives; // null: one GPU
  std::vector<cuda::Graph> capturedCollectives;   // every rank's, for the graphs built from them
  cuda::DeviceArray<unsigned int> tileFlags;      // rank 0's combined non-finite bits

  std::optional<cuda::FrameGraph> graph;

  struct Peer {
    int device = 0;
    cuda::Stream stream;
    cuda::FrameTimings timing;
    cuda::DeviceBodies bodies;
    cuda::DeviceArray<unsigned int> tileFlags;
    cuda::DeviceArray<cuda::BlowUpDeviceState> blowUpState;
    cuda::PinnedArray<unsigned long long> blowUpWord;
    unsigned long long* d_blowUpWord = nullptr;
    std::optional<cuda::FrameGraph> graph;
  };
  std::deque<Peer> peers;                 // a deque: peers are built in place and never move
  mutable std::vector<NodeInfo> allNodes; // nodes() with peers: rank 0's, then each peer's ("forces@gpu1")

  int ranks() const { return 1 + static_cast<int>(peers.size()); }

  struct InjectedFailure {
    Stage stage;
    std::uint64_t frame;
    BreakNode breakNode;
  };
  std::optional<InjectedFailure> injectedFailure; // --inject kernel-fail (test hook)
  std::string injectedNode;                       // the node it broke, named in the errors that follow

  std::optional<std::uint64_t> lastLaunched;
  std::uint64_t nextComputeFrame = 0;
  mutable double lastSimMs = -1;

  bool interop() const { return !renderBuffers.empty(); }

  float4* outputFor(std::uint64_t frame) const {
    if (!interop()) return computeOutput.get();
    return renderBuffers[protocol.slot(frame)].as<float4>();
  }

  void launch(std::uint64_t frame) {
    harvestBlowUp(); // before this launch's log entry replaces the one kLaunchLog launches back
    // Events on the stream around the graph launch: the GPU time includes the wait node, which with frames in
    // flight usually finds renderDone already signalled.
    timing.begin(frame, stream.get());
    if (injectedFailure && injectedFailure->frame == frame) {
      injectedNode = injectedFailure->breakNode(*graph, injectedFailure->stage);
    }
    try {
      if (comparisonLaunch == nullptr) {
        graph->launch(frame, outputFor(frame), stream.get());
      } else {
        comparisonLaunch(*graph, cuda::FrameLaunch{frame, outputFor(frame), stream.get()});
      }
      for (Peer& p : peers) {
        // The peers' graphs need no wait: their first collective waits for rank 0's, which waited for renderDone.
        const OnDevice on(p.device, device);
        p.timing.begin(frame, p.stream.get());
        p.graph->launch(frame, nullptr, p.stream.get());
        p.timing.end(frame, p.stream.get());
      }
    } catch (const CudaError& e) {
      if (injectedNode.empty()) throw;
      throw CudaError(e.code, std::string(e.what()) + " [node " + injectedNode +
                                  " has the launch configuration that --inject kernel-fail gave it]");
    }
    timing.end(frame, stream.get());
    lastLaunched = frame;
    launchLog[nextLaunchOrdinal % kLaunchLog] = {nextLaunchOrdinal, frame};
    ++nextLaunchOrdinal;
  }

  // A fresh report: the GPU's word and launch count on the stream (ordered before every later launch), the host word
  // directly. The caller makes sure no launch is running. The host word is mapped, so kernels write it in place.
  void clearBlowUp() {
    if (!blowUpState.get()) {
      blowUpState = cuda::DeviceArray<cuda::BlowUpDeviceState>(1);
      blowUpWord = cuda::PinnedArray<unsigned long long>(1, cudaHostAllocMapped);
      void* onDevice = nullptr;
      CUDA_CHECK(cudaHostGetDevicePointer(&onDevice, blowUpWord.get(), 0));
      d_blowUpWord = static_cast<unsigned long long*>(onDevice);
    }
    cuda::BlowUpDeviceState* d_state = blowUpState.get();
    CUDA_CHECK(cudaMemsetAsync(&d_state->first, 0xFF, sizeof(unsigned int), stream.get())); // = kNoBlowUp
    CUDA_CHECK(cudaMemsetAsync(&d_state->launches, 0, 3 * sizeof(unsigned int), stream.get()));
    static_assert(offsetof(cuda::BlowUpDeviceState, launches) == sizeof(unsigned int) &&
                  sizeof(cuda::BlowUpDeviceState) == 4 * sizeof(unsigned int));
    *blowUpWord.get() = ~0ull;
    for (Peer& p : peers) {
      const OnDevice on(p.device, device);
      if (!p.blowUpState.get()) {
        p.blowUpState = cuda::DeviceArray<cuda::BlowUpDeviceState>(1);
        p.blowUpWord = cuda::PinnedArray<unsigned long long>(1, cudaHostAllocMapped);
        void* onDevice = nullptr;
        CUDA_CHECK(cudaHostGetDevicePointer(&onDevice, p.blowUpWord.get(), 0));
        p.d_blowUpWord = static_cast<unsigned long long*>(onDevice);
      }
      CUDA_CHECK(cudaMemsetAsync(&p.blowUpState.get()->first, 0xFF, sizeof(unsigned int), p.stream.get()));
      CUDA_CHECK(cudaMemsetAsync(&p.blowUpState.get()->launches, 0, 3 * sizeof(unsigned int), p.stream.get()));
      *p.blowUpWord.get() = ~0ull;
    }
    nextLaunchOrdinal = 0;
    blowUp.reset();
  }

  void allocateDiagnostics() {
    diagnosticsState = cuda::DeviceArray<cuda::DiagnosticsDeviceState>(1);
    CUDA_CHECK(cudaMemset(diagnosticsState.get(), 0, sizeof(cuda::DiagnosticsDeviceState)));
    diagnosticsReport = cuda::PinnedArray<cuda::DiagnosticsHostReport>(1, cudaHostAllocMapped);
    std::memset(static_cast<void*>(diagnosticsReport.get()), 0, sizeof(cuda::DiagnosticsHostReport));
    void* onDevice = nullptr;
    CUDA_CHECK(cudaHostGetDevicePointer(&onDevice, diagnosticsReport.get(), 0));
    d_diagnosticsReport = static_cast<cuda::DiagnosticsHostReport*>(onDevice);
  }

  // A new series: nothing of the old state is shown again. The caller made sure no launch is running.
  void clearDiagnostics() {
    static_cast<volatile cuda::DiagnosticsHostReport*>(diagnosticsReport.get())->seq = 0;
    ++diagnosticsSeries;
    diagnostics.reset();
    graph->restartDiagnostics();
  }

  // The report's sample if one is complete (seqlock: seq, the fields, seq again); never a CUDA call, never a wait.
  void harvestDiagnostics() const {
    const auto sample = cuda::readMappedReport(diagnosticsReport.get(), [&](const volatile auto* h) {
      DiagnosticsSample d;
      d.frame = h->frame;
      d.series = diagnosticsSeries;
      d.sums.kinetic = h->sums.kinetic;
      d.sums.potential = h->sums.potential;
      for (int k = 0; k < 3; ++k) {
        d.sums.momentum[k] = h->sums.momentum[k];
        d.sums.angularMomentum[k] = h->sums.angularMomentum[k];
      }
      d.sums.momentumScale = h->sums.momentumScale;
      d.sums.angularMomentumScale = h->sums.angularMomentumScale;
      return d;
    });
    if (sample) diagnostics = sample;
  }

  // One load of the mapped host word (never a CUDA call, never a wait). It is written once, with one 8-byte store,
  // by the report node of the first frame that had a non-finite value: (launch ordinal << 32) | code.
  void harvestBlowUp() const {
    if (blowUp || !blowUpWord.get()) return;
    unsigned long long word = *static_cast<const volatile unsigned long long*>(blowUpWord.get());
    // Several GPUs: each reports its own slice's; the earliest launch, then the earliest node, is the first.
    for (const Peer& p : peers) {
      if (!p.blowUpWord.get()) continue;
      const unsigned long long theirs = *static_cast<const volatile unsigned long long*>(p.blowUpWord.get());
      word = std::min(word, theirs);
    }
    const auto code = static_cast<std::uint32_t>(word);
    if (code == cuda::kNoBlowUp) return;
    const auto ordinal = static_cast<std::uint32_t>(word >> 32);
    const LaunchRecord& r = launchLog[ordinal % kLaunchLog];
    BlowUp b;
    // The else branch is not reachable through the loops here (see kLaunchLog); they number frames consecutively.
    const std::uint32_t launchesAgo = nextLaunchOrdinal - 1 - ordinal;
    b.frame = r.ordinal == ordinal ? r.frame : lastLaunched.value_or(0) - launchesAgo;
    const unsigned int node = cuda::blowUpNode(code);
    b.stage = static_cast<Stage>(node % kStageCount);
    b.substep = static_cast<int>(node / kStageCount);
    switch (cuda::blowUpQuantity(code)) {
    case cuda::kBlowUpAcceleration: b.what = "non-finite acceleration"; break;
    case cuda::kBlowUpVelocity: b.what = "non-finite velocity"; break;
    default: b.what = "non-finite position"; break;
    }
    blowUp = std::move(b);
  }

  void synchronize() const {
    const auto deadline = Clock::now() + waitTimeout;
    for (const Peer& p : peers) {
      const bool done = cuda::pollCudaUntilDone(
          [&] { return cudaStreamQuery(p.stream.get()); }, "cudaStreamQuery",
          [&] { return "GPU " + std::to_string(p.device) + "'s frame graph failed (a kernel or an NCCL collective)"; },
          deadline);
      if (!done)
        throw TimeoutError(stallMessage() + " (GPU " + std::to_string(p.device) + ")", TimeoutError::Side::Cuda);
    }
    const bool done = cuda::pollCudaUntilDone(
        [&] { return cudaStreamQuery(stream.get()); }, "cudaStreamQuery",
        [&] {
          const std::string frame = lastLaunched ? "frame " + std::to_string(*lastLaunched) : "before the first frame";
          return "the frame graph failed (" + frame + "; a kernel or semaphore operation" +
                 (injectedNode.empty() ? "" : "; --inject kernel-fail broke node " + injectedNode) + ")";
        },
        deadline);
    // Still running: the GPU may be using everything (e.g. a semaphore wait that never completes).
    if (!done) throw TimeoutError(stallMessage(), TimeoutError::Side::Cuda);
  }

  // Bounded wait for frame k's end event; frames older than the event ring are covered by a stream synchronize.
  void waitForFrame(std::uint64_t k) const {
    if (!lastLaunched || k > *lastLaunched) {
      throw std::logic_error("waitForFrame(" + std::to_string(k) + "): that frame has not been launched");
    }
    cudaEvent_t end = timing.endOf(k);
    if (end == nullptr) return synchronize();
    const bool done = cuda::pollCudaUntilDone(
        [&] { return cudaEventQuery(end); }, "cudaEventQuery",
        [&] {
          return "frame " + std::to_string(k) + " failed (a kernel or semaphore operation" +
                 (injectedNode.empty() ? "" : "; --inject kernel-fail broke node " + injectedNode) + ")";
        },
        Clock::now() + waitTimeout);
    if (!done) throw TimeoutError(stallMessage(), TimeoutError::Side::Cuda);
  }

  // A freshly uploaded state: bodies were copied with cudaMemcpy, whose pageable host-to-device DMA may still be
  // running when it returns, on the legacy stream that our non-blocking stream does not order against. Wait for it
  // (plain copies: this cannot hang), then start the leapfrog on the GPU if asked.
  // On several GPUs every GPU starts the whole state alike (the kernels are deterministic): the same bytes everywhere.
  void startBodies(const cuda::DeviceBodies& fresh, const NBodyParams& params, cudaStream_t on = nullptr) {
    CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    if (leapfrogStart == LeapfrogStart::Device) {
      // eps^2 as FrameGraph::stageSpec computes it, so a(0) is what the first forces node would compute.
      const cuda::LeapfrogStartParams start{params.G, params.softening * params.softening, params.dt,
                                            params.colourScale};
      cuda::startLeapfrogOnDevice(fresh.view(), start, on != nullptr ? on : stream.get());
      if (on == nullptr) synchronize();
      else waitForStream(on, "the leapfrog start");
    }
  }

  // Bounded wait for one stream of this backend's set-up work (`what`: "the leapfrog start").
  void waitForStream(cudaStream_t s, const std::string& what) const {
    const bool done = cuda::pollCudaUntilDone([&] { return cudaStreamQuery(s); }, "cudaStreamQuery",
                                              [&] { return what + " failed"; }, Clock::now() + waitTimeout);
    if (!done) {
      throw TimeoutError(
          "CUDA side stalled: " + what + " did not complete within " + std::to_string(waitTimeout.count()) + " ms",
          TimeoutError::Side::Cuda);
    }
  }

  // Several GPUs: lays `next` out over the ranks (shares, fresh arrays on every GPU, the collectives captured for them)
  // and builds or rebuilds every graph. Every reset takes this path (the shares follow the count). Nothing runs.
  void layOutSeveral(const SceneConfig& next, const HostStart& start, const std::string& cause) {
    const int R = ranks();
    const int n = static_cast<int>(next.bodies);
    const int S = cuda::shareFor(n, R);
    const std::size_t capacity =
        std::max({capacityFor(next), bodies.capacity(), static_cast<std::size_t>(S) * static_cast<std::size_t>(R)});
    const std::size_t tiles = cuda::forcesTileCounters(capacity);
    cuda::DeviceBodies fresh(start.state, start.accel, start.colour, capacity);
    startBodies(fresh, next.params);
    cuda::DeviceArray<unsigned int> freshFlags(tiles);
    std::vector<cuda::DeviceBodies> peerBodies;
    std::vector<cuda::DeviceArray<unsigned int>> peerFlags;
    for (Peer& p : peers) {
      const OnDevice on(p.device, device);
      peerBodies.emplace_back(start.state, start.accel, start.colour, capacity);
      startBodies(peerBodies.back(), next.params, p.stream.get());
      peerFlags.emplace_back(tiles);
    }
    std::vector<cuda::RankArrays> arrays{{fresh.view(), freshFlags.get(), stream.get()}};
    for (std::size_t i = 0; i < peers.size(); ++i) {
      arrays.push_back({peerBodies[i].view(), peerFlags[i].get(), peers[i].stream.get()});
    }
    cuda::Slices slices = cuda::captureSlices(*collectives, arrays, tiles, n, S, next.substeps,
                                              [&](cudaStream_t s, const std::string& what) { waitForStream(s, what); });

    cuda::DeviceArray<float4> freshOutput;
    if (!interop()) freshOutput = cuda::DeviceArray<float4>(capacity);
    float4* output = interop() ? outputFor(lastLaunched.value_or(0)) : freshOutput.get();
    if (!graph) {
      const cuda::FrameSemaphores semaphores{renderDone.get(), simDone.get(), protocol}; // copied by the graph
      graph.emplace(fresh.view(), next.substeps, next.params, next.enabled, interop() ? &semaphores : nullptr, output,
                    cuda::ReportBlowUpArgs{blowUpState.get(), d_blowUpWord}, cuda::DiagnosticsBuffers{}, 0,
                    &slices.perRank[0]);
    } else {
      graph->setSlice(slices.perRank[0]);
      graph->rebuild(fresh.view(), next.substeps, next.params, next.enabled, output, cause);
    }
    for (std::size_t i = 0; i < peers.size(); ++i) {
      Peer& p = peers[i];
      const OnDevice on(p.device, device);
      if (!p.graph) {
        p.graph.emplace(peerBodies[i].view(), next.substeps, next.params, next.enabled, nullptr, nullptr,
                        cuda::ReportBlowUpArgs{p.blowUpState.get(), p.d_blowUpWord}, cuda::DiagnosticsBuffers{}, 0,
                        &slices.perRank[i + 1]);
      } else {
        p.graph->setSlice(slices.perRank[i + 1]);
        p.graph->rebuild(peerBodies[i].view(), next.substeps, next.params, next.enabled, nullptr, cause);
      }
      p.bodies = std::move(peerBodies[i]);
      p.tileFlags = std::move(peerFlags[i]);
    }
    // Every graph now refers to the new arrays and collectives only: the old ones are freed here.
    bodies = std::move(fresh);
    tileFlags = std::move(freshFlags);
    if (!interop()) computeOutput = std::move(freshOutput);
    capturedCollectives = std::move(slices.captured);
  }

  // Bodies the state arrays of `next` are allocated for: its capacity (SceneConfig::maxBodies), at least its
  // count; with interop at most what the render buffers hold (a count beyond them cannot be drawn).
  std::size_t capacityFor(const SceneConfig& next) const {
    std::uint64_t capacity = static_cast<std::uint64_t>(bodyCapacity(next));
    if (interop()) capacity = std::max(std::min(capacity, renderCapacity), static_cast<std::uint64_t>(next.bodies));
    return static_cast<std::size_t>(capacity);
  }

  // A reset within the arrays' capacity and with the same substeps (issue 14): the new state is uploaded into the
  // same arrays and the graph is told the new count, parameters and enable states like a live edit. The next
  // launch updates the kernel nodes whose arguments or grids changed (cudaGraphExecKernelNodeSetParams, counted in
  // nodeUpdates, timed in lastUpdateHostUs): no cudaGraphExecUpdate, no instantiation. The caller synchronised.
  void resetInPlace(const SceneConfig& next, const HostStart& start) {
    bodies.upload(start.state, start.accel, start.colour);
    startBodies(bodies, next.params);
    graph->setBodies(bodies.view());
    graph->setParams(next.params);
    for (const StageInfo& row : kStages) {
      graph->setStageEnabled(row.stage, next.enabled[static_cast<std::size_t>(row.stage)]);
    }
  }

  // Any other reset: new arrays (a count beyond the capacity, or another substep count), then the graph rebuilt
  // with cudaGraphExecUpdate, falling back to a fresh instantiation; the counters record which and why. The old
  // arrays are freed only once the graph refers to the new ones; the capacity never shrinks. The caller synchronised.
  void resetReallocating(const SceneConfig& next, const HostStart& start) {
    const std::size_t capacity = std::max(capacityFor(next), bodies.capacity());
    std::string cause;
    if (static_cast<std::size_t>(next.bodies) > bodies.capacity()) {
      cause = "body count " + std::to_string(next.bodies) + " exceeds the capacity " +
              std::to_string(bodies.capacity()) + ": buffers reallocated for " + std::to_string(capacity);
    }
    cuda::DeviceBodies fresh(start.state, start.accel, start.colour, capacity);
    startBodies(fresh, next.params);
    cuda::DeviceArray<float4> freshOutput;
    if (!interop()) freshOutput = cuda::DeviceArray<float4>(capacity);
    float4* output = interop() ? outputFor(lastLaunched.value_or(0)) : freshOutput.get();
    graph->rebuild(fresh.view(), next.substeps, next.params, next.enabled, output, cause);
    // The graph now refers to the new arrays only: the old ones are freed here.
    bodies = std::move(fresh);
    if (!interop()) computeOutput = std::move(freshOutput);
  }

  std::string stallMessage() const {
    const std::uint64_t k = timing.oldestIncomplete().value_or(lastLaunched.value_or(0));
    std::string m = "CUDA side stalled: frame " + std::to_string(k) + " did not complete within " +
                    std::to_string(waitTimeout.count()) + " ms";
    if (graph && graph->hasSemaphores()) {
      m += " (waiting on renderDone ≥ " + std::to_string(protocol.renderDoneWaited(k)) + "?)";
    }
    return m;
  }

  double lastSimGpuMs() const {
    if (!lastLaunched) return lastSimMs;
    lastSimMs = timing.newestMs(*lastLaunched).value_or(lastSimMs);
    return lastSimMs;
  }
};

CudaBackend::CudaBackend(const SceneConfig& config, int device, const InteropDesc* interop,
                         std::chrono::milliseconds waitTimeout, LeapfrogStart start)
    : CudaBackend(config, std::vector<int>{device}, interop, waitTimeout, start) {}

CudaBackend::CudaBackend(const SceneConfig& config, const std::vector<int>& gpus, const InteropDesc* interop,
                         std::chrono::milliseconds waitTimeout, LeapfrogStart start)
    : impl_(std::make_unique<Impl>()) {
  // The fds belong to us from here on: each is either imported (then the CUDA driver owns it) or closed when this
  // constructor throws.
  cuda::InteropFds fds(interop);

  validateSceneConfig(config);
  if (gpus.empty()) throw std::invalid_argument("CudaBackend: no GPU given");
  const CudaDeviceList devices = listCudaDevices();
  if (devices.devices.empty()) throw EnvironmentError("no CUDA device: " + devices.whyNone);
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    if (std::find(gpus.begin(), gpus.begin() + static_cast<std::ptrdiff_t>(i), gpus[i]) !=
        gpus.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw std::invalid_argument("CUDA device " + std::to_string(gpus[i]) + " is listed twice");
    }
  }
  if (const std::string missing = missingCudaDevices(gpus, devices); !missing.empty()) {
    const bool one = missing.find(',') == std::string::npos;
    throw EnvironmentError(std::string(one ? "CUDA device " : "CUDA devices ") + missing + (one ? " does" : " do") +
                           " not exist; CUDA devices: " + describeDevices(devices));
  }
  const int device = gpus.front();
  if (interop != nullptr) {
    const std::size_t f = interop->renderBuffers.size();
    if (f < 1 || f > kMaxFramesInFlight) {
      throw std::invalid_argument("interop: " + std::to_string(f) + " render buffers (frames in flight must be 1 to " +
                                  std::to_string(kMaxFramesInFlight) + ")");
    }
    std::uint64_t capacity = UINT64_MAX;
    for (std::size_t i = 0; i < f; ++i) {
      const std::uint64_t size = interop->renderBuffers[i].bufferSize;
      if (size < static_cast<std::uint64_t>(config.bodies) * sizeof(Float4)) {
        throw std::invalid_argument("interop: render buffer " + std::to_string(i) + " holds " + std::to_string(size) +
                                    " bytes, " + std::to_string(config.bodies) + " bodies need " +
                                    std::to_string(config.bodies * 16) + " (16 bytes each)");
      }
      capacity = std::min(capacity, size / sizeof(Float4));
    }
    impl_->renderCapacity = capacity;
    impl_->protocol = FrameProtocol(static_cast<std::uint32_t>(f));
  }

  Impl& m = *impl_;
  m.waitTimeout = waitTimeout;
  m.leapfrogStart = start;
  m.device = device;
  if (gpus.size() > 1) m.collectives = std::make_unique<cuda::Collectives>(gpus); // EnvironmentError without NCCL
  CUDA_CHECK(cudaSetDevice(device));
  m.stream = cuda::makeStream();
  nvtxNameCudaStreamA(m.stream.get(), "graphsim nbody frames"); // the timeline's name; a no-op without a tool
  m.timing.create();
  std::optional<cuda::FrameSemaphores> semaphores;
  if (interop != nullptr) {
    cuda::ImportedInterop imported = cuda::importInterop(std::move(fds), *interop);
    m.renderDone = std::move(imported.renderDone);
    m.simDone = std::move(imported.simDone);
    m.renderBuffers = std::move(imported.renderBuffers);
    semaphores = cuda::FrameSemaphores{m.renderDone.get(), m.simDone.get(), m.protocol};
  } else {
    m.computeOutput = cuda::DeviceArray<float4>(m.capacityFor(config));
  }

  const HostStart hostStart = makeHostStart(config, start);
  if (m.collectives) {
    for (std::size_t r = 1; r < gpus.size(); ++r) {
      Impl::Peer& p = m.peers.emplace_back();
      p.device = gpus[r];
      const OnDevice on(p.device, device);
      p.stream = cuda::makeStream();
      nvtxNameCudaStreamA(p.stream.get(), ("graphsim nbody frames, GPU " + std::to_string(p.device)).c_str());
      p.timing.create();
    }
    m.clearBlowUp();
    m.allocateDiagnostics(); // not sampled on several GPUs (docs/MULTI-GPU.md); kept so the accessors stay uniform
    m.layOutSeveral(config, hostStart, {});
    m.config = config;
    m.config.diagnosticsEvery = 0;
    return;
  }
  m.bodies = cuda::DeviceBodies(hostStart.state, hostStart.accel, hostStart.colour, m.capacityFor(config));
  m.startBodies(m.bodies, config.params);
  m.clearBlowUp();
  m.allocateDiagnostics();
  m.graph.emplace(m.bodies.view(), config.substeps, config.params, config.enabled, semaphores ? &*semaphores : nullptr,
                  m.outputFor(0), cuda::ReportBlowUpArgs{m.blowUpState.get(), m.d_blowUpWord},
                  cuda::DiagnosticsBuffers{m.diagnosticsState.get(), m.d_diagnosticsReport}, config.diagnosticsEvery);
  m.config = config;
}

CudaBackend::~CudaBackend() { cuda::finishOrRetire(impl_, "CUDA backend"); }

void CudaBackend::reset(const SceneConfig& config) {
  validateSceneConfig(config);
  Impl& m = *impl_;
  if (m.interop() && static_cast<std::uint64_t>(config.bodies) > m.renderCapacity) {
    throw std::invalid_argument("bodies: " + std::to_string(config.bodies) + " do not fit the render buffers (" +
                                std::to_string(m.renderCapacity) + " bodies)");
  }
  const HostStart start = makeHostStart(config, m.leapfrogStart); // may throw (initial conditions): nothing touched
  m.synchronize(); // no launch may still use the arrays about to be overwritten or replaced
  if (m.collectives) {
    m.layOutSeveral(config, start, "one GPU of several: bodies laid out afresh");
    m.config = config;
    m.config.diagnosticsEvery = 0;
    m.clearBlowUp();
    return;
  }
  if (config.substeps == m.graph->substeps() && static_cast<std::size_t>(config.bodies) <= m.bodies.capacity()) {
    m.resetInPlace(config, start);
  } else {
    m.resetReallocating(config, start);
  }
  m.graph->setDiagnosticsEvery(config.diagnosticsEvery); // between 0 and > 0: the node added or removed (a rebuild)
  m.config = config;
  m.clearBlowUp(); // a new state: an old blow-up no longer describes it (nothing runs: synchronised above)
  m.clearDiagnostics();
}

void CudaBackend::setParams(const NBodyParams& params) {
  impl_->graph->setParams(params);
  for (Impl::Peer& p : impl_->peers) p.graph->setParams(params); // applied by its next launch, on its device
  impl_->config.params = params;
}

void CudaBackend::setStageEnabled(Stage stage, bool enabled) {
  Impl& m = *impl_;
  m.graph->setStageEnabled(stage, enabled);
  for (Impl::Peer& p : m.peers) {
    const OnDevice on(p.device, m.device);
    p.graph->setStageEnabled(stage, enabled);
  }
  m.config.enabled[static_cast<int>(stage)] = m.graph->stageEnabled(stage);
}

bool CudaBackend::stageEnabled(Stage stage) const { return impl_->graph->stageEnabled(stage); }

void CudaBackend::step() {
  Impl& m = *impl_;
  if (m.interop()) {
    // With interop every frame waits on renderDone and signals simDone: only the frame loop, which submits the
    // matching Vulkan work, may launch frames (launchFrame).
    throw std::logic_error("CudaBackend::step() is compute-only; with interop the frame loop calls launchFrame(k)");
  }
  m.launch(m.nextComputeFrame++);
  m.synchronize();
}

void CudaBackend::launchFrame(std::uint64_t k) { impl_->launch(k); }

void CudaBackend::synchronize() { impl_->synchronize(); }

void CudaBackend::download(BodyState& state, std::vector<float>& colour) {
  Impl& m = *impl_;
  m.synchronize();
  m.bodies.download(state, colour);
  // Several GPUs: positions and colours are gathered everywhere; each GPU's velocities are its own slice's.
  for (const Impl::Peer& p : m.peers) {
    const cuda::GraphSlice& share = *p.graph->slice();
    p.bodies.downloadVelocities(static_cast<std::size_t>(share.begin), static_cast<std::size_t>(share.end),
                                state.vel.data());
  }
}

void CudaBackend::setState(BodyState state, std::vector<Float4> accel) {
  Impl& m = *impl_;
  const auto n = static_cast<std::size_t>(m.config.bodies);
  if (state.posMass.size() != n || state.vel.size() != n || accel.size() != n) {
    throw std::invalid_argument("setState: " + std::to_string(state.posMass.size()) + " positions, " +
                                std::to_string(state.vel.size()) + " velocities and " + std::to_string(accel.size()) +
                                " accelerations for a run of " + std::to_string(n) + " bodies");
  }
  std::vector<float> colour; // what the colour stage computes from the velocities; the next frame writes its own
  cpu::computeColour(state.vel, m.config.params.colourScale, colour);
  m.synchronize(); // no launch may still use the arrays about to be overwritten
  m.bodies.upload(state, accel, colour);
  for (Impl::Peer& p : m.peers) { // several GPUs: every GPU holds the whole state alike, as after a reset
    const OnDevice on(p.device, m.device);
    p.bodies.upload(state, accel, colour);
  }
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy)); // the uploads' pageable copies (see startBodies)
  m.clearBlowUp();
  if (!m.collectives) m.clearDiagnostics(); // several GPUs run without diagnostics (as reset)
}

std::vector<Float4> CudaBackend::downloadAccelerations() {
  Impl& m = *impl_;
  m.synchronize();
  std::vector<Float4> accel = m.bodies.downloadAccelerations();
  for (const Impl::Peer& p : m.peers) {
    const cuda::GraphSlice& share = *p.graph->slice();
    p.bodies.downloadAccelerations(static_cast<std::size_t>(share.begin), static_cast<std::size_t>(share.end),
                                   accel.data());
  }
  return accel;
}

const std::vector<NodeInfo>& CudaBackend::nodes() const {
  const Impl& m = *impl_;
  if (m.peers.empty()) return m.graph->nodes();
  // Rank 0's nodes, then every peer's named "<node>@gpu<device>". Assigned element by element into the same vector,
  // so that reading it again allocates nothing once the names fit.
  std::size_t total = m.graph->nodes().size();
  for (const Impl::Peer& p : m.peers) total += p.graph->nodes().size();
  m.allNodes.resize(total);
  std::size_t i = 0;
  for (const NodeInfo& n : m.graph->nodes()) m.allNodes[i++] = n;
  for (const Impl::Peer& p : m.peers) {
    const std::string suffix = "@gpu" + std::to_string(p.device);
    for (const NodeInfo& n : p.graph->nodes()) {
      NodeInfo& out = m.allNodes[i++];
      out = n;
      out.name += suffix;
    }
  }
  return m.allNodes;
}

bool CudaBackend::setProfiling(bool enabled) {
  Impl& m = *impl_;
  m.synchronize(); // the marks change the topology: no launch may still run the old exec
  m.graph->setProfiling(enabled);
  for (Impl::Peer& p : m.peers) {
    const OnDevice on(p.device, m.device);
    p.graph->setProfiling(enabled);
  }
  return true;
}

UpdateCounters CudaBackend::counters() const { return impl_->graph->counters(); }

const SceneConfig& CudaBackend::config() const { return impl_->config; }

std::optional<BlowUp> CudaBackend::blowUp() const {
  impl_->harvestBlowUp();
  return impl_->blowUp;
}

void CudaBackend::setDiagnosticsEnabled(bool enabled) { impl_->graph->setDiagnosticsEnabled(enabled); }

bool CudaBackend::diagnosticsEnabled() const { return impl_->graph->diagnosticsEnabled(); }

std::optional<DiagnosticsSample> CudaBackend::diagnostics() const {
  impl_->harvestDiagnostics();
  return impl_->diagnostics;
}

double CudaBackend::lastSimGpuMs() const { return impl_->lastSimGpuMs(); }

std::vector<int> CudaBackend::gpus() const {
  std::vector<int> list{impl_->device};
  for (const Impl::Peer& p : impl_->peers) list.push_back(p.device);
  return list;
}

std::vector<double> CudaBackend::gpuMs(std::uint64_t k) const {
  const Impl& m = *impl_;
  std::vector<double> ms{m.timing.gpuMs(k).value_or(-1.0)};
  for (const Impl::Peer& p : m.peers) {
    ms.push_back(p.timing.gpuMs(k).value_or(-1.0));
  }
  return ms;
}

double CudaBackend::lastUpdateHostUs() const { return impl_->graph->lastUpdateHostUs(); }

std::int64_t CudaBackend::capacity() const { return static_cast<std::int64_t>(impl_->bodies.capacity()); }

void CudaBackend::dumpGraphDot(const std::filesystem::path& path) const { impl_->graph->dumpDot(path); }

void CudaBackend::injectKernelFailure(Stage stage, std::uint64_t frame, BreakNode breakNode) {
  impl_->injectedFailure = Impl::InjectedFailure{stage, frame, breakNode};
}

void CudaBackend::setLaunchMode(LaunchMode mode, ComparisonLaunch launch) {
  if (launch != nullptr && !impl_->peers.empty()) {
    throw std::invalid_argument("the comparison launch modes run on one GPU; this backend has " +
                                std::to_string(impl_->ranks()));
  }
  impl_->mode = mode;
  impl_->comparisonLaunch = launch;
}

LaunchMode CudaBackend::launchMode() const { return impl_->mode; }

void CudaBackend::setProgrammaticLaunch(bool enabled) {
  Impl& m = *impl_;
  if (m.graph->programmaticLaunch() == enabled) return;
  m.synchronize(); // a rebuild needs the graph idle (FrameGraph::rebuild)
  m.graph->setProgrammaticLaunch(enabled);
  for (Impl::Peer& p : m.peers) {
    const OnDevice on(p.device, m.device);
    p.graph->setProgrammaticLaunch(enabled);
  }
}

LaunchHostTiming CudaBackend::lastLaunchHostTiming() const {
  return {impl_->graph->lastUpdateHostUs(), impl_->graph->lastLaunchHostUs()};
}

void CudaBackend::waitForFrame(std::uint64_t k) { impl_->waitForFrame(k); }

std::optional<double> CudaBackend::frameGpuMs(std::uint64_t k) const { return impl_->timing.gpuMs(k); }

void CudaBackend::copyRenderOutput(Float4* dst) {
  Impl& m = *impl_;
  if (m.interop()) {
    throw std::logic_error(
        "CudaBackend::copyRenderOutput is for the compute-only graph; with interop the render "
        "buffers are Vulkan's");
  }
  const std::size_t n = static_cast<std::size_t>(m.config.bodies);
  // Sized to the capacity once: count changes within it allocate nothing here.
  if (m.hostOutput.size() < n) m.hostOutput = cuda::PinnedArray<float4>(std::max(n, m.computeOutput.size()));
  CUDA_CHECK(cudaMemcpyAsync(m.hostOutput.get(), m.computeOutput.get(), n * sizeof(float4), cudaMemcpyDeviceToHost,
                             m.stream.get()));
  m.synchronize();
  if (n > 0) std::memcpy(static_cast<void*>(dst), m.hostOutput.get(), n * sizeof(float4));
}

} // namespace graphsim
