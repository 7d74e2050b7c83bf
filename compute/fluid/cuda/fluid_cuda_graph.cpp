// FluidCudaBackend's frame graph: built once per structural change (WHILE body or unrolled substeps, the captured CUB
// sort as a child graph, scratch from graph memory nodes or preallocated), instantiated, updated per frame by node
// updates and enable toggles, and launched; or, for HostDecided, the same specs launched on the stream.
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/cuda/cuda_check.h"
#include "compute/cuda/frame_shell.h"
#include "compute/cuda/kernel_launch.h"
#include "compute/fluid/cuda/fluid_cuda_impl.h"
#include "compute/nvtx.h"

namespace graphsim::fluid {

// ---- graph building ----
void FluidCudaBackend::Impl::addKernel(cudaGraph_t g, std::vector<cudaGraphNode_t>& deps, Step step, int substep) {
  const KernelSpec s = spec(step);
  std::string name = substep > 0 ? std::string(stepName(step)) + "#" + std::to_string(substep) : stepName(step);
  const cudaGraphNode_t node = cuda::addKernelNode(g, deps.data(), deps.size(), s, name);
  built.nodes.push_back({std::move(name), static_cast<int>(step), node, s});
  deps.assign(1, node);
}

void FluidCudaBackend::Impl::captureSort() {
  bool alt = false;
  sortGraph = cuda::captureGraph(
      [&](cudaStream_t s) {
        alt = gpu::sortOnStream(scratch.sortTemp, scratch.sortTempBytes, scratch.keys, scratch.keysAlt, scratch.vals,
                                scratch.valsAlt, static_cast<int>(config.particles), layout.keyBits, s);
      },
      "capturing the fluid's sort");
  scratch.sortedInAlt = alt;
  CUDA_CHECK(cudaGraphGetNodes(sortGraph.get(), nullptr, &sortChildNodes));
}

cudaGraph_t* FluidCudaBackend::Impl::addConditional(cudaGraph_t g, std::vector<cudaGraphNode_t>& deps,
                                                    cudaGraphConditionalHandle h, cudaGraphConditionalNodeType type,
                                                    unsigned size, const char* what) {
  cudaGraphNode_t node = nullptr;
  cudaGraph_t* bodies = cuda::addConditionalNode(g, deps.data(), deps.size(), h, type, size, what, &node);
  deps.assign(1, node);
  return bodies;
}

void FluidCudaBackend::Impl::addScope(cudaGraph_t g, std::vector<cudaGraphNode_t>& deps, StepScope scope, int substep) {
  // The solve loops' handles live in the SWITCH's DFSPH branch; its kernels take them (none where the solves are
  // unrolled or decided by the host).
  if (scope == StepScope::Dfsph && switchBuilt()) {
    CUDA_CHECK(cudaGraphConditionalHandleCreate(&handles.divergence, g, 0, 0));
    CUDA_CHECK(cudaGraphConditionalHandleCreate(&handles.density, g, 0, 0));
  }
  for (const FluidStepRow& row : kFluidSteps)
    if (row.place == StepPlace::Substep && row.scope == scope) addStep(g, deps, row, substep);
}

void FluidCudaBackend::Impl::addStep(cudaGraph_t g, std::vector<cudaGraphNode_t>& deps, const FluidStepRow& row,
                                     int substep) {
  cudaGraphNode_t node = nullptr;
  switch (row.node) {
  case StepNode::Kernel: addKernel(g, deps, row.step, substep); return;
  case StepNode::SolverSwitch: {
    if (!switchBuilt()) { // no SWITCH: the configured solver's rows in place
      addScope(g, deps, solverScope(), substep);
      return;
    }
    cudaGraph_t* branches =
        addConditional(g, deps, handles.solver, cudaGraphCondTypeSwitch, 2, "adding the solver SWITCH");
    const cudaGraph_t wcsph = branches[0], dfsph = branches[1];
    std::vector<cudaGraphNode_t> inner;
    addScope(wcsph, inner, StepScope::Wcsph, substep);
    inner.clear();
    addScope(dfsph, inner, StepScope::Dfsph, substep);
    return;
  }
  case StepNode::ResortIf: {
    if (!switchBuilt()) { // no conditional node: sort and build in every step
      addScope(g, deps, row.body, substep);
      return;
    }
    cudaGraph_t* branches = addConditional(g, deps, handles.resort, cudaGraphCondTypeIf, 2, "adding the re-sort IF");
    std::vector<cudaGraphNode_t> inner;
    addScope(branches[0], inner, row.body, substep);
    inner.clear();
    addScope(branches[1], inner, row.orElse, substep);
    return;
  }
  case StepNode::SolveWhile: {
    if (!switchBuilt()) { // unrolled: the fixed count's velocity updates and the check that stops (as the WHILE's last)
      const int w =
          static_cast<int>(row.step == Step::DivergenceLoop ? sph_math::Solve::Divergence : sph_math::Solve::Density);
      for (int i = 0; i <= options.fixedIterations[w]; ++i) addScope(g, deps, row.body, substep);
      return;
    }
    const cudaGraphConditionalHandle h = row.step == Step::DivergenceLoop ? handles.divergence : handles.density;
    const cudaGraph_t body = addConditional(g, deps, h, cudaGraphCondTypeWhile, 1, "adding a solve's WHILE")[0];
    std::vector<cudaGraphNode_t> inner;
    addScope(body, inner, row.body, substep);
    return;
  }
  case StepNode::SortChildGraph:
    CUDA_CHECK_CTX(cudaGraphAddChildGraphNode(&node, g, deps.data(), deps.size(), sortGraph.get()), "adding sort");
    break;
  case StepNode::ClearCellsMemset: {
    cudaMemsetParams clear{};
    clear.dst = scratch.cellStart;
    clear.value = 0xFF;
    clear.elementSize = 1;
    clear.width = layout.cells * sizeof(unsigned);
    clear.height = 1;
    clear.pitch = 0;
    CUDA_CHECK_CTX(cudaGraphAddMemsetNode(&node, g, deps.data(), deps.size(), &clear), "adding clear_cells");
    break;
  }
  }
  deps.assign(1, node);
}

void FluidCudaBackend::Impl::addSubstep(cudaGraph_t g, std::vector<cudaGraphNode_t>& deps, int substep) {
  // The IF's and the SWITCH's handles live in the substep's graph: cfl, before them, sets their values (the re-sort
  // rule; the solver setting).
  if (switchBuilt()) {
    CUDA_CHECK(cudaGraphConditionalHandleCreate(&handles.resort, g, 0, 0));
    CUDA_CHECK(cudaGraphConditionalHandleCreate(&handles.solver, g, 0, 0));
  }
  addScope(g, deps, StepScope::Top, substep);
}

void FluidCudaBackend::Impl::build() {
  built = {};
  handles = {};
  if (options.launch == FluidLaunch::HostDecided) { // stream launches: only the sort is a graph
    captureSort();
    return;
  }
  cuda::Graph owner = cuda::makeGraph();
  cudaGraph_t g = owner.get();
  std::vector<cudaGraphNode_t> deps;
  cudaGraphNode_t allocNode = nullptr;
  if (options.scratch == FluidScratch::GraphMemoryNodes) {
    cudaMemAllocNodeParams alloc{};
    alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    alloc.poolProps.location.type = cudaMemLocationTypeDevice;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    alloc.poolProps.location.id = device;
    alloc.bytesize = layout.bytes;
    CUDA_CHECK_CTX(cudaGraphAddMemAllocNode(&allocNode, g, nullptr, 0, &alloc), "adding the scratch alloc node");
    scratch = layout.at(alloc.dptr);
    deps.assign(1, allocNode);
  }
  captureSort();
  if (frames.interop()) {
    deps.assign(1, cuda::addFrameWaitNode(g, deps.data(), deps.size(), frames.semaphores()));
    built.nodes.push_back({cuda::kWaitNodeName, -1, deps[0], {}});
  }
  const bool loop = options.launch == FluidLaunch::WhileGraph;
  if (loop) CUDA_CHECK(cudaGraphConditionalHandleCreate(&handles.frame, g, 0, 0));
  for (const FluidStepRow& row : kFluidSteps)
    if (row.place == StepPlace::FrameStart) addStep(g, deps, row, -1);
  if (loop) {
    const cudaGraph_t body =
        addConditional(g, deps, handles.frame, cudaGraphCondTypeWhile, 1, "adding the WHILE node")[0];
    std::vector<cudaGraphNode_t> inner;
    addSubstep(body, inner, 0);
  } else {
    for (int s = 0; s < options.fixedSubsteps; ++s) addSubstep(g, deps, s);
  }
  // The diagnostics node reads the state the frame ended with before anything reads it for the render; it is
  // disabled except on sampling frames.
  for (const FluidStepRow& row : kFluidSteps)
    if (row.place == StepPlace::FrameEnd && runs(row)) addStep(g, deps, row, -1);
  if (allocNode != nullptr) {
    cudaGraphNode_t freeNode = nullptr;
    CUDA_CHECK_CTX(cudaGraphAddMemFreeNode(&freeNode, g, deps.data(), deps.size(), static_cast<void*>(scratch.keys)),
                   "adding the scratch free node");
    deps.assign(1, freeNode);
  }
  if (frames.interop()) {
    built.nodes.push_back(
        {cuda::kSignalNodeName, -1, cuda::addFrameSignalNode(g, deps.data(), deps.size(), frames.semaphores()), {}});
  }
  built.graph = std::move(owner);
}

void FluidCudaBackend::Impl::install(const std::string& cause) {
  if (!built.graph) { // HostDecided: only the standalone sort
    instantiateSort();
    return;
  }
  if (exec.exec) synchronize(); // no launch may still use the exec
  // Each build creates the WHILE node's conditional handle, which frame_begin and condition take as an argument, and
  // CUDA does not update a conditional node's parameters; an update with memory nodes is not tried either.
  const std::string notAttempted =
      options.launch == FluidLaunch::WhileGraph ? "the WHILE node's conditional handle is created with each build"
      : options.scratch == FluidScratch::GraphMemoryNodes ? "the scratch comes from graph memory nodes"
                                                          : "";
  (void)cuda::replaceGraph(exec, graphNodes, std::move(built), counters, cause, notAttempted);
  (void)syncToggles(); // a fresh exec has every node enabled; an updated one keeps its states
  (void)cuda::syncEnables(exec.get(), graphNodes, [](const cuda::GraphNode& n) {
    return n.row == static_cast<int>(Step::Diagnostics) ? std::optional<bool>(false) : std::nullopt;
  });
  diagnosticsExecEnabled = false;
  CUDA_CHECK(cudaGraphUpload(exec.get(), frames.stream.get()));
  instantiateSort();
}

void FluidCudaBackend::Impl::instantiateSort() {
  sortExec.reset();
  if (options.scratch == FluidScratch::GraphMemoryNodes) return;
  sortExec = cuda::instantiateGraph(sortGraph.get());
  nodesStale = true;
}

std::uint64_t FluidCudaBackend::Impl::syncToggles() {
  return cuda::syncEnables(exec.get(), graphNodes, [&](const cuda::GraphNode& n) -> std::optional<bool> {
    const std::optional<FluidToggle> toggle =
        n.row < 0 ? std::nullopt : kFluidSteps[static_cast<std::size_t>(n.row)].toggle;
    return toggle ? std::optional<bool>(config.enabled[static_cast<std::size_t>(*toggle)]) : std::nullopt;
  });
}

void FluidCudaBackend::Impl::applyChangedSpecs() {
  counters.nodeUpdates += cuda::updateKernels(exec.get(), graphNodes, [&](const cuda::GraphNode& n) {
    // frame_begin is updated every frame in launchGraph()
    const bool update = n.row >= 0 && n.row != static_cast<int>(Step::FrameBegin);
    return update ? std::optional<KernelSpec>(spec(static_cast<Step>(n.row))) : std::nullopt;
  });
}

void FluidCudaBackend::Impl::launchGraph(std::uint64_t k) {
  nvtx::Range updates(nvtx::Phase::NodeUpdates, k);
  if (semaphoreNodes()) {
    cuda::setFrameSemaphoreValues(exec.get(), graphNodes.front().node, graphNodes.back().node, frames.semaphores(), k);
  }
  cuda::GraphNode& begin = graphNodes[semaphoreNodes() ? 1 : 0]; // frame_begin: the frame index, every frame
  (void)cuda::updateKernelNode(exec.get(), begin.node, begin.applied, spec(Step::FrameBegin, k), begin.name);
  if (settingsDirty) applyChangedSpecs();
  settingsDirty = false;
  prepareDiagnostics(k);
  if (injectedFailure && injectedFailure->frame == k) breakInjectedNode(k);
  updates.end();
  const nvtx::Range launching(nvtx::Phase::GraphLaunch, k);
  CUDA_CHECK_CTX(cudaGraphLaunch(exec.get(), frames.stream.get()),
                 "launching fluid frame " + std::to_string(k) + injectedNote());
}

void FluidCudaBackend::Impl::breakInjectedNode(std::uint64_t k) {
  for (cuda::GraphNode& n : graphNodes) {
    if (!failureDue(static_cast<Step>(n.row), k)) continue;
    // 4096 threads per block: above the 1024 every CUDA GPU allows. Which call reports it (this update, the launch,
    // or the stream afterwards) is the driver's choice; each names the node.
    KernelSpec bad = n.applied;
    bad.block = dim3(4096, 1, 1);
    std::fprintf(stderr, "graphsim: --inject kernel-fail: node %s gets 4096 threads per block\n", n.name.c_str());
    injectedNode = n.name;
    (void)cuda::updateKernelNode(exec.get(), n.node, n.applied, bad, n.name + injectedNote());
    return;
  }
  throw std::invalid_argument(std::string("--inject kernel-fail: this fluid graph has no ") +
                              stepName(injectedFailure->step) + " node (that solver's rows are not built)");
}

void FluidCudaBackend::Impl::launchStep(const FluidStepRow& row, std::uint64_t k) {
  if (row.toggle && !config.enabled[static_cast<std::size_t>(*row.toggle)]) return; // as a disabled node
  switch (row.node) {
  case StepNode::SolverSwitch: launchScope(row.place, solverScope(), k); return;
  case StepNode::ResortIf: launchScope(row.place, readBack().resort != 0 ? row.body : row.orElse, k); return;
  case StepNode::SolveWhile: launchSolve(row, k); return;
  default: break;
  }
  const auto launchNode = [&] {
    switch (row.node) {
    case StepNode::Kernel: {
      KernelSpec s = spec(row.step, k);
      if (failureDue(row.step, k)) { // --inject kernel-fail on the stream launches
        s.block = dim3(4096, 1, 1);
        injectedNode = stepName(row.step);
      }
      cuda::launchKernel(s, frames.stream.get(), [&] { return stepName(row.step) + injectedNote(); });
      return;
    }
    case StepNode::SortChildGraph: CUDA_CHECK(cudaGraphLaunch(sortExec.get(), frames.stream.get())); return;
    case StepNode::ClearCellsMemset:
      CUDA_CHECK(cudaMemsetAsync(scratch.cellStart, 0xFF, layout.cells * sizeof(unsigned), frames.stream.get()));
      return;
    default: return;
    }
  };
  if (!passClock) {
    launchNode();
    return;
  }
  CUDA_CHECK(cudaEventRecord(passStart.get(), frames.stream.get()));
  launchNode();
  CUDA_CHECK(cudaEventRecord(passEnd.get(), frames.stream.get()));
  synchronize();
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, passStart.get(), passEnd.get()));
  const auto i = static_cast<std::size_t>(row.step);
  passClock->ms[i] += ms;
  passClock->launches[i] += 1;
}

void FluidCudaBackend::Impl::launchScope(StepPlace place, StepScope scope, std::uint64_t k) {
  for (const FluidStepRow& row : kFluidSteps)
    if (row.place == place && row.scope == scope) launchStep(row, k);
}

const gpu::FrameControl& FluidCudaBackend::Impl::readBack() {
  CUDA_CHECK(cudaMemcpyAsync(hostCtrl.get(), ctrl.get(), sizeof(gpu::FrameControl), cudaMemcpyDeviceToHost,
                             frames.stream.get()));
  synchronize();
  return *hostCtrl.get();
}

void FluidCudaBackend::Impl::launchSolve(const FluidStepRow& loop, std::uint64_t k) {
  for (;;) {
    for (const FluidStepRow& row : kFluidSteps) {
      if (row.place != loop.place || row.scope != loop.body) continue;
      launchStep(row, k);
      // The check's decision, as the WHILE's handle would carry it: stop before the velocity update it would skip.
      if ((row.step == Step::DivergenceCheck || row.step == Step::DensityCheck) && readBack().solveApply == 0) return;
    }
  }
}

void FluidCudaBackend::Impl::launchHostDecided(std::uint64_t k) {
  if (frames.interop()) cuda::waitRenderDoneOnStream(frames.stream.get(), frames.semaphores(), k);
  launchScope(StepPlace::FrameStart, StepScope::Top, k);
  while (readBack().proceed != 0) launchScope(StepPlace::Substep, StepScope::Top, k);
  const bool sample = prepareDiagnostics(k);
  for (const FluidStepRow& row : kFluidSteps)
    if (row.place == StepPlace::FrameEnd && runs(row) && (!row.diagnostics || sample)) launchStep(row, k);
  if (frames.interop()) cuda::signalSimDoneOnStream(frames.stream.get(), frames.semaphores(), k);
}

// ---- live diagnostics ----
bool FluidCudaBackend::Impl::diagnosticsSample(std::uint64_t k) const {
  return config.diagnosticsEvery > 0 &&
         fluidDiagnosticsDue(k, config.diagnosticsEvery, diagnosticsFirstPending, diagnosticsOn, frameDt);
}

bool FluidCudaBackend::Impl::prepareDiagnostics(std::uint64_t k) {
  const bool sample = diagnosticsSample(k);
  if (sample) diagnosticsFirstPending = false;
  for (const cuda::GraphNode& n : graphNodes) { // none in HostDecided: the caller launches the kernel itself
    if (n.row != static_cast<int>(Step::Diagnostics) || sample == diagnosticsExecEnabled) continue;
    (void)cuda::syncNodeEnabled(exec.get(), n.node, sample, n.name);
    diagnosticsExecEnabled = sample;
  }
  return sample;
}

void FluidCudaBackend::Impl::launch(std::uint64_t k) {
  const auto t0 = Clock::now();
  frames.timed(k, [&] { options.launch == FluidLaunch::HostDecided ? launchHostDecided(k) : launchGraph(k); });
  nextFrame = k + 1;
  lastUpdateHostUs = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

} // namespace graphsim::fluid
