// The product backend: the nbody stages as CUDA kernels in one instantiated CUDA graph per frame.
//   [ext-sem wait renderDone >= k-F+1] -> substeps x (forces, attractor, integrate, damping, boundary) -> colour
//   -> write_render into render buffer k % F -> [ext-sem signal simDone = k+1]
// Without interop (compute-only: tests, --sim-only) the graph has no semaphore nodes and write_render targets an
// internal buffer. This header is plain C++: no CUDA or Vulkan headers, so app/ and tests include it freely.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compute/errors.h"
#include "compute/interop.h"
#include "compute/nbody/nbody_backend.h"
#include "compute/process_rank.h"

namespace graphsim {

// The comparison launch modes and host-time split that bench and the tests reach through
// compute/nbody/nbody_cuda_instruments.h.
enum class LaunchMode;
struct LaunchHostTiming;
namespace cuda {
class NBodyFrameGraph; // compute/nbody/cuda/nbody_frame_graph.h
struct FrameLaunch;    // the same
} // namespace cuda

// Where a(0), which starts the leapfrog, is computed.
enum class LeapfrogStart {
  Device, // the forces kernel once, then the half-kick on the GPU: milliseconds at 10^6 bodies (the default)
  Host, // startLeapfrog's double-precision direct sum (initial_conditions.h), bit-identical to NBodyCpuBackend's start;
        // O(N^2) on the host (about 90 s at 10^6 bodies), for tests that compare with the CPU bit for bit
};

class NBodyCudaBackend final : public NBodyBackend {
public:
  // device: CUDA device index. interop == nullptr: compute-only graph; else its fds are this constructor's (see
  // compute/interop.h). Throws EnvironmentError (no such CUDA device), InteropImportError, or CudaError.
  NBodyCudaBackend(const NBodyConfig& config, int device, const InteropDesc* interop = nullptr,
                   std::chrono::milliseconds waitTimeout = std::chrono::milliseconds(5000),
                   LeapfrogStart start = LeapfrogStart::Device);
  // Several GPUs (docs/MULTI-GPU.md): gpus[0] is the one the renderer shares (interop, write_render), every GPU
  // integrates one share of the bodies in its own frame graph, and NCCL collectives inside the graphs combine the
  // forces and gather the positions. One GPU: the constructor above. Throws EnvironmentError naming GPUs that do not
  // exist, or saying NCCL is missing; std::invalid_argument for a GPU listed twice. On several GPUs live
  // diagnostics are off (config().diagnosticsEvery reads 0), every reset lays the bodies out afresh (a rebuild),
  // and the comparison launch modes are refused.
  NBodyCudaBackend(const NBodyConfig& config, const std::vector<int>& gpus, const InteropDesc* interop = nullptr,
                   std::chrono::milliseconds waitTimeout = std::chrono::milliseconds(5000),
                   LeapfrogStart start = LeapfrogStart::Device);
  // One rank of a job of one process per GPU (docs/MULTI-GPU.md, "One process per GPU"): this process's GPU
  // `device` is rank place.rank of place.world and integrates that rank's share; the graph is the one a rank of
  // --gpus runs. Only rank 0 may have interop (it writes the render output). Waits, at most waitTimeout, for every
  // rank to join (TimeoutError). What several GPUs of one process do not have, a rank has not either.
  // Roles (docs/MULTI-GPU.md, "Roles"): rank 0 is driven like any backend; every call that changes the simulation
  // (reset, setParams, setStageEnabled, a launch, the gather of download() and downloadAccelerations()) is also
  // broadcast to the other ranks, in order, ahead of the launch or gather it precedes, and the destructor tells them
  // that the run is over. The other ranks call follow(), nothing else. A rank started with another configuration
  // (scene file, count, seed, parameters) than rank 0's is refused here: std::invalid_argument. setState is refused
  // on rank 0 (the other ranks cannot be handed a state).
  NBodyCudaBackend(const NBodyConfig& config, int device, const ProcessRank& place,
                   const InteropDesc* interop = nullptr,
                   std::chrono::milliseconds waitTimeout = std::chrono::milliseconds(5000),
                   LeapfrogStart start = LeapfrogStart::Device);
  ~NBodyCudaBackend()
      override; // synchronises (bounded), then frees in order: mapped pointers, external memory, semaphores

  std::string_view name() const override { return "cuda"; }
  // Within the capacity (a count up to capacity(), same substeps): the state is uploaded into the same arrays and
  // the kernel nodes are updated at the next launch (node updates only, issue 14). Otherwise new arrays (for
  // max(bodies, maxBodies), never fewer than before; with interop at most the render buffers') and a whole-graph
  // update, falling back to re-instantiation; counters().lastFallbackReason says why ("body count 300000 exceeds
  // the capacity 262144: ...").
  void reset(const NBodyConfig& config) override;
  void setParams(const NBodyParams& params) override;
  void setStageEnabled(NBodyStage stage, bool enabled) override;
  bool stageEnabled(NBodyStage stage) const override;
  void step() override; // compute-only: launch one frame and wait (bounded)
  void download(BodyState& state, std::vector<float>& colour) override;
  std::vector<Float4> downloadAccelerations() override;
  // Waits for the frames in flight, then uploads the state into the same arrays (on every GPU of several): the graph
  // keeps its pointers, nothing is rebuilt.
  void setState(BodyState state, std::vector<Float4> accel) override;
  const std::vector<NodeInfo>& nodes() const override;
  bool setProfiling(bool enabled) override;
  UpdateCounters counters() const override;
  const NBodyConfig& config() const override;
  // One load of pinned host memory that the graph's report_blow_up node writes (docs/FRAME.md); never waits. A
  // blow-up in frame k is seen once frame k has completed on the GPU: in the frame loop, by the time frame k+F is
  // launched (the renderDone throttle before it implies that).
  std::optional<NBodyBlowUp> blowUp() const override;
  // With config().diagnosticsEvery > 0: the graph's diagnostics node (docs/DIAGNOSTICS.md). diagnostics() reads the
  // mapped pinned report the node's kernel writes (a few loads, no CUDA call, never waits): a sample of frame k is
  // there once frame k completed on the GPU.
  void setDiagnosticsEnabled(bool enabled) override;
  bool diagnosticsEnabled() const override;
  std::optional<DiagnosticsSample> diagnostics() const override;

  // Interop frame k (compute/protocol.h): updates the semaphore nodes (wait renderDone >= renderDoneWaited(k),
  // signal simDone = simDoneSignalled(k)), points write_render at render buffer slot(k), applies changed parameters,
  // launches. Does not wait.
  void launchFrame(std::uint64_t k);
  // Bounded wait for everything launched so far; throws TimeoutError (Side::Cuda) naming the frame on timeout.
  void synchronize();
  // GPU time of the last completed frame's graph (CUDA events), ms; negative before the first.
  double lastSimGpuMs() const;
  // The GPUs in rank order (gpus[0] renders), and frame k's graph time on each (ms; negative where not known yet or
  // no longer kept: the last 8 frames are). Never waits.
  std::vector<int> gpus() const;
  std::vector<double> gpuMs(std::uint64_t k) const;
  // Host time the last launchFrame/step spent in node updates, in microseconds (after a reset within the capacity:
  // the count change's kernel-node updates).
  double lastUpdateHostUs() const;
  // Bodies the state arrays hold (NBodyConfig::maxBodies, at least the count; with interop at most the render
  // buffers'): a reset to a count up to it is node updates only.
  std::int64_t capacity() const;
  // forces: tree (docs/FORCES.md "The tree"): the last tree built (depth, nodes, whether a cell stayed a leaf for
  // want of node capacity, whether a warp's walk stack was full: its forces are then incomplete) and the device
  // memory the tree holds; none with direct summation. Synchronises.
  struct TreeStats {
    int depth = 0, nodes = 0;
    bool overflow = false, walkOverflow = false;
    std::size_t bytes = 0;
  };
  std::optional<TreeStats> treeStats();
  // Writes the graph as DOT through cudaGraphDebugDotPrint.
  void dumpGraphDot(const std::filesystem::path& path) const;

  // A rank other than 0 of a job of one process per GPU: applies rank 0's calls to this backend, in order, until
  // rank 0 ends the run. Throws TimeoutError when nothing comes from rank 0 within the wait timeout (rank 0 or another
  // rank stopped or stalled, or one frame took longer), std::logic_error on rank 0 or outside such a job.
  struct FollowSummary {
    std::uint64_t frames = 0, resets = 0, gathers = 0, messages = 0;
    bool rank0Failed = false; // rank 0 ended the run with an error (its exception was unwinding)
  };
  FollowSummary follow();

  // Compute-only: copies the render output of the last launched frame (config().bodies x (x, y, z, colour)) to dst
  // through a pinned host buffer and waits for it (bounded). What a renderer without interop has to do every frame.
  void copyRenderOutput(Float4* dst);

private:
  // Both public constructors of several GPUs: place == nullptr, every GPU in this process.
  NBodyCudaBackend(const NBodyConfig& config, const std::vector<int>& gpus, const ProcessRank* place,
                   const InteropDesc* interop, std::chrono::milliseconds waitTimeout, LeapfrogStart start);

  // Instruments outside the product path, reached only through compute/nbody/nbody_cuda_instruments.h (bench, the tests
  // and the fault plan link it): see there.
  friend struct NBodyCudaInstruments;
  // What NBodyCudaInstruments hands in from that library (compute/nbody/cuda/nbody_frame_graph_instruments.h): a
  // comparison mode's launch, called instead of the graph's own while set (nullptr: LaunchMode::Graph), and the
  // kernel-fail hook. Plain function pointers, so the product library links none of them and a Graph frame pays one
  // null test.
  using ComparisonLaunch = void (*)(cuda::NBodyFrameGraph& graph, const cuda::FrameLaunch& launch);
  using BreakNode = std::string (*)(cuda::NBodyFrameGraph& graph, NBodyStage stage); // returns the node's name
  void setLaunchMode(LaunchMode mode, ComparisonLaunch launch);
  LaunchMode launchMode() const;
  LaunchHostTiming lastLaunchHostTiming() const;
  void waitForFrame(std::uint64_t k);
  std::optional<double> frameGpuMs(std::uint64_t k) const;
  void injectKernelFailure(NBodyStage stage, std::uint64_t frame, BreakNode breakNode);
  void setProgrammaticLaunch(bool enabled);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace graphsim
