// NBodyCudaBackend's private state, shared by its source files: nbody_cuda_backend.cpp (construction and the public
// API) and the Impl's own members below (launch, waits, blow-up and diagnostics reports, resets on one or several
// GPUs). Internal to compute/cuda.
//
// Ownership and freeing order (docs/FRAME.md, Shutdown): Impl declares the frame resources first (stream, timing
// events, imported semaphores and render buffers: compute/cuda/frame_resources.h), then the state arrays and last the
// graph, so that destruction runs in reverse: graph exec and graphs, state, mapped pointers + external memory
// (cudaFree, then cudaDestroyExternalMemory, per buffer), semaphores, events, stream. ~NBodyCudaBackend first waits
// (bounded) for the stream, so nothing is destroyed while the GPU may use it.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/cuda/cuda_check.h"
#include "compute/cuda/cuda_handles.h"
#include "compute/cuda/external_interop.h"
#include "compute/cuda/frame_resources.h"
#include "compute/cuda/frame_timings.h"
#include "compute/cuda/mapped_report.h"
#include "compute/cuda/poll.h"
#include "compute/nbody/cuda/collectives.h"
#include "compute/nbody/cuda/device_bodies.h"
#include "compute/nbody/cuda/graph_slices.h"
#include "compute/nbody/cuda/leapfrog_start.h"
#include "compute/nbody/cuda/nbody_frame_graph.h"
#include "compute/nbody/cuda/rank_channel.h"
#include "compute/nbody/nbody_cuda_backend.h"
#include "compute/nbody/nbody_cuda_instruments.h"
#include "compute/protocol.h"

namespace graphsim {

// The Impl's vocabulary (this header is included by nbody_cuda_backend.cpp only).

using Clock = std::chrono::steady_clock;

// Launches whose frame index the host remembers for the blow-up report. The report of a launch is read at the
// latest at the launch kLaunchLog later (Impl::launch), and every loop here keeps at most F <= 4 frames queued
// (renderDone throttle, waitForFrame, step()), so the entry it needs is still there.
constexpr std::size_t kLaunchLog = 64;

// The host state a reset starts from. LeapfrogStart::Host builds it exactly as NBodyCpuBackend::reset does (same
// functions, same order), so that both backends start bit-identical: bodies, leapfrog half-step velocities, a(0)
// rounded from double, and the colour of the initial velocities. LeapfrogStart::Device stops after the bodies
// (velocities at t = 0, accel and colour zero): startLeapfrogOnDevice does the rest on the GPU.
struct HostStart {
  BodyState state;
  std::vector<Float4> accel;
  std::vector<float> colour;
};

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

// The host state a reset starts from (nbody_cuda_backend.cpp).
HostStart makeHostStart(const NBodyConfig& config, LeapfrogStart start);

struct NBodyCudaBackend::Impl {
  NBodyConfig config;
  LeapfrogStart leapfrogStart = LeapfrogStart::Device;
  LaunchMode mode = LaunchMode::Graph;
  ComparisonLaunch comparisonLaunch = nullptr; // set with a comparison mode (NBodyCudaInstruments::setLaunchMode)

  cuda::FrameResources frames; // the stream, timing ring, interop imports (F render buffers) and the bounded waits

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
  mutable std::optional<NBodyBlowUp> blowUp;

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

  std::optional<cuda::NBodyFrameGraph> graph;

  struct Peer {
    int device = 0;
    cuda::Stream stream;
    cuda::FrameTimings timing;
    cuda::DeviceBodies bodies;
    cuda::DeviceArray<unsigned int> tileFlags;
    cuda::DeviceArray<cuda::BlowUpDeviceState> blowUpState;
    cuda::PinnedArray<unsigned long long> blowUpWord;
    unsigned long long* d_blowUpWord = nullptr;
    std::optional<cuda::NBodyFrameGraph> graph;
  };
  std::deque<Peer> peers;                 // a deque: peers are built in place and never move
  mutable std::vector<NodeInfo> allNodes; // nodes() with peers: rank 0's, then each peer's ("forces@gpu1")

  int ranks() const { return collectives ? collectives->ranks() : 1; } // the job's: this process's GPUs or more

  // One process of several (docs/MULTI-GPU.md, "Roles"; compute/nbody/rank_commands.h): rank 0 leads, recording what
  // changes the simulation and broadcasting it before the launch, gather or reset that follows it; the other ranks
  // follow (NBodyCudaBackend::follow), applying the same calls to their own graph in the same order.
  enum class Role { Alone, Leads, Follows };
  Role role = Role::Alone;
  std::unique_ptr<cuda::RankChannel> channel;
  std::vector<RankCommand> pending; // rank 0's, since its last broadcast
  std::uint32_t sequence = 0;       // the next message's
  RankMessage outgoing;

  void tell(const RankCommand& command) {
    if (role == Role::Leads) pending.push_back(command);
  }
  // Rank 0: everything told since the last broadcast, queued on the frame stream before what comes next.
  void broadcastPending() {
    if (role != Role::Leads) return;
    std::span<const RankCommand> rest(pending);
    do {
      const std::size_t sent = encodeRankMessage(rest, sequence++, outgoing);
      channel->send(outgoing);
      rest = rest.subspan(sent);
    } while (!rest.empty());
    pending.clear();
  }
  // The other ranks: rank 0's next message (bounded wait).
  std::vector<RankCommand> receive() { return decodeRankMessage(channel->receive(), sequence++); }

  // Before anything else of a job of several processes runs on the stream: the roles, and rank 0's configuration
  // checked on every other rank, so that a rank started otherwise stops here instead of running another simulation.
  void joinRoles(const ProcessRank& place, const NBodyConfig& starting) {
    role = place.rank == 0 ? Role::Leads : Role::Follows;
    channel = std::make_unique<cuda::RankChannel>(*collectives, frames.stream.get(), frames.waitTimeout);
    if (role == Role::Leads) {
      tell(RankCommand{.kind = RankCommandKind::Hello, .value = configFingerprint(starting)});
      broadcastPending();
      return;
    }
    const std::vector<RankCommand> hello = receive();
    if (hello.size() != 1 || hello[0].kind != RankCommandKind::Hello)
      throw std::runtime_error("rank " + std::to_string(place.rank) + ": rank 0's first message is not its hello");
    if (hello[0].value != configFingerprint(starting)) {
      throw std::invalid_argument("rank " + std::to_string(place.rank) +
                                  " was started with another configuration than rank 0 (scene file, count, seed or "
                                  "parameters): start every rank with the same command line");
    }
  }

  // One rank of a job of several processes: the velocities and accelerations of the other ranks' shares, which the
  // frame never gathers, from their processes (every rank calls this after the same frame). Then this process's
  // arrays hold the whole state. Nothing to do when every GPU is in this process.
  void gatherOtherProcessesShares() {
    if (!collectives || collectives->localRanks() == collectives->ranks()) return;
    tell(RankCommand{.kind = RankCommandKind::Gather});
    broadcastPending();
    const std::size_t count = 4 * static_cast<std::size_t>(cuda::shareFor(static_cast<int>(config.bodies), ranks()));
    collectives->issue({frames.stream.get()}, [&](int rank, cudaStream_t s) {
      collectives->allGatherFloats(rank, reinterpret_cast<float*>(bodies.view().vel), count, s);
      collectives->allGatherFloats(rank, reinterpret_cast<float*>(bodies.view().accel), count, s);
    });
    waitForStream(frames.stream.get(), "gathering the other ranks' velocities and accelerations");
  }
  template <typename Fn>
  void onPeers(const Fn& fn) { // fn(peer) for every peer, with its GPU current
    for (Peer& p : peers) {
      const OnDevice on(p.device, device);
      fn(p);
    }
  }

  struct InjectedFailure {
    NBodyStage stage;
    std::uint64_t frame;
    BreakNode breakNode;
  };
  std::optional<InjectedFailure> injectedFailure; // --inject kernel-fail (test hook)
  std::string injectedNode;                       // the node it broke, named in the errors that follow

  std::uint64_t nextComputeFrame = 0;

  bool interop() const { return frames.interop(); }
  float4* outputFor(std::uint64_t frame) const {
    return interop() ? frames.renderBuffer<float4>(frame) : computeOutput.get();
  }

  void launch(std::uint64_t frame) {
    tell(RankCommand{.kind = RankCommandKind::Frame, .value = frame});
    broadcastPending();
    harvestBlowUp(); // before this launch's log entry replaces the one kLaunchLog launches back
    // Events on the stream around the graph launch: the GPU time includes the wait node, which with frames in
    // flight usually finds renderDone already signalled.
    frames.timed(frame, [&] {
      if (injectedFailure && injectedFailure->frame == frame)
        injectedNode = injectedFailure->breakNode(*graph, injectedFailure->stage);
      try {
        if (comparisonLaunch == nullptr) {
          graph->launch(frame, outputFor(frame), frames.stream.get());
        } else {
          comparisonLaunch(*graph, cuda::FrameLaunch{frame, outputFor(frame), frames.stream.get()});
        }
        // The peers' graphs need no wait: their first collective waits for rank 0's, which waited for renderDone.
        onPeers([&](Peer& p) {
          p.timing.begin(frame, p.stream.get());
          p.graph->launch(frame, nullptr, p.stream.get());
          p.timing.end(frame, p.stream.get());
        });
      } catch (const CudaError& e) {
        if (injectedNode.empty()) throw;
        throw CudaError(e.code, std::string(e.what()) + " [node " + injectedNode +
                                    " has the launch configuration that --inject kernel-fail gave it]");
      }
    });
    launchLog[nextLaunchOrdinal % kLaunchLog] = {nextLaunchOrdinal, frame};
    ++nextLaunchOrdinal;
  }

  // A fresh report: the GPU's word and launch count on the stream (ordered before every later launch), the host word
  // directly. The caller makes sure no launch is running. The host word is mapped, so kernels write it in place.
  static void clearBlowUpOf(cuda::DeviceArray<cuda::BlowUpDeviceState>& state,
                            cuda::PinnedArray<unsigned long long>& word, unsigned long long*& d_word, cudaStream_t s) {
    if (!state.get()) {
      state = cuda::DeviceArray<cuda::BlowUpDeviceState>(1);
      word = cuda::PinnedArray<unsigned long long>(1, cudaHostAllocMapped);
      d_word = cuda::mappedOnDevice(word);
    }
    CUDA_CHECK(cudaMemsetAsync(&state.get()->first, 0xFF, sizeof(unsigned int), s)); // = kNoBlowUp
    CUDA_CHECK(cudaMemsetAsync(&state.get()->launches, 0, 3 * sizeof(unsigned int), s));
    static_assert(offsetof(cuda::BlowUpDeviceState, launches) == sizeof(unsigned int) &&
                  sizeof(cuda::BlowUpDeviceState) == 4 * sizeof(unsigned int));
    *word.get() = ~0ull;
  }
  void clearBlowUp() {
    clearBlowUpOf(blowUpState, blowUpWord, d_blowUpWord, frames.stream.get());
    onPeers([](Peer& p) { clearBlowUpOf(p.blowUpState, p.blowUpWord, p.d_blowUpWord, p.stream.get()); });
    nextLaunchOrdinal = 0;
    blowUp.reset();
  }

  void allocateDiagnostics() {
    diagnosticsState = cuda::DeviceArray<cuda::DiagnosticsDeviceState>(1);
    CUDA_CHECK(cudaMemset(diagnosticsState.get(), 0, sizeof(cuda::DiagnosticsDeviceState)));
    diagnosticsReport = cuda::PinnedArray<cuda::DiagnosticsHostReport>(1, cudaHostAllocMapped);
    std::memset(static_cast<void*>(diagnosticsReport.get()), 0, sizeof(cuda::DiagnosticsHostReport));
    d_diagnosticsReport = cuda::mappedOnDevice(diagnosticsReport);
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
    if (const auto h = cuda::readMappedReport(diagnosticsReport.get()))
      diagnostics = DiagnosticsSample{h->frame, diagnosticsSeries, h->sums};
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
    NBodyBlowUp b;
    // The else branch is not reachable through the loops here (see kLaunchLog); they number frames consecutively.
    const std::uint32_t launchesAgo = nextLaunchOrdinal - 1 - ordinal;
    b.frame = r.ordinal == ordinal ? r.frame : frames.lastLaunched.value_or(0) - launchesAgo;
    const unsigned int node = cuda::blowUpNode(code);
    b.stage = static_cast<NBodyStage>(node % kStageCount);
    b.substep = static_cast<int>(node / kStageCount);
    switch (cuda::blowUpQuantity(code)) {
    case cuda::kBlowUpAcceleration: b.what = "non-finite acceleration"; break;
    case cuda::kBlowUpVelocity: b.what = "non-finite velocity"; break;
    default: b.what = "non-finite position"; break;
    }
    blowUp = std::move(b);
  }

  // Still running past the timeout: the GPU may be using everything (e.g. a semaphore wait that never completes).
  void synchronize() const {
    for (const Peer& p : peers) {
      const bool done = cuda::pollCudaUntilDone(
          [&] { return cudaStreamQuery(p.stream.get()); }, "cudaStreamQuery",
          [&] { return "GPU " + std::to_string(p.device) + "'s frame graph failed (a kernel or an NCCL collective)"; },
          Clock::now() + frames.waitTimeout);
      if (!done)
        throw TimeoutError(frames.stalled().what() + (" (GPU " + std::to_string(p.device) + ")"),
                           TimeoutError::Side::Cuda);
    }
    frames.synchronize([&] {
      const auto& k = frames.lastLaunched;
      return "the frame graph failed (" + (k ? "frame " + std::to_string(*k) : "before the first frame") +
             "; a kernel or semaphore operation" + injectedText() + ")";
    });
  }

  // Bounded wait for frame k's end event; frames older than the event ring are covered by a stream synchronize.
  void waitForFrame(std::uint64_t k) const {
    if (!frames.lastLaunched || k > *frames.lastLaunched)
      throw std::logic_error("waitForFrame(" + std::to_string(k) + "): that frame has not been launched");
    if (frames.timings.endOf(k) == nullptr) return synchronize(); // every GPU's stream, not only rank 0's
    frames.waitForFrame(k, [&] {
      return "frame " + std::to_string(k) + " failed (a kernel or semaphore operation" + injectedText() + ")";
    });
  }
  std::string injectedText() const {
    return injectedNode.empty() ? "" : "; --inject kernel-fail broke node " + injectedNode;
  }

  // A freshly uploaded state: bodies were copied with cudaMemcpy, whose pageable host-to-device DMA may still be
  // running when it returns, on the legacy stream that our non-blocking stream does not order against. Wait for it
  // (plain copies: this cannot hang), then start the leapfrog on the GPU if asked.
  // On several GPUs every GPU starts the whole state alike (the kernels are deterministic): the same bytes everywhere.
  void startBodies(const cuda::DeviceBodies& fresh, const NBodyParams& params, cudaStream_t on = nullptr) {
    CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    if (leapfrogStart == LeapfrogStart::Device) {
      // eps^2 as NBodyFrameGraph::stageSpec computes it, so a(0) is what the first forces node would compute.
      const cuda::LeapfrogStartParams start{params.G,
                                            params.softening * params.softening,
                                            params.dt,
                                            params.colourScale,
                                            params.theta,
                                            params.leafSize,
                                            params.treeTolerance};
      const cuda::GraphExec tree =
          cuda::startLeapfrogOnDevice(fresh.view(), start, on != nullptr ? on : frames.stream.get());
      if (on == nullptr) synchronize();
      else waitForStream(on, "the leapfrog start");
    }
  }

  // Bounded wait for one stream of this backend's set-up work (`what`: "the leapfrog start").
  void waitForStream(cudaStream_t s, const std::string& what) const {
    const bool done = cuda::pollCudaUntilDone([&] { return cudaStreamQuery(s); }, "cudaStreamQuery",
                                              [&] { return what + " failed"; }, Clock::now() + frames.waitTimeout);
    if (!done) {
      throw TimeoutError("CUDA side stalled: " + what + " did not complete within " +
                             std::to_string(frames.waitTimeout.count()) + " ms",
                         TimeoutError::Side::Cuda);
    }
  }

  // Several GPUs: lays `next` out over the ranks (shares, fresh arrays on every GPU, the collectives captured for them)
  // and builds or rebuilds every graph. Every reset takes this path (the shares follow the count). Nothing runs.
  void layOutSeveral(const NBodyConfig& next, const HostStart& start, const std::string& cause) {
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
    std::vector<cuda::RankArrays> arrays{{fresh.view(), freshFlags.get(), frames.stream.get()}};
    for (std::size_t i = 0; i < peers.size(); ++i) {
      arrays.push_back({peerBodies[i].view(), peerFlags[i].get(), peers[i].stream.get()});
    }
    cuda::Slices slices = cuda::captureSlices(*collectives, arrays, tiles, n, S, next.substeps,
                                              [&](cudaStream_t s, const std::string& what) { waitForStream(s, what); });

    cuda::DeviceArray<float4> freshOutput;
    if (!interop()) freshOutput = cuda::DeviceArray<float4>(capacity);
    float4* output = interop() ? outputFor(frames.lastLaunched.value_or(0)) : freshOutput.get();
    // A rank's graph built over its slice, or rebuilt with it. semaphores: rank 0's with interop (copied by the graph).
    const auto place = [&](std::optional<cuda::NBodyFrameGraph>& g, const cuda::BodiesView& view,
                           const cuda::FrameSemaphores* semaphores, float4* out, cuda::ReportBlowUpArgs blowUpArgs,
                           const cuda::GraphSlice& slice) {
      if (!g) {
        g.emplace(view, next.substeps, next.params, next.enabled, semaphores, out, blowUpArgs,
                  cuda::DiagnosticsBuffers{}, 0, &slice);
        return;
      }
      g->setSlice(slice);
      g->rebuild(view, next.substeps, next.params, next.enabled, out, cause);
    };
    const cuda::FrameSemaphores semaphores = frames.semaphores();
    place(graph, fresh.view(), interop() ? &semaphores : nullptr, output, {blowUpState.get(), d_blowUpWord},
          slices.perRank[0]);
    for (std::size_t i = 0; i < peers.size(); ++i) {
      Peer& p = peers[i];
      const OnDevice on(p.device, device);
      place(p.graph, peerBodies[i].view(), nullptr, nullptr, {p.blowUpState.get(), p.d_blowUpWord},
            slices.perRank[i + 1]);
      p.bodies = std::move(peerBodies[i]);
      p.tileFlags = std::move(peerFlags[i]);
    }
    // Every graph now refers to the new arrays and collectives only: the old ones are freed here.
    bodies = std::move(fresh);
    tileFlags = std::move(freshFlags);
    if (!interop()) computeOutput = std::move(freshOutput);
    capturedCollectives = std::move(slices.captured);
  }

  // Bodies the state arrays of `next` are allocated for: its capacity (NBodyConfig::maxBodies), at least its
  // count; with interop at most what the render buffers hold (a count beyond them cannot be drawn).
  std::size_t capacityFor(const NBodyConfig& next) const {
    std::uint64_t capacity = static_cast<std::uint64_t>(bodyCapacity(next));
    if (interop())
      capacity = std::max(std::min(capacity, frames.renderCapacity), static_cast<std::uint64_t>(next.bodies));
    return static_cast<std::size_t>(capacity);
  }

  // A reset within the arrays' capacity and with the same substeps (issue 14): the new state is uploaded into the
  // same arrays and the graph is told the new count, parameters and enable states like a live edit. The next
  // launch updates the kernel nodes whose arguments or grids changed (cudaGraphExecKernelNodeSetParams, counted in
  // nodeUpdates, timed in lastUpdateHostUs): no cudaGraphExecUpdate, no instantiation. The caller synchronised.
  void resetInPlace(const NBodyConfig& next, const HostStart& start) {
    bodies.upload(start.state, start.accel, start.colour);
    startBodies(bodies, next.params);
    graph->setBodies(bodies.view());
    graph->setParams(next.params);
    for (const NBodyStageInfo& row : kNBodyStages) {
      graph->setStageEnabled(row.stage, next.enabled[static_cast<std::size_t>(row.stage)]);
    }
  }

  // Any other reset: new arrays (a count beyond the capacity, or another substep count), then the graph rebuilt
  // with cudaGraphExecUpdate, falling back to a fresh instantiation; the counters record which and why. The old
  // arrays are freed only once the graph refers to the new ones; the capacity never shrinks. The caller synchronised.
  void resetReallocating(const NBodyConfig& next, const HostStart& start) {
    const std::size_t capacity = std::max(capacityFor(next), bodies.capacity());
    std::string cause;
    if (static_cast<std::size_t>(next.bodies) > bodies.capacity()) {
      cause = "body count " + std::to_string(next.bodies) + " exceeds the capacity " +
              std::to_string(bodies.capacity()) + ": buffers reallocated for " + std::to_string(capacity);
    }
    if (usesTree(next) != bodies.view().tree.present()) {
      cause = std::string("forces ") + (usesTree(next) ? "tree: its arrays allocated" : "direct: the tree's freed");
    }
    cuda::DeviceBodies fresh(start.state, start.accel, start.colour, capacity, usesTree(next));
    startBodies(fresh, next.params);
    cuda::DeviceArray<float4> freshOutput;
    if (!interop()) freshOutput = cuda::DeviceArray<float4>(capacity);
    float4* output = interop() ? outputFor(frames.lastLaunched.value_or(0)) : freshOutput.get();
    graph->rebuild(fresh.view(), next.substeps, next.params, next.enabled, output, cause);
    // The graph now refers to the new arrays only: the old ones are freed here.
    bodies = std::move(fresh);
    if (!interop()) computeOutput = std::move(freshOutput);
  }
};

} // namespace graphsim
