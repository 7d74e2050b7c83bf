// Building, updating and launching the frame graph (frame_graph.h).
#include "compute/nbody/cuda/nbody_frame_graph.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "compute/nvtx.h"

namespace graphsim::cuda {

NBodyFrameGraph::NBodyFrameGraph(const BodiesView& bodies, int substeps, const NBodyParams& params,
                                 const std::array<bool, kStageCount>& enabled, const FrameSemaphores* semaphores,
                                 float4* output, const ReportBlowUpArgs& blowUp, const DiagnosticsBuffers& diagnostics,
                                 int diagnosticsEvery, const GraphSlice* slice)
    : bodies_(bodies), substeps_(substeps), params_(params), enabled_(enabled), output_(output), blowUp_(blowUp),
      diagnostics_(diagnostics), diagnosticsEvery_(diagnosticsEvery) {
  if (slice != nullptr) setSlice(*slice);
  if (blowUp_.state == nullptr || blowUp_.hostWord == nullptr) {
    throw std::invalid_argument("NBodyFrameGraph: the blow-up report needs its device state and host word");
  }
  requireDiagnosticsBuffers(diagnosticsEvery_);
  if (semaphores != nullptr) {
    if (semaphores->renderDone == nullptr || semaphores->simDone == nullptr) {
      throw std::invalid_argument("NBodyFrameGraph: interop needs both semaphores");
    }
    semaphores_ = *semaphores;
  }
  (void)replaceGraph(exec_, nodes_, build(), counters_, {});
  syncEnableStates();
}

void NBodyFrameGraph::requireDiagnosticsBuffers(int every) const {
  if (every > 0 && (diagnostics_.state == nullptr || diagnostics_.hostReport == nullptr))
    throw std::invalid_argument("NBodyFrameGraph: the diagnostics node needs its device state and host report");
}

template <typename T>
void NBodyFrameGraph::rebuildWith(T& setting, T value, const std::string& cause) {
  const T old = std::exchange(setting, value);
  try {
    rebuild(bodies_, substeps_, params_, enabled_, output_, cause);
  } catch (...) {
    setting = old;
    throw;
  }
}
template void NBodyFrameGraph::rebuildWith<bool>(bool&, bool, const std::string&); // setProfiling

void NBodyFrameGraph::setSlice(const GraphSlice& slice) {
  if (slice.reduceForces.size() != slice.gatherPositions.size()) {
    throw std::invalid_argument("NBodyFrameGraph: a slice needs one reduction and one gather per substep");
  }
  if (slice.tileFlags == nullptr || slice.gatherColour == nullptr || slice.begin > slice.end) {
    throw std::invalid_argument("NBodyFrameGraph: incomplete slice");
  }
  slice_ = slice;
}

KernelNodeSpec NBodyFrameGraph::convertSpec() const {
  const ForcesArgs f = forcesArgs(bodies_, params_.G, params_.softening * params_.softening);
  return forcesConvertSpec({bodies_.forces.fixed, bodies_.forces.tileDone, slice_->tileFlags, bodies_.accel,
                            slice_->begin, slice_->end, slice_->arrayBodies, slice_->tiles, f.G, f.toFixed});
}

KernelNodeSpec NBodyFrameGraph::stageSpec(NBodyStage stage, int substep) const {
  // One GPU of several: the per-body stages see the slice as an array of its own (pointers moved to its first body);
  // forces reads every position and writes (or sums) for the slice; write_render writes every body.
  BodiesView b = bodies_;
  if (slice_ && stage != NBodyStage::Forces && stage != NBodyStage::WriteRender) {
    b.posMass += slice_->begin;
    b.vel += slice_->begin;
    b.accel += slice_->begin;
    b.colour += slice_->begin;
    b.n = slice_->end - slice_->begin;
  }
  const NBodyParams& p = params_;
  // Node index substep * kStageCount + stage: the smaller, the earlier in the frame (nbody_kernels.h).
  const auto node = [&](NBodyStage s) {
    return static_cast<unsigned int>(substep * kStageCount + static_cast<int>(s));
  };
  const BlowUpFlag flag{&blowUp_.state->first, node(stage), node(NBodyStage::Forces)};
  // Same float expressions as the CPU reference (cpu_stages.cpp): eps^2 and the damping factor on the host.
  switch (stage) {
  case NBodyStage::Forces: {
    if (b.tree.present()) {
      return treeWalkSpec(treeWalkArgs(b.tree, b.accel, b.n, p.G, p.softening * p.softening, p.treeTolerance));
    }
    ForcesArgs f = forcesArgs(b, p.G, p.softening * p.softening);
    if (slice_) {
      f.begin = slice_->begin;
      f.end = slice_->end;
      f.partial = f.toFixed > 0 ? 1 : 0;
    }
    return forcesSpec(f);
  }
  case NBodyStage::Attractor:
    return attractorSpec({b.posMass, b.vel, b.n, p.attractorPos[0], p.attractorPos[1], p.attractorPos[2],
                          p.attractorStrength, p.dt, kAttractorSoftening, 0, flag});
  case NBodyStage::Integrate: return integrateSpec({b.posMass, b.vel, b.accel, b.n, p.dt, flag});
  case NBodyStage::Damping: return dampingSpec({b.vel, b.n, dampingFactor(p), flag});
  case NBodyStage::Boundary: return boundarySpec({b.posMass, b.vel, b.n, p.boundaryRadius, flag});
  case NBodyStage::Colour: return colourSpec({b.vel, b.colour, b.n, p.colourScale});
  case NBodyStage::WriteRender: return writeRenderSpec({b.posMass, b.colour, output_, b.n, 0});
  }
  throw std::logic_error("NBodyFrameGraph::stageSpec: unknown stage");
}

KernelNodeSpec NBodyFrameGraph::treeSpec(const Node& n) const {
  return treeStepSpec(n.treeStep, bodies_.tree, bodies_.posMass, bodies_.n, params_.theta, params_.leafSize, n.handles);
}

// The linear chain build() lays out: each node after the previous one (or, with programmatic launch, a kernel after a
// kernel through a programmatic edge), an event-record mark after every timed node when profiling.
struct NBodyFrameGraph::Chain {
  const NBodyFrameGraph& fg;
  Built& built;
  cudaGraph_t g;
  cudaGraphNode_t prev = nullptr;
  bool prevIsKernel = false; // programmatic edges join two kernel nodes only
  std::size_t marks = 0;

  const cudaGraphNode_t* deps() const { return prev != nullptr ? &prev : nullptr; }
  std::size_t depCount() const { return prev != nullptr ? 1 : 0; }

  void add(std::string name, Kind kind, cudaGraphNode_t node, const KernelNodeSpec& spec = {}, int substep = 0,
           NBodyStage stage = NBodyStage::Forces) {
    built.nodes.push_back({std::move(name), kind, stage, node, spec, substep});
    prev = node;
    prevIsKernel = kind != Kind::SemaphoreWait && kind != Kind::SemaphoreSignal && kind != Kind::EventRecord &&
                   kind != Kind::Collective;
  }

  void addMark() {
    if (!fg.profiling_) return;
    std::string name = "mark_" + std::to_string(marks);
    cudaGraphNode_t node = nullptr;
    CUDA_CHECK_CTX(cudaGraphAddEventRecordNode(&node, g, deps(), depCount(), fg.markEvents_.at(0).at(marks).get()),
                   "adding node " + name);
    add(std::move(name), Kind::EventRecord, node);
    ++marks;
  }

  void addKernel(std::string name, Kind kind, NBodyStage stage, int substep, const KernelNodeSpec& spec) {
    cudaGraphNode_t node = nullptr;
    if (fg.programmatic_ && prevIsKernel) {
      void* argSlot[1];
      const cudaKernelNodeParams params = spec.nodeParams(argSlot);
      // Programmatic dependent launch (setProgrammaticLaunch): this kernel may be launched once every block of the
      // previous one has triggered or exited; it waits for that kernel's completion and memory in
      // griddepcontrol.wait (nbody_kernels.h, waitForPreviousKernel) before it reads anything.
      CUDA_CHECK_CTX(cudaGraphAddKernelNode(&node, g, nullptr, 0, &params), "adding node " + name);
      cudaGraphEdgeData edge{};
      edge.from_port = cudaGraphKernelNodePortProgrammatic;
      edge.type = cudaGraphDependencyTypeProgrammatic;
      CUDA_CHECK_CTX(cudaGraphAddDependencies(g, &prev, &node, &edge, 1), "programmatic edge to node " + name);
    } else {
      node = addKernelNode(g, deps(), depCount(), spec, name);
    }
    add(std::move(name), kind, node, spec, substep, stage);
    addMark();
  }

  // forces: tree, before the walk (tree_kernels.h): prepare, bounds, keys, the sort, gather, the two WHILE loops,
  // the walk's groups.
  void addTree(int substep) {
    const std::string suffix = substep > 0 ? "#" + std::to_string(substep) : "";
    const TreeView& t = fg.bodies_.tree;
    // Both conditions start each launch at 0 (tree_gather sets them): with forces off no loop runs.
    TreeHandles handles;
    cudaGraphConditionalHandle h = 0;
    CUDA_CHECK_CTX(cudaGraphConditionalHandleCreate(&h, g, 0, cudaGraphCondAssignDefault), "tree_build's condition");
    handles.build = h;
    CUDA_CHECK_CTX(cudaGraphConditionalHandleCreate(&h, g, 0, cudaGraphCondAssignDefault), "tree_moments' condition");
    handles.moments = h;
    const auto treeKernel = [&](TreeStep step) {
      Node n{std::string(kTreeStepNames[static_cast<int>(step)]) + suffix, Kind::TreeKernel, NBodyStage::Forces};
      n.treeStep = step;
      n.handles = handles;
      n.substep = substep;
      const KernelNodeSpec spec = fg.treeSpec(n);
      n.node = addKernelNode(g, deps(), depCount(), spec, n.name);
      n.applied = spec;
      built.nodes.push_back(std::move(n));
      prev = built.nodes.back().node;
      prevIsKernel = false; // no programmatic edges into or out of the tree's nodes
      addMark();
    };
    const auto treeGraph = [&](const std::string& name, cudaGraphNode_t node) {
      add(name + suffix, Kind::TreeGraph, node);
      prevIsKernel = false;
      addMark();
    };
    treeKernel(TreeStep::Prepare);
    treeKernel(TreeStep::Bounds);
    treeKernel(TreeStep::Keys);
    cudaGraphNode_t sort = nullptr;
    CUDA_CHECK_CTX(cudaGraphAddChildGraphNode(&sort, g, deps(), depCount(), t.sortGraph), "adding node tree_sort");
    treeGraph("tree_sort", sort);
    treeKernel(TreeStep::Gather);
    cudaGraphNode_t buildNode = nullptr;
    const cudaGraphNode_t moments = addTreeLoops(g, prev, t, handles, &buildNode);
    treeGraph("tree_build", buildNode);
    // tree_moments depends on tree_build directly; a profiling mark after tree_build adds a second path to it.
    treeGraph("tree_moments", moments);
    treeKernel(TreeStep::Groups);
  }

  void addCollective(std::string name, cudaGraph_t captured) {
    cudaGraphNode_t node = nullptr;
    CUDA_CHECK_CTX(cudaGraphAddChildGraphNode(&node, g, deps(), depCount(), captured), "adding node " + name);
    add(std::move(name), Kind::Collective, node);
    addMark();
  }

  // One stage instance, with a slice's collectives around it and the diagnostics node after forces of substep 0.
  void addStage(NBodyStage stage, int substep) {
    const std::optional<GraphSlice>& slice = fg.slice_;
    if (slice && stage == NBodyStage::WriteRender && !slice->writesRender) return; // another GPU renders
    if (stage == NBodyStage::Forces && fg.bodies_.tree.present()) addTree(substep);
    addKernel(stageInstanceName(stage, substep), Kind::Kernel, stage, substep, fg.stageSpec(stage, substep));
    const std::string suffix = substep > 0 ? "#" + std::to_string(substep) : "";
    const auto s = static_cast<std::size_t>(substep);
    if (slice && stage == NBodyStage::Forces) {
      addCollective("reduce_forces" + suffix, slice->reduceForces.at(s));
      addKernel(kConvertNodeName + suffix, Kind::ForcesConvert, NBodyStage::Forces, substep, fg.convertSpec());
    }
    if (slice && stage == NBodyStage::Boundary)
      addCollective("all_gather_positions" + suffix, slice->gatherPositions.at(s));
    if (slice && stage == NBodyStage::Colour) addCollective("all_gather_colour", slice->gatherColour);
    if (stage == NBodyStage::Forces && substep == 0 && fg.diagnosticsEvery_ > 0) {
      // Where a(t) of the state the frame starts from is fresh (docs/DIAGNOSTICS.md). Ordinary edges on both sides,
      // also with programmatic launch: the node is disabled on most frames, and the kernels around it should not
      // depend on how a programmatic edge through a disabled node behaves.
      prevIsKernel = false;
      addKernel(kDiagnosticsNodeName, Kind::Diagnostics, NBodyStage::Forces, 0,
                fg.diagnosticsSpecFor(fg.diagnosticsFrame_));
      prevIsKernel = false;
    }
  }
};

NBodyFrameGraph::Built NBodyFrameGraph::build(std::uint64_t waitValue, std::uint64_t signalValue) const {
  Built built{makeGraph(), {}};
  built.nodes.reserve(static_cast<std::size_t>(stageInstanceCount(substeps_)) + 4); // + report, wait, signal, diag
  Chain chain{*this, built, built.graph.get()};
  // The frame shell's semaphore nodes: launch() sets both values on the exec before every cudaGraphLaunch; the
  // comparison paths that rebuild the graph every frame build it with the frame's values.
  if (hasSemaphores()) {
    chain.add(kWaitNodeName, Kind::SemaphoreWait,
              addFrameWaitNode(chain.g, chain.deps(), chain.depCount(), semaphores_, waitValue));
  }
  chain.addMark();
  forEachStageInstance(substeps_, [&](NBodyStage stage, int substep) { chain.addStage(stage, substep); });
  // After every stage, before the signal: when Vulkan sees simDone = k+1, the report of frame k is in host memory.
  chain.addKernel(kBlowUpNodeName, Kind::BlowUpReport, NBodyStage::Forces, 0, reportBlowUpSpec(blowUp_));
  if (hasSemaphores()) {
    chain.add(kSignalNodeName, Kind::SemaphoreSignal,
              addFrameSignalNode(chain.g, chain.deps(), chain.depCount(), semaphores_, signalValue));
  }
  return built;
}

void NBodyFrameGraph::setParams(const NBodyParams& params) {
  if (params == params_) return;
  params_ = params;
  paramsDirty_ = true;
}

void NBodyFrameGraph::setBodies(const BodiesView& bodies) {
  if (bodies == bodies_) return;
  bodies_ = bodies;
  paramsDirty_ = true; // every stage's arguments take the count: launch() compares them all
}

void NBodyFrameGraph::setStageEnabled(NBodyStage stage, bool enabled) {
  const std::string_view why = whyNotTogglable(stage);
  if (!why.empty()) {
    if (enabled) return; // a fixed stage is always enabled: asking for that is not a toggle
    throw std::invalid_argument("stage " + std::string(stageName(stage)) + " cannot be disabled: " + std::string(why));
  }
  bool& current = enabled_[static_cast<int>(stage)];
  if (current == enabled) return;
  current = enabled;
  counters_.enableToggles += syncEnables(exec_.get(), nodes_, [&](const Node& n) {
    return followsStage(n, stage) ? std::optional<bool>(enabled) : std::nullopt;
  });
  nodeList_.enableStates = true;
}

bool NBodyFrameGraph::runsStage(NBodyStage stage) const {
  return enabled_[static_cast<int>(stage)] || !stageInfo(stage).togglable();
}

void NBodyFrameGraph::syncEnableStates() {
  // Called once nodes_ and exec_ are (re)built: the node list is rebuilt and read back on its next read.
  nodeList_.structure = true;
  // The diagnostics node is disabled until a launch that samples enables it (prepareDiagnostics); not counted (the
  // schedule's).
  (void)syncEnables(exec_.get(), nodes_, [](const Node& n) {
    return n.kind == Kind::Diagnostics ? std::optional<bool>(false) : std::nullopt;
  });
  diagnosticsExecEnabled_ = false;
  counters_.enableToggles += syncEnables(exec_.get(), nodes_, [&](const Node& n) {
    return stageNode(n) ? std::optional<bool>(runsStage(n.stage)) : std::nullopt;
  });
}

void NBodyFrameGraph::applyChangedKernels(bool allStages) {
  counters_.nodeUpdates += updateKernels(exec_.get(), nodes_, [&](const Node& n) -> std::optional<KernelNodeSpec> {
    if (!stageNode(n) || (!allStages && n.stage != NBodyStage::WriteRender)) return std::nullopt;
    if (n.kind == Kind::TreeKernel) return treeSpec(n);
    return n.kind == Kind::ForcesConvert ? convertSpec() : stageSpec(n.stage, n.substep);
  });
}

void NBodyFrameGraph::setDiagnosticsEvery(int every) {
  if (every < 0) throw std::invalid_argument("NBodyFrameGraph: diagnostics interval " + std::to_string(every) + " < 0");
  requireDiagnosticsBuffers(every);
  if ((diagnosticsEvery_ > 0) == (every > 0)) {
    diagnosticsEvery_ = every;
    return;
  }
  rebuildWith(diagnosticsEvery_, every,
              std::string("diagnostics ") + (every > 0 ? "on: node added" : "off: node removed"));
}

void NBodyFrameGraph::setDiagnosticsEnabled(bool enabled) {
  if (enabled == diagnosticsOn_) return;
  diagnosticsOn_ = enabled;
  nodeList_.enableStates = true; // the node's row shows this setting
}

bool NBodyFrameGraph::diagnosticsSamples(std::uint64_t frame) const {
  // dt 0 (paused) moves nothing and would re-synchronise with dt 0; forces off leaves a(t) stale.
  return diagnosticsEvery_ > 0 && diagnosticsOn_ && params_.dt != 0.0f && runsStage(NBodyStage::Forces) &&
         diagnosticsDue(frame, diagnosticsEvery_, diagnosticsFirstPending_);
}

KernelNodeSpec NBodyFrameGraph::diagnosticsSpecFor(std::uint64_t frame) const {
  const BodiesView& b = bodies_;
  const NBodyParams& p = params_;
  // eps^2 as the forces node's (stageSpec); dt / 2 in float is exact.
  return diagnosticsSpec({b.posMass, b.vel, b.accel, diagnostics_.state, diagnostics_.hostReport, frame, b.n, p.G,
                          p.softening * p.softening, p.dt * 0.5f});
}

void NBodyFrameGraph::prepareDiagnostics(std::uint64_t frame) {
  if (diagnosticsEvery_ == 0) return;
  Node* node = nullptr;
  for (Node& n : nodes_) {
    if (n.kind == Kind::Diagnostics) node = &n;
  }
  if (node == nullptr) return;
  const bool sample = diagnosticsSamples(frame);
  if (sample) {
    (void)updateKernelNode(exec_.get(), node->node, node->applied, diagnosticsSpecFor(frame), node->name);
    diagnosticsFrame_ = frame;
    diagnosticsFirstPending_ = false;
  }
  if (sample != diagnosticsExecEnabled_) {
    CUDA_CHECK_CTX(cudaGraphNodeSetEnabled(exec_.get(), node->node, sample ? 1u : 0u), node->name);
    diagnosticsExecEnabled_ = sample;
  }
}

void NBodyFrameGraph::launch(std::uint64_t frame, float4* output, cudaStream_t stream) {
  const auto t0 = std::chrono::steady_clock::now();
  nvtx::Range updates(nvtx::Phase::NodeUpdates, frame);
  if (hasSemaphores())
    setFrameSemaphoreValues(exec_.get(), nodes_.front().node, nodes_.back().node, semaphores_, frame);
  if (output != output_) {
    output_ = output;
    outputDirty_ = true;
  }
  if (paramsDirty_ || outputDirty_) applyChangedKernels(paramsDirty_);
  paramsDirty_ = outputDirty_ = false;
  prepareDiagnostics(frame);
  if (profiling_) {
    const std::size_t slot = protocol().slot(frame);
    harvestMarks(slot);
    pointMarksAt(slot);
    markFrame_[slot] = frame;
  }
  updates.end();
  const auto t1 = std::chrono::steady_clock::now();
  const nvtx::Range launching(nvtx::Phase::GraphLaunch, frame);
  CUDA_CHECK_CTX(cudaGraphLaunch(exec_.get(), stream), "launching frame " + std::to_string(frame));
  lastUpdateHostUs_ = std::chrono::duration<double, std::micro>(t1 - t0).count();
  lastLaunchHostUs_ = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t1).count();
}

void NBodyFrameGraph::rebuild(const BodiesView& bodies, int substeps, const NBodyParams& params,
                              const std::array<bool, kStageCount>& enabled, float4* output, const std::string& cause) {
  // Strong guarantee: on a throw the graph keeps its old inputs and exec (the caller keeps the old state alive).
  // The enable states only reach the exec in syncEnableStates() below, after the last point that can throw.
  auto inputs = std::tie(bodies_, substeps_, params_, enabled_, output_);
  const auto old = std::make_tuple(bodies_, substeps_, params_, enabled_, output_);
  const int oldSubsteps = substeps_;
  const bool oldTree = bodies_.tree.present();
  inputs = std::tie(bodies, substeps, params, enabled, output);
  try {
    Built fresh = build();
    std::string notAttempted;
    if (slice_) {
      notAttempted = "one GPU of several: its NCCL collectives are captured afresh";
    } else if (bodies_.tree.present() || oldTree) {
      // The kernels of the tree's loops take their graph's condition handles as arguments: a whole-graph update
      // would leave them with the old graph's.
      notAttempted = "forces: tree: its WHILE conditions are made afresh";
    } else if (programmatic_ != execProgrammatic_) {
      // Edge types are topology too: cudaGraphExecUpdate refuses the change (and compute-sanitizer would report the
      // refused call), so it is not attempted.
      notAttempted = std::string("cudaGraphExecUpdateErrorTopologyChanged: kernel-to-kernel edges ") +
                     (programmatic_ ? "programmatic" : "ordinary") + " now";
    } else if (fresh.nodes.size() != nodes_.size()) {
      // The builder is deterministic, so another node count is another topology, which cudaGraphExecUpdate refuses
      // with cudaGraphExecUpdateErrorTopologyChanged. Not calling it keeps compute-sanitizer runs free of an
      // expected API error; the reason says the same thing the call would have.
      notAttempted = "cudaGraphExecUpdateErrorTopologyChanged: " + std::to_string(nodes_.size()) + " -> " +
                     std::to_string(fresh.nodes.size()) + " nodes (substeps " + std::to_string(oldSubsteps) + " -> " +
                     std::to_string(substeps_) + ")";
    }
    if (replaceGraph(exec_, nodes_, std::move(fresh), counters_, cause, notAttempted)) {
      execProgrammatic_ = programmatic_;
    }
  } catch (...) {
    inputs = old;
    throw;
  }
  // Every node now holds the parameters it was built with (params_, output_).
  paramsDirty_ = outputDirty_ = false;
  // The programming guide says enable states survive cudaGraphExecUpdate, and a fresh exec starts all enabled;
  // reading each back and fixing only differences covers both without relying on either.
  syncEnableStates();
}

void NBodyFrameGraph::setProgrammaticLaunch(bool enabled) {
  if (enabled == programmatic_) return;
  rebuildWith(
      programmatic_, enabled,
      std::string("programmatic launch ") + (enabled ? "on" : "off") + ": the kernel-to-kernel edges changed type");
}

void NBodyFrameGraph::dumpDot(const std::filesystem::path& path) const { dumpGraphDot(exec_.shown(), path); }

} // namespace graphsim::cuda
