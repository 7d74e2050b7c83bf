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
#include <stdexcept>
#include <string>
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

class CudaBackend final : public SimBackend {
public:
  // device: CUDA device index. interop == nullptr: compute-only graph. Throws NoCudaDevice, or CudaError.
  CudaBackend(const SceneConfig& config, int device, const InteropDesc* interop = nullptr,
              std::chrono::milliseconds waitTimeout = std::chrono::milliseconds(5000));
  ~CudaBackend() override; // synchronises (bounded), then frees in order: mapped pointers, external memory, semaphores

  std::string_view name() const override { return "cuda"; }
  void reset(const SceneConfig& config) override; // whole-graph update, falls back to re-instantiation
  void setParams(const NBodyParams& params) override;
  void setStageEnabled(Stage stage, bool enabled) override;
  bool stageEnabled(Stage stage) const override;
  void step() override; // compute-only: launch one frame and wait (bounded)
  void download(BodyState& state, std::vector<float>& colour) override;
  std::vector<NodeInfo> nodes() const override;
  bool setProfiling(bool enabled) override;
  UpdateCounters counters() const override;
  const SceneConfig& config() const override;

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

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace graphsim
