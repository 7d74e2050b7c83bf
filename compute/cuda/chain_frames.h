// The kit's frame graph for a scene whose step rows run one after another, once a frame (issue 27; the ballistic
// test scene's): [wait_render_done] -> row 0 -> row 1 -> ... -> [signal_sim_done], built once from the step table.
// Per frame (launchFrame) the semaphore values, the byte-diff update of every row's kernel node from specFor(row, k),
// the rows' enable states from enabledFor(row), the host time of those (lastUpdateHostUs), and the launch inside the
// timing ring. It also holds the scene's Float4 state arrays and the host-copy render output, so a scene's CUDA
// backend derives from it and adds only its kernels, specFor and enabledFor. CUDA-free: a scene's shared header
// declares its backend over it.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compute/float4.h"
#include "compute/interop.h"
#include "compute/node_info.h"

namespace graphsim::cuda {

struct KernelNodeSpec;

class ChainFrames {
public:
  using Steps = std::span<const std::pair<std::string_view, std::string_view>>; // a step table: name, whyNot
  using SpecFor = std::function<KernelNodeSpec(int row, std::uint64_t k)>;      // row's kernel node for frame k
  using EnabledFor = std::function<std::optional<bool>(int row)>;               // nullopt: never toggled

  ChainFrames(const ChainFrames&) = delete;
  ChainFrames& operator=(const ChainFrames&) = delete;

  std::string_view name() const { return "cuda"; }
  UpdateCounters counters() const;
  void launchFrame(std::uint64_t k); // never waits
  void copyRenderOutput(Float4* dst);
  void synchronize() const; // bounded: TimeoutError
  double lastSimGpuMs() const;
  double lastUpdateHostUs() const;
  void dumpGraphDot(const std::filesystem::path& path) const;

protected:
  // Opens the frame resources (noun: "ballistic" gives "ballistic frame 12") and `arrays` state arrays of `count`
  // each. interop: the renderer's exports (their fds belong to the backend); nullopt: host copy or compute only.
  ChainFrames(int device, const std::optional<InteropDesc>& interop, std::chrono::milliseconds timeout,
              const std::string& noun, int arrays, std::int64_t count);
  ~ChainFrames(); // waits (bounded) for the frames, else leaves every resource allocated (cuda/shutdown.h)

  // The graph, once: specFor(row, 0) gives each row's first parameters.
  void build(Steps steps, SpecFor specFor, EnabledFor enabledFor);
  Float4* array(int i) const;
  Float4* renderTarget(std::uint64_t k) const; // frame k's: its render buffer (interop), else the host-copy output
  // The state arrays, after a bounded wait for the frames; upload: the next launch reads them once landed.
  std::vector<std::vector<Float4>> downloadArrays() const;
  void uploadArrays(std::initializer_list<const std::vector<Float4>*> arrays);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace graphsim::cuda
