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
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "compute/sim_backend.h"

namespace graphsim {

// The environment lacks a usable CUDA device (exit code 3).
struct NoCudaDevice : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A CUDA runtime call failed: the message names the expression (or the graph node / stage), file, line and the
// error's name and string. code is the cudaError_t value (kept as int so this header needs no CUDA headers).
struct CudaError : std::runtime_error {
  CudaError(int errorCode, const std::string& message) : std::runtime_error(message), code(errorCode) {}
  int code = 0;
};

// Importing the exported Vulkan memory or semaphores failed (CudaBackend's constructor with an InteropDesc): the
// app can still run by copying frames through the host (--interop auto).
struct InteropImportError : CudaError {
  using CudaError::CudaError;
};

// Plain data from render/ (an exported Vulkan allocation). CUDA takes ownership of the fd on import.
struct ExternalBufferDesc {
  int fd = -1;
  std::uint64_t allocationSize = 0;
  std::uint64_t offset = 0;
  std::uint64_t bufferSize = 0;
  bool dedicated = false;
};

struct InteropDesc {
  std::vector<ExternalBufferDesc> renderBuffers; // F buffers, frame k writes renderBuffers[k % F]
  int simDoneFd = -1;                            // timeline semaphore CUDA signals
  int renderDoneFd = -1;                         // timeline semaphore CUDA waits on
};

// How a frame reaches the GPU. Graph is the product; the others exist so that `graphsim bench` can show what the
// graph with individual node updates buys (docs/PERFORMANCE.md). All four run the same kernels on the same state in
// the same order, so they give bit-identical results.
enum class LaunchMode {
  Graph,         // one instantiated graph, semaphore values and changed kernel parameters updated node by node
  Stream,        // the same kernels launched one by one on the stream, cudaWait/SignalExternalSemaphoresAsync
  WholeUpdate,   // a freshly built graph every frame, applied with cudaGraphExecUpdate
  Reinstantiate, // a freshly built graph every frame, instantiated anew (the old exec is retired, not destroyed)
};
std::string_view launchModeName(LaunchMode mode);

// Where a(0), which starts the leapfrog, is computed.
enum class LeapfrogStart {
  Device, // the forces kernel once, then the half-kick on the GPU: milliseconds at 10^6 bodies (the default)
  Host,   // startLeapfrog's double-precision direct sum (initial_conditions.h), bit-identical to CpuBackend's start;
          // O(N^2) on the host (about 90 s at 10^6 bodies), for tests that compare with the CPU bit for bit
};

// Host time of the last launch, split as `graphsim bench` reports it (microseconds, steady_clock).
struct LaunchHostTiming {
  double nodeUpdatesUs = 0; // Graph: semaphore values + changed kernel nodes; WholeUpdate: build + cudaGraphExecUpdate;
                            // Reinstantiate: build + instantiate + enable states; Stream: argument set-up
  double launchUs = 0;      // cudaGraphLaunch, or (Stream) the semaphore wait, kernel launches and signal
};

class CudaBackend final : public SimBackend {
public:
  // device: CUDA device index. interop == nullptr: compute-only graph. Throws NoCudaDevice, or CudaError.
  CudaBackend(const SceneConfig& config, int device, const InteropDesc* interop = nullptr,
              std::chrono::milliseconds waitTimeout = std::chrono::milliseconds(5000),
              LeapfrogStart start = LeapfrogStart::Device);
  ~CudaBackend() override; // synchronises (bounded), then frees in order: mapped pointers, external memory, semaphores

  std::string_view name() const override { return "cuda"; }
  void reset(const SceneConfig& config) override; // whole-graph update, falls back to re-instantiation
  void setParams(const NBodyParams& params) override;
  void setStageEnabled(Stage stage, bool enabled) override;
  bool stageEnabled(Stage stage) const override;
  void step() override; // compute-only: launch one frame and wait (bounded)
  void download(BodyState& state, std::vector<float>& colour) override;
  std::vector<Float4> downloadAccelerations() override;
  std::vector<NodeInfo> nodes() const override;
  bool setProfiling(bool enabled) override;
  UpdateCounters counters() const override;
  const SceneConfig& config() const override;
  // One load of pinned host memory that the graph's report_blow_up node writes (docs/FRAME.md); never waits. A
  // blow-up in frame k is seen once frame k has completed on the GPU: in the frame loop, by the time frame k+F is
  // launched (the renderDone throttle before it implies that).
  std::optional<BlowUp> blowUp() const override;

  // Interop frame k: updates the semaphore nodes (wait renderDone >= max(0, k-F+1), signal simDone = k+1), points
  // write_render at buffer k % F, applies changed parameters, launches. Does not wait.
  void launchFrame(std::uint64_t k);
  // Bounded wait for everything launched so far; throws std::runtime_error naming the frame on timeout.
  void synchronize();
  // GPU time of the last completed frame's graph (CUDA events), ms; negative before the first.
  double lastSimGpuMs() const;
  // Host time the last launchFrame/step spent in node updates, in microseconds.
  double lastUpdateHostUs() const;
  // Writes the graph as DOT through cudaGraphDebugDotPrint.
  void dumpGraphDot(const std::filesystem::path& path) const;

  // Applies to the next launch. Reinstantiate keeps the last 8 replaced execs alive, which covers the at most 4
  // frames in flight that the renderDone throttle (or step()) allows.
  void setLaunchMode(LaunchMode mode);
  LaunchMode launchMode() const;
  LaunchHostTiming lastLaunchHostTiming() const;
  // Bounded wait until frame k (already launched) has completed on the GPU; throws like synchronize().
  void waitForFrame(std::uint64_t k);
  // GPU time of frame k's graph (CUDA events) if it has completed and is one of the last 8 launched; never blocks.
  std::optional<double> frameGpuMs(std::uint64_t k) const;
  // Compute-only: copies the render output of the last launched frame (config().bodies x (x, y, z, colour)) to dst
  // through a pinned host buffer and waits for it (bounded). What a renderer without interop has to do every frame.
  void copyRenderOutput(Float4* dst);

  // Test hook (graphsim run --inject kernel-fail, docs/RELIABILITY.md): just before frame `frame` is launched, the
  // first node of `stage` gets an invalid launch configuration (more threads per block than any GPU has), so that
  // frame fails the way a broken kernel launch does. The error names the node.
  void injectKernelFailure(Stage stage, std::uint64_t frame);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace graphsim
