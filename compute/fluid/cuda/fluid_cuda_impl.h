// FluidCudaBackend's private state, shared by its two source files: fluid_cuda_backend.cpp (construction, state,
// waits, the report, the public API) and fluid_cuda_graph.cpp (the frame graph and the launches). Internal to
// compute/fluid/cuda.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compute/cuda/cuda_handles.h"
#include "compute/cuda/external_interop.h"
#include "compute/cuda/frame_resources.h"
#include "compute/cuda/graph_nodes.h"
#include "compute/fluid/cuda/fluid_frame_graph.h"
#include "compute/fluid/fluid_cuda_backend.h"
#include "compute/protocol.h"

namespace graphsim::fluid {

using gpu::KernelSpec;
using gpu::Step;
using gpu::stepName;
using Clock = std::chrono::steady_clock;

struct FluidCudaBackend::Impl {
  FluidConfig config;
  FluidCudaOptions options;
  sph_math::GridDims grid{};
  float frameDt = 0; // setFrameDt's; config.frameDt is the configured one

  cuda::FrameResources frames;    // the stream, timing ring, interop imports and bounded waits (compute/cuda)
  cuda::Event passStart, passEnd; // timePasses'
  cuda::DeviceArray<float4> computeOutput;
  cuda::PinnedArray<float4> hostOutput;
  // State that lives across frames.
  cuda::DeviceArray<float4> pos, vel;
  cuda::DeviceArray<float2> rhoP;
  cuda::DeviceArray<gpu::FrameControl> ctrl;
  cuda::DeviceArray<gpu::BlowUpState> blowUpState;
  cuda::PinnedArray<gpu::HostReport> report; // mapped
  gpu::HostReport* d_report = nullptr;
  cuda::PinnedArray<gpu::FrameControl> hostCtrl; // HostDecided: the control block read back after each substep
  // Live diagnostics (docs/DIAGNOSTICS.md): the node's device state (zeroed once), the mapped pinned sample it writes,
  // the schedule (the panel's switch, whether a new series still waits for its first sample, the exec's enable state
  // of the node) and the latest sample read back.
  cuda::DeviceArray<gpu::FluidDiagnosticsDeviceState> diagnosticsState;
  cuda::PinnedArray<gpu::FluidDiagnosticsHostReport> diagnosticsReport; // mapped
  gpu::FluidDiagnosticsHostReport* d_diagnosticsReport = nullptr;
  bool diagnosticsOn = true, diagnosticsFirstPending = true, diagnosticsExecEnabled = false;
  std::uint64_t diagnosticsSeries = 0;
  mutable std::optional<FluidDiagnosticsSample> diagnostics;

  // Scratch: preallocated, or (GraphMemoryNodes) the address the alloc node returned.
  gpu::ScratchLayout layout;
  cuda::DeviceArray<unsigned char> scratchOwned;
  gpu::Scratch scratch;
  // The graph (the kit's mechanics, compute/cuda/graph_nodes.h): the exec and its nodes in build order (the
  // semaphore wait, a node per kernel row and substep copy, the semaphore signal; `row` is the FluidStep). build()
  // leaves the next graph and its nodes in `built` (no graph: HostDecided), install() puts them in use.
  cuda::FrameExec exec;
  std::vector<cuda::GraphNode> graphNodes;
  cuda::BuiltGraph<cuda::GraphNode> built;
  gpu::Handles handles; // the conditional nodes' handles of the graph built last
  // The walls' and the obstacle's boundary particles, both solvers' (dfsph.h: built on the host, uploaded once per
  // reset, the obstacle's also when its radius changes).
  struct BoundaryArrays {
    cuda::DeviceArray<float4> pos;
    cuda::DeviceArray<float> volume;
    cuda::DeviceArray<unsigned> cellStart, cellEnd;
    std::size_t bytes() const { return pos.bytes() + volume.bytes() + cellStart.bytes() + cellEnd.bytes(); }
  };
  BoundaryArrays boundaries[2];                  // [gpu::kWallBoundary], [gpu::kObstacleBoundary]
  cuda::DeviceArray<gpu::BoundaryArgs> boundary; // the two, n = 0 without boundary particles
  float boundaryRadius = -1;                     // the obstacle radius its boundary was built for
  std::size_t sortChildNodes = 0;
  cuda::Graph sortGraph;    // the captured sort (child graph template; HostDecided and sort timing launch it)
  cuda::GraphExec sortExec; // for the stream launches
  UpdateCounters counters;
  bool settingsDirty = false; // the next graph launch updates the kernel nodes whose specs changed
  mutable std::optional<gpu::KernelParams> resolved; // kernelParams of the current settings (settingsChanged resets)
  double lastUpdateHostUs = -1;
  struct PassClock { // timePasses: per row, GPU ms and launches
    PassClock() : ms(std::size(kFluidSteps)), launches(std::size(kFluidSteps)) {}
    std::vector<double> ms;
    std::vector<int> launches;
  };
  std::optional<PassClock> passClock;
  std::uint64_t nextFrame = 0;
  mutable std::vector<NodeInfo> nodes;
  mutable bool nodesStale = true;
  mutable std::optional<FluidBlowUp> blowUp;
  struct InjectedFailure {
    Step step;
    std::uint64_t frame;
  };
  std::optional<InjectedFailure> injectedFailure; // --inject kernel-fail (test hook)
  std::string injectedNode;                       // the node it broke, named in the errors that follow
  bool failureDue(Step step, std::uint64_t k) const {
    return injectedFailure && injectedFailure->step == step && injectedFailure->frame == k;
  }
  // What an error after the injected failure adds: which node has the bad launch configuration.
  std::string injectedNote() const {
    return injectedNode.empty()
               ? ""
               : " [node " + injectedNode + " has the launch configuration that --inject kernel-fail gave it]";
  }
  void breakInjectedNode(std::uint64_t k); // graph launches: frame k's update of the node --inject kernel-fail names

  gpu::DeviceState deviceState() const {
    gpu::DeviceState d{pos.get(), vel.get(), rhoP.get(), ctrl.get(), blowUpState.get(), d_report};
    d.diagnostics = diagnosticsState.get();
    d.diagnosticsReport = d_diagnosticsReport;
    d.n = static_cast<int>(config.particles);
    d.boundary = boundary.get();
    const std::vector<cuda::ExternalBuffer>& renderBuffers = frames.imported.renderBuffers;
    if (renderBuffers.empty()) {
      d.outputs.out[0] = computeOutput.get();
      d.outputs.slots = 1;
    } else {
      for (std::size_t i = 0; i < renderBuffers.size(); ++i) d.outputs.out[i] = renderBuffers[i].as<float4>();
      d.outputs.slots = static_cast<int>(renderBuffers.size());
    }
    return d;
  }

  KernelSpec spec(Step step, std::uint64_t frame = 0) const {
    if (!resolved) resolved = gpu::kernelParams(config, frameDt, options);
    return gpu::specFor(step, deviceState(), scratch, *resolved, grid, handles, frame);
  }

  void settingsChanged() {
    settingsDirty = true;
    resolved.reset();
  }

  std::string neighbourSearch; // "lists (skin 0.20 h)" or "cells (why)": chooseNeighbourSearch's
  // ---- state ----
  void allocateState();
  void chooseNeighbourSearch();     // the scratch layout, with or without the lists
  void upload(const FluidState& s); // the state's arrays, time and a clear blow-up and diagnostics report
  // ---- graph building ----
  // Adds the node of a kFluidSteps row after deps (a kernel node is recorded in built.nodes) and makes it the only
  // dependency. Rows run only when configured (the diagnostics node) are the caller's to skip.
  void addStep(cudaGraph_t g, std::vector<cudaGraphNode_t>& deps, const FluidStepRow& row, int substep);
  void addKernel(cudaGraph_t g, std::vector<cudaGraphNode_t>& deps, Step step, int substep);
  // The rows of one scope of the substep in g, in table order (a SWITCH or WHILE row adds its nested graphs).
  void addScope(cudaGraph_t g, std::vector<cudaGraphNode_t>& deps, StepScope scope, int substep);
  // A conditional node (IF with its ELSE, SWITCH with 2 branches, or WHILE) after deps; returns its graphs.
  cudaGraph_t* addConditional(cudaGraph_t g, std::vector<cudaGraphNode_t>& deps, cudaGraphConditionalHandle handle,
                              cudaGraphConditionalNodeType type, unsigned size, const char* what);
  // Whether the graph holds both solvers under the SWITCH with DFSPH's solves as nested WHILEs and the re-sort IF (the
  // WHILE graph); the other launch variants hold the configured solver's rows alone, its solves unrolled or decided by
  // the host, and FixedSubsteps sorts in every step.
  bool switchBuilt() const { return options.launch == FluidLaunch::WhileGraph; }
  bool dfsphBuilt() const { return switchBuilt() || config.solver == FluidSolver::Dfsph; }
  StepScope solverScope() const { return config.solver == FluidSolver::Dfsph ? StepScope::Dfsph : StepScope::Wcsph; }
  void uploadBoundary();         // dfsph.h's makeWallBoundary and makeObstacleBoundary for the config, on the device
  void uploadObstacleBoundary(); // the obstacle's alone (a new radius)
  void uploadBoundarySet(int i, const Boundary& b); // into boundaries[i] and the device's BoundaryArgs [i]
  // The rows of one place that this configuration runs (the diagnostics node only with diagnosticsEvery > 0).
  bool runs(const FluidStepRow& row) const { return !row.diagnostics || config.diagnosticsEvery > 0; }
  // The sort of one substep, captured from CUB into a graph once; the body adds it as a child graph node.
  void captureSort();
  // One substep's nodes in graph g after deps (the WHILE body, or one unrolled copy).
  void addSubstep(cudaGraph_t g, std::vector<cudaGraphNode_t>& deps, int substep);
  bool semaphoreNodes() const { return exec.exec && frames.interop(); }
  void build();
  // Puts the graph built last in use: instantiated at construction; after a reset (cause) tried as cudaGraphExecUpdate
  // where CUDA can update it, else re-instantiated (counted, with the reason). Then the toggles, the diagnostics
  // node's state and the standalone sort follow.
  void install(const std::string& cause);
  // A standalone exec of the captured sort, for the stream launches and the sort timing. Not with graph memory
  // nodes: there the sort's buffers exist only while the frame graph runs (and CUDA refuses to instantiate it).
  void instantiateSort();
  // ---- live diagnostics ----
  // Whether frame k samples (fluidDiagnosticsDue with the settings the launch uses); nothing changes.
  bool diagnosticsSample(std::uint64_t k) const;
  // Graph launches: enables the node on a frame that samples, disables it on the next (not counted: the schedule's,
  // not an edit). Returns whether frame k samples.
  bool prepareDiagnostics(std::uint64_t k);
  // A reset: no launch runs (the caller synchronised); the report is cleared and a new series starts.
  void clearDiagnostics();
  void harvestDiagnostics() const; // the report's sample if one is complete; never a CUDA call, never a wait
  // ---- per-frame updates ----
  // Sets every node of a switched row (obstacle: every substep's obstacle node; colour) to its switch's state where
  // the exec's differs; returns how many it set.
  std::uint64_t syncToggles();
  void applyChangedSpecs();
  void launchGraph(std::uint64_t k);
  // HostDecided: the row's kernel, sort or memset on the stream (a row whose switch is off is skipped); the solver
  // row launches the configured solver's scope, a solve's row its loop (launchSolve), the re-sort row the branch that
  // cfl's decision, read back, names.
  void launchStep(const FluidStepRow& row, std::uint64_t k);
  void launchScope(StepPlace place, StepScope scope, std::uint64_t k);
  // A solve's body (errors, check, velocity update) until the check says stop: after the check the host reads the
  // control block back (a bounded wait) and decides, as every public GPU DFSPH does with its error.
  void launchSolve(const FluidStepRow& row, std::uint64_t k);
  const gpu::FrameControl& readBack(); // the control block to the host (a bounded wait): the host's decisions read it
  // What an app without conditional nodes does: the same kernels from the host; after each substep it reads the
  // control block back (a bounded wait) to decide whether the frame needs another.
  void launchHostDecided(std::uint64_t k);
  void launch(std::uint64_t k);
  // ---- waits ----
  void synchronize() const {
    frames.synchronize([&] { return "the fluid frame failed" + injectedNote(); });
  }
  void waitForFrame(std::uint64_t k) const {
    frames.waitForFrame(k, [&] { return "fluid frame " + std::to_string(k) + injectedNote(); });
  }
  // ---- the report ----
  std::optional<gpu::HostReport> readReport() const;
  void configure(const FluidConfig& c);
};

} // namespace graphsim::fluid
