// The fluid scene on CUDA (issue 13): one instantiated graph per frame, [wait renderDone] -> the rows of kFluidSteps
// (compute/fluid/fluid_steps.h; the substep rows in a WHILE node's body) -> [signal simDone]. The substep dt and the
// loop condition are decided on the GPU (compute/fluid/sph_math.h, "frame rule"); nothing is read back inside a frame.
// docs/FLUID.md draws the graph. Plain C++ header: no CUDA or Vulkan headers.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compute/errors.h"
#include "compute/fluid/fluid_backend.h"
#include "compute/interop.h"

namespace graphsim::fluid {

// How a frame's substeps are launched: the product and what bench compares it with.
// WhileGraph holds both solvers under the SWITCH; the other two hold the configured solver's rows alone (a solver
// change there is a reset).
enum class FluidLaunch {
  WhileGraph,    // the product: a conditional WHILE node runs the substep body until the GPU says the frame is done;
                 // DFSPH's two solves are WHILE nodes nested in it
  FixedSubsteps, // a graph with the body unrolled `fixedSubsteps` times, dt = frameDt / that, and DFSPH's solves
                 // unrolled `fixedIterations` times each (no conditional node)
  HostDecided,   // stream launches of the same kernels; the host reads back the frame's covered time and substep count
                 // after each substep, and DFSPH's loop state after each solver iteration, to decide whether to go on
                 // (what an app without conditional nodes does, and every public GPU DFSPH)
};

// Where the sort's temp storage and the substep's scratch (keys, values, cell table) live.
enum class FluidScratch {
  Preallocated,     // cudaMalloc'd once per reset
  GraphMemoryNodes, // allocated and freed by graph memory nodes around the WHILE node every frame
};

// One node's GPU time in timePasses.
struct FluidPassTime {
  std::string name;   // the row's
  double ms = 0;      // mean per launch
  double perStep = 0; // launches per step (a solve's passes: its iterations; the re-sort rows: the re-sort share)
};

struct FluidCudaOptions {
  FluidLaunch launch = FluidLaunch::WhileGraph;
  FluidScratch scratch = FluidScratch::Preallocated;
  int fixedSubsteps = 4; // FluidLaunch::FixedSubsteps only, [1, kMaxFluidSubsteps]
  // FluidLaunch::FixedSubsteps with dfsph: the velocity updates of the divergence and the density solve in every step
  // (each solve's minimum and maximum), [1, 10000].
  int fixedIterations[2] = {2, 2};
  // DFSPH: neighbour_lists lists each particle's neighbours after a sort (within (1 + neighbourSkin) h), and every
  // DFSPH neighbour pass reads the list instead of walking the 27 cells: fewer candidate tests (where they fit in the
  // GPU's free memory: neighbourSearch()). false: every pass walks the cells and every step sorts (bench's `cells`).
  bool neighbourLists = true;
  std::chrono::milliseconds waitTimeout{5000};
};

class FluidCudaBackend final : public FluidBackend {
public:
  // device: CUDA device index. interop == nullptr: compute-only (write_render targets an internal buffer); else its
  // fds belong to this constructor (compute/interop.h). Throws EnvironmentError, InteropImportError, CudaError,
  // std::invalid_argument (a config the scene refuses).
  FluidCudaBackend(const FluidConfig& config, int device, const InteropDesc* interop = nullptr,
                   FluidCudaOptions options = {});
  ~FluidCudaBackend() override;

  std::string_view name() const override { return "cuda"; }
  void reset(const FluidConfig& config) override;
  void setParams(const FluidParams& params) override;
  void setEnabled(FluidToggle toggle, bool enabled) override;
  bool enabled(FluidToggle toggle) const override;
  void setFrameDt(float frameDt) override;
  // Outside the WHILE graph (FixedSubsteps and HostDecided hold one solver's rows) a change is a reset: the graph is
  // rebuilt.
  void setSolver(FluidSolver solver) override;
  void step() override; // launchFrame(next) and wait (bounded)
  void download(FluidState& state) override;
  std::vector<float> downloadColour() override;
  // Waits for the frames in flight, then uploads the state into the same arrays: the graph is not rebuilt.
  void setState(FluidState state) override;
  std::optional<FluidFrameInfo> lastFrame() const override; // pinned readback of the last completed frame
  const std::vector<NodeInfo>& nodes() const override;
  UpdateCounters counters() const override;
  std::optional<FluidBlowUp> blowUp() const override;
  const FluidConfig& config() const override;
  // With config().diagnosticsEvery > 0: the graph's diagnostics node after the WHILE node (docs/DIAGNOSTICS.md),
  // enabled by launchFrame on the frames that sample and disabled on the next; diagnostics() reads the mapped pinned
  // sample the node wrote (no CUDA call, no wait).
  void setDiagnosticsEnabled(bool enabled) override;
  bool diagnosticsEnabled() const override;
  std::optional<FluidDiagnosticsSample> diagnostics() const override;

  // Interop frame k (compute/protocol.h): semaphore values, render slot, changed parameters; launches, never waits.
  void launchFrame(std::uint64_t k);
  void waitForFrame(std::uint64_t k); // bounded; throws TimeoutError (Side::Cuda)
  void synchronize();                 // bounded
  // Compute-only: the render output of the last frame (particles x (x, y, z, colour)) through pinned memory.
  void copyRenderOutput(Float4* dst);
  double lastSimGpuMs() const;     // GPU time of the last completed frame (events); < 0 before the first
  double lastUpdateHostUs() const; // host time of the last launch's node updates and launch call
  // Bench's per-pass times (issue 29): `steps` steps launched on the stream frame by frame, as the host-decided
  // variant launches them (the same specs, no conditional handles), each node between two events. The state moves on:
  // call it on a backend whose state does not matter afterwards. Empty with graph memory nodes (no scratch outside a
  // frame).
  std::vector<FluidPassTime> timePasses(int steps);
  std::size_t deviceBytes() const; // GPU memory the scene holds (render buffers excluded)
  const FluidCudaOptions& options() const;
  // How the DFSPH passes find their neighbours after the last reset: "lists (skin S h)", or "cells (why)" where the
  // lists are off, WCSPH alone is built, or they would not fit in the GPU's free memory.
  const std::string& neighbourSearch() const;
  void dumpGraphDot(const std::filesystem::path& path) const;
  // Test hook: the neighbour lists as the next kept step would read them, per particle in the state's (sorted) order
  // the listed candidates of its three lanes; nullopt for a particle with an overflowed lane (it walks its cells), and
  // an empty vector without lists.
  std::vector<std::optional<std::vector<std::uint32_t>>> downloadNeighbourLists();
  // Test hook (--inject kernel-fail, app/faults): before frame k's launch the first node of the kernel row `step`
  // (inside the WHILE bodies for a substep's row) gets 4096 threads per block, which no GPU launches; the errors that
  // follow name the node.
  void injectKernelFailure(FluidStep step, std::uint64_t frame);

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace graphsim::fluid
