// The frame as one instantiated CUDA graph, built with the explicit graph API and held node by node by name:
//
//   [wait_render_done: renderDone >= renderDoneWaited(k)]                 (external-semaphore wait node, interop)
//   -> for each substep s: forces, attractor, integrate, damping, boundary (kernel nodes "forces", "forces#1", ...)
//      with "diagnostics" right after forces of substep 0 when diagnostics are configured (enabled on sampling frames)
//   -> colour -> write_render (into the buffer of frame k)                (kernel nodes)
//   -> report_blow_up (first non-finite value -> mapped pinned host word)  (one-thread kernel node, never toggled)
//   -> [signal_sim_done: simDone = simDoneSignalled(k)]                   (external-semaphore signal node, interop)
//
// a linear chain, instantiated once. Per frame (launch): the semaphore values are set on the exec, write_render is
// pointed at the frame's buffer, and only the kernel nodes whose parameters changed since they were last applied
// are updated (setParams only records). Toggles are cudaGraphNodeSetEnabled on every substep instance of a stage.
// Structural changes (rebuild) use cudaGraphExecUpdate and fall back to a fresh instantiation, recording why.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "compute/cuda/cuda_handles.h"
#include "compute/cuda/frame_shell.h"
#include "compute/cuda/graph_nodes.h"
#include "compute/nbody/cuda/nbody_diagnostics_kernel.h"
#include "compute/nbody/cuda/nbody_kernels.h"
#include "compute/nbody/nbody.h"
#include "compute/nbody/nbody_backend.h"
#include "compute/protocol.h"

namespace graphsim::cuda {

inline constexpr const char* kBlowUpNodeName = "report_blow_up";
inline constexpr const char* kBlowUpNodeReason =
    "blow-up detection: hands the stages' non-finite flag to the host; not a simulation stage";

// The diagnostics node's memory (NBodyCudaBackend owns it; docs/DIAGNOSTICS.md): its device state and the mapped pinned
// report it writes, the same for the graph's life.
struct DiagnosticsBuffers {
  DiagnosticsDeviceState* state = nullptr;
  DiagnosticsHostReport* hostReport = nullptr; // device pointer of the mapped pinned report
};

// One GPU of several (docs/MULTI-GPU.md). The GPU integrates the bodies [begin, end) of the full arrays it holds; its
// graph adds, per substep, the forces' reduction (`reduceForces[s]`: the fixed-point sums of all GPUs added up and
// the tiles' non-finite bits combined, then "forces_convert" writing a_i of the slice) and the positions' all-gather
// (`gatherPositions[s]`), and once per frame the colours' all-gather (`gatherColour`) before write_render, which only
// the GPU that renders has. The collectives are NCCL calls captured into graphs by the owner (compute/cuda/
// collectives.h; every rank's in one group) and added as child-graph nodes; the owner keeps them alive and captures
// them afresh, with a rebuild, whenever the arrays or the substeps change.
struct GraphSlice {
  int begin = 0, end = 0;            // this GPU's bodies
  int arrayBodies = 0;               // ranks x each rank's share: the fixed-point sums forces_convert clears
  int tiles = 0;                     // tile counters forces_convert clears
  unsigned int* tileFlags = nullptr; // the combined non-finite bits (the reduction's output)
  bool writesRender = false;
  std::vector<cudaGraph_t> reduceForces;    // per substep
  std::vector<cudaGraph_t> gatherPositions; // per substep
  cudaGraph_t gatherColour = nullptr;
};
inline constexpr const char* kCollectiveNodeReason =
    "an NCCL collective: every GPU runs it each frame, or the others wait for it forever";
inline constexpr const char* kConvertNodeName = "forces_convert";

// One frame's launch as NBodyCudaBackend makes it: frame k, write_render's target (render buffer slot(k)), the stream.
// What the comparison launches of compute/nbody/cuda/nbody_frame_graph_instruments.h take.
struct FrameLaunch {
  std::uint64_t frame = 0;
  float4* output = nullptr;
  cudaStream_t stream = nullptr;
};

// The product path: build, update, toggle, launch, profile. The benchmark's comparison launches and the kernel-fail
// test hook are FrameGraphInstruments (frame_graph_instruments.h), a friend compiled only into the instruments library.
class NBodyFrameGraph {
public:
  // semaphores == nullptr: compute-only graph without semaphore nodes. output: write_render's first target.
  // blowUp: the device word the stage kernels flag and the host word the report node writes (NBodyCudaBackend owns
  // both; docs/FRAME.md, "Blow-up detection"); the same for the graph's life, rebuilds included. diagnostics: the
  // diagnostics node's memory, diagnosticsEvery its interval (0: no node; setDiagnosticsEvery).
  // slice: one GPU of several (GraphSlice); nullptr: the only GPU.
  NBodyFrameGraph(const BodiesView& bodies, int substeps, const NBodyParams& params,
                  const std::array<bool, kStageCount>& enabled, const FrameSemaphores* semaphores, float4* output,
                  const ReportBlowUpArgs& blowUp, const DiagnosticsBuffers& diagnostics = {}, int diagnosticsEvery = 0,
                  const GraphSlice* slice = nullptr);

  NBodyFrameGraph(const NBodyFrameGraph&) = delete;
  NBodyFrameGraph& operator=(const NBodyFrameGraph&) = delete;

  // Records the parameters; the next launch updates only the nodes whose kernel arguments changed.
  void setParams(const NBodyParams& params);
  const NBodyParams& params() const { return params_; }
  // Records new state arrays or a new body count (issue 14: a count change within the arrays' capacity) like
  // setParams: the next launch recomputes every kernel node's parameters (count, grid, pointers) and updates those
  // that changed with cudaGraphExecKernelNodeSetParams: no cudaGraphExecUpdate, no instantiation. Same topology
  // (substeps) only; the caller guarantees no running launch still uses arrays the view no longer names.
  void setBodies(const BodiesView& bodies);
  const BodiesView& bodies() const { return bodies_; }
  // cudaGraphNodeSetEnabled on every instance of the stage (affects later launches only). Disabling a stage that is
  // not togglable throws std::invalid_argument with the reason; asking for what it already is does nothing.
  void setStageEnabled(NBodyStage stage, bool enabled);
  bool stageEnabled(NBodyStage stage) const { return enabled_[static_cast<int>(stage)]; }

  // Live diagnostics (docs/DIAGNOSTICS.md). With an interval > 0 the graph holds the kernel node "diagnostics" right
  // after forces of substep 0; launch() enables it only on the frames that sample (diagnosticsDue, dt > 0, forces
  // on, the toggle on), with that frame's number as its argument, and disables it on the next launch: per sample one
  // kernel-node update and two cudaGraphNodeSetEnabled, none on the other frames. These follow the schedule, not
  // user edits, and are not counted in counters(). Another interval > 0 is recorded only; going between 0 and > 0
  // adds or removes the node: a rebuild, so no launch may be running.
  void setDiagnosticsEvery(int every);
  int diagnosticsEvery() const { return diagnosticsEvery_; }
  // The panel's toggle: off, no frame samples (nodes() shows this setting as the node's enable state).
  void setDiagnosticsEnabled(bool enabled);
  bool diagnosticsEnabled() const { return diagnosticsOn_; }
  // A new series (after a reset): the next frame that may sample does, whatever its number.
  void restartDiagnostics() { diagnosticsFirstPending_ = true; }

  // Structural change (new state arrays, body count, substep count) together with the scene's parameters and
  // enable states. The caller guarantees no launch of this graph is still running. With the same node count it
  // tries cudaGraphExecUpdate; on failure, or with another node count (another substep count: a topology change
  // the update would refuse), it instantiates afresh and records why (counters, lastFallbackReason). The exec's
  // enable states match `enabled` after either path. Strong guarantee: on a throw the graph is unchanged.
  // cause: why the caller rebuilds (e.g. "body count 300000 exceeds the capacity 262144: buffers reallocated");
  // when given, lastFallbackReason records it with the path taken, also after a successful whole-graph update.
  void rebuild(const BodiesView& bodies, int substeps, const NBodyParams& params,
               const std::array<bool, kStageCount>& enabled, float4* output, const std::string& cause = {});
  // One GPU of several: the next rebuild uses this slice (new collectives, another share). A graph with a slice is
  // always re-instantiated by rebuild: its collectives are captured afresh, and NCCL's captured work is not
  // something cudaGraphExecUpdate should rewrite.
  void setSlice(const GraphSlice& slice);
  const std::optional<GraphSlice>& slice() const { return slice_; }

  // Frame k: semaphore values, write_render -> output, changed parameters, cudaGraphLaunch on stream. Allocates
  // nothing and does not synchronise.
  void launch(std::uint64_t frame, float4* output, cudaStream_t stream);

  // The protocol the semaphore nodes' values follow (compute-only: F = 1, which only the profiling marks use).
  const FrameProtocol& protocol() const { return semaphores_.protocol; }
  bool hasSemaphores() const { return semaphores_.present(); }

  // Execution order; `enabled` read back from the exec with cudaGraphNodeGetEnabled. A cached list (nodeList_): the
  // same vector every call, rebuilt only after nodes_ was rebuilt, read back only after enable states were set, its
  // times copied only after a profiled launch; otherwise no allocation and no CUDA call.
  // counters().nodeUpdates counts kernel-node parameter updates (cudaGraphExecKernelNodeSetParams). The two
  // semaphore values set before every launch are the frame protocol, not parameter changes, and are not counted.
  const std::vector<NodeInfo>& nodes() const;
  const UpdateCounters& counters() const { return counters_; }
  double lastUpdateHostUs() const { return lastUpdateHostUs_; }
  double lastLaunchHostUs() const { return lastLaunchHostUs_; }
  int substeps() const { return substeps_; }
  void dumpDot(const std::filesystem::path& path) const;

  // --profile: an event-record node before the first kernel and after every kernel ("mark_0", "mark_1", ...), so a
  // kernel node's GPU time is the time between the marks around it (nodes()[i].ms). Each frame in flight has its own
  // events (frame k records into set protocol().slot(k), pointed at with cudaGraphExecEventRecordNodeSetEvent); the
  // set is read at the launch of frame k + F, when the frames-in-flight throttle has already seen frame k finish, so
  // reading never waits. A topology change: the exec is re-instantiated (no launch may be running).
  void setProfiling(bool enabled);
  bool profiling() const { return profiling_; }

  // Programmatic dependent launch between consecutive kernel nodes (edges of type cudaGraphDependencyTypeProgrammatic
  // from cudaGraphKernelNodePortProgrammatic): each stage kernel may start while the previous one drains and waits
  // in griddepcontrol.wait for its results. A bench variant (`pdl`, docs/PERFORMANCE.md); an edge-type change
  // rebuilds the graph (a whole-graph update or re-instantiation, counted and explained like any rebuild).
  void setProgrammaticLaunch(bool enabled);
  bool programmaticLaunch() const { return programmatic_; }

private:
  friend struct FrameGraphInstruments;

  // Kernel: a stage instance (togglable per whyNotTogglable(stage)). BlowUpReport: the report_blow_up kernel, never
  // toggled or updated (its arguments are fixed pointers). Diagnostics: the diagnostics kernel, enabled and updated
  // by the schedule (prepareDiagnostics), never by the stage toggles.
  // ForcesConvert (a slice only): toggled with forces, its parameters from convertSpec. Collective: a child graph of
  // NCCL work, never toggled or updated.
  enum class Kind {
    Kernel,
    BlowUpReport,
    Diagnostics,
    SemaphoreWait,
    SemaphoreSignal,
    EventRecord,
    ForcesConvert,
    Collective,
    TreeKernel, // forces: tree, a kernel of the main graph before the walk: toggled with forces, spec from treeStepSpec
    TreeGraph   // forces: tree, the sort (a child graph) or a WHILE loop: never toggled or updated
  };
  struct Node {
    std::string name;
    Kind kind = Kind::Kernel;
    NBodyStage stage = NBodyStage::Forces;
    // The node in the graph exec_ was instantiated from: cudaGraphExec*SetParams and cudaGraphNodeSetEnabled
    // identify exec nodes by these handles, also after a whole-graph update.
    cudaGraphNode_t node = nullptr;
    KernelNodeSpec applied;                // kernel nodes: the parameters exec_ holds now
    int substep = 0;                       // kernel nodes: which instance of the stage (its blow-up flag names it)
    TreeStep treeStep = TreeStep::Prepare; // TreeKernel: which
    TreeHandles handles;                   // TreeKernel: the WHILE conditions of its substep's loops
  };
  using Built = BuiltGraph<Node>;

  struct Chain; // build()'s node-by-node layout (frame_graph.cpp)
  // waitValue / signalValue: the semaphore nodes' values (the product path sets them on the exec every frame).
  Built build(std::uint64_t waitValue = 0, std::uint64_t signalValue = 0) const;
  bool runsStage(NBodyStage stage) const; // enabled, or a stage that cannot be disabled
  // The kernel parameters of one stage instance from bodies_, params_ and output_; instances differ only in their
  // blow-up flag's node index.
  KernelNodeSpec stageSpec(NBodyStage stage, int substep) const;
  KernelNodeSpec convertSpec() const; // the slice's forces_convert
  bool timed(Kind kind) const {
    return kind == Kind::Kernel || kind == Kind::BlowUpReport || kind == Kind::Diagnostics ||
           kind == Kind::ForcesConvert || kind == Kind::Collective || kind == Kind::TreeKernel ||
           kind == Kind::TreeGraph;
  }
  static bool stageNode(const Node& n) { // the nodes stage toggles reach
    return n.kind == Kind::Kernel || n.kind == Kind::ForcesConvert || n.kind == Kind::TreeKernel;
  }
  bool followsStage(const Node& n, NBodyStage stage) const { return stageNode(n) && n.stage == stage; }
  KernelNodeSpec treeSpec(const Node& n) const;
  void applyChangedKernels(bool allStages);
  // Diagnostics: whether frame k samples (without changing anything), its node's parameters, and the per-launch
  // schedule: enable with frame k's parameters when it samples, else disable (only what differs from the exec).
  bool diagnosticsSamples(std::uint64_t frame) const;
  KernelNodeSpec diagnosticsSpecFor(std::uint64_t frame) const;
  void prepareDiagnostics(std::uint64_t frame);
  void syncEnableStates();                         // makes the exec's enable states match enabled_
  void requireDiagnosticsBuffers(int every) const; // std::invalid_argument: every > 0 without the node's memory
  // setting = value, then rebuild (for cause); on a throw setting gets its old value back.
  template <typename T>
  void rebuildWith(T& setting, T value, const std::string& cause);

  BodiesView bodies_;
  std::optional<GraphSlice> slice_;
  int substeps_ = 1;
  NBodyParams params_;
  std::array<bool, kStageCount> enabled_{};
  FrameSemaphores semaphores_;
  float4* output_ = nullptr;
  ReportBlowUpArgs blowUp_{};
  DiagnosticsBuffers diagnostics_{};
  int diagnosticsEvery_ = 0;
  bool diagnosticsOn_ = true;
  bool diagnosticsFirstPending_ = true;
  bool diagnosticsExecEnabled_ = false; // the exec's enable state of the diagnostics node
  std::uint64_t diagnosticsFrame_ = 0;  // the frame argument the node was last given (builds reuse it)

  // The exec and the graph it was instantiated from (whose node handles nodes_ holds).
  FrameExec exec_;
  std::vector<Node> nodes_;

  bool paramsDirty_ = false;
  bool outputDirty_ = false;

  // Execs replaced by the Reinstantiate comparison (FrameGraphInstruments), kept until 8 more have been replaced: a
  // launch of one may still be running (at most 4 frames are in flight), and destroying what the GPU may use is what
  // this ring avoids. Held here so that they live exactly as long as the graph.
  struct Retired {
    GraphExec exec;
    Graph graph;
  };
  static constexpr std::size_t kRetiredExecs = 8;
  std::array<Retired, kRetiredExecs> retired_;
  std::size_t retiredNext_ = 0;

  // Profiling (setProfiling): events[slot][mark], the frame each slot last recorded, kernel times by node index.
  bool profiling_ = false;
  bool programmatic_ = false;     // setProgrammaticLaunch: the next build's kernel-to-kernel edges
  bool execProgrammatic_ = false; // the edges exec_ was instantiated with
  std::vector<std::vector<Event>> markEvents_;
  std::vector<std::optional<std::uint64_t>> markFrame_;
  std::vector<double> nodeMs_;
  void harvestMarks(std::size_t slot);
  void pointMarksAt(std::size_t slot);

  // What nodes() returns and which of its parts are out of date: structure (nodes_ rebuilt), enable states (set on
  // the exec since the last read-back), times (nodeMs_ changed). nodes() refreshes only those.
  struct NodeListCache {
    std::vector<NodeInfo> list;
    bool structure = true, enableStates = true, times = true;
  };
  mutable NodeListCache nodeList_;

  UpdateCounters counters_;
  double lastUpdateHostUs_ = 0;
  double lastLaunchHostUs_ = 0;
};

} // namespace graphsim::cuda
