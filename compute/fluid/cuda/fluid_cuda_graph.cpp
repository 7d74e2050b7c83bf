// FluidCudaBackend's frame graph: built once per structural change (WHILE body or unrolled substeps, the captured CUB
// sort as a child graph, scratch from graph memory nodes or preallocated), instantiated, updated per frame by node
// updates and enable toggles, and launched; or, for HostDecided, the same specs launched on the stream.
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
  void* slot[1];
  const cudaKernelNodeParams p = s.nodeParams(slot);
  cudaGraphNode_t node = nullptr;
  CUDA_CHECK_CTX(cudaGraphAddKernelNode(&node, g, deps.data(), deps.size(), &p),
                 std::string("adding node ") + stepName(step));
  kernels.push_back({step, substep, node, s});
  deps.assign(1, node);
}

void FluidCudaBackend::Impl::captureSort() {
  cuda::Stream capture = cuda::makeStream();
  CUDA_CHECK(cudaStreamBeginCapture(capture.get(), cudaStreamCaptureModeThreadLocal));
  bool alt = false;
  try {
    alt = gpu::sortOnStream(scratch.sortTemp, scratch.sortTempBytes, scratch.keys, scratch.keysAlt, scratch.vals,
                            scratch.valsAlt, static_cast<int>(config.particles), layout.keyBits, capture.get());
  } catch (...) {
    cudaGraph_t discard = nullptr;
    CUDA_LOG(cudaStreamEndCapture(capture.get(), &discard));
    if (discard != nullptr) CUDA_LOG(cudaGraphDestroy(discard));
    throw;
  }
  cudaGraph_t g = nullptr;
  CUDA_CHECK(cudaStreamEndCapture(capture.get(), &g));
  sortGraph = cuda::Graph(g);
  scratch.sortedInAlt = alt;
  CUDA_CHECK(cudaGraphGetNodes(g, nullptr, &sortChildNodes));
}

void FluidCudaBackend::Impl::addStep(cudaGraph_t g, std::vector<cudaGraphNode_t>& deps, const FluidStepRow& row,
                                     int substep) {
  cudaGraphNode_t node = nullptr;
  switch (row.node) {
  case StepNode::Kernel: addKernel(g, deps, row.step, substep); return;
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
  for (const FluidStepRow& row : kFluidSteps)
    if (row.place == StepPlace::Substep) addStep(g, deps, row, substep);
}

void FluidCudaBackend::Impl::build() {
  kernels.clear();
  handle = 0;
  waitNode = signalNode = nullptr;
  if (options.launch == FluidLaunch::HostDecided) { // stream launches: only the sort is a graph
    captureSort();
    graph.reset();
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
  if (!renderBuffers.empty()) {
    waitNode = cuda::addFrameWaitNode(g, deps.data(), deps.size(), frameSemaphores());
    deps.assign(1, waitNode);
  }
  const bool loop = options.launch == FluidLaunch::WhileGraph;
  if (loop) CUDA_CHECK(cudaGraphConditionalHandleCreate(&handle, g, 0, 0));
  for (const FluidStepRow& row : kFluidSteps)
    if (row.place == StepPlace::FrameStart) addStep(g, deps, row, -1);
  if (loop) {
    cudaGraphNodeParams params{};
    params.type = cudaGraphNodeTypeConditional;
    params.conditional.handle = handle;
    params.conditional.type = cudaGraphCondTypeWhile;
    params.conditional.size = 1;
    cudaGraphNode_t whileNode = nullptr;
    CUDA_CHECK_CTX(cudaGraphAddNode(&whileNode, g, deps.data(), nullptr, deps.size(), &params),
                   "adding the WHILE node");
    std::vector<cudaGraphNode_t> body;
    addSubstep(params.conditional.phGraph_out[0], body, 0);
    deps.assign(1, whileNode);
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
  if (!renderBuffers.empty()) signalNode = cuda::addFrameSignalNode(g, deps.data(), deps.size(), frameSemaphores());
  graph = std::move(owner);
}

void FluidCudaBackend::Impl::instantiate(const std::string& why) {
  if (exec) {
    synchronize();
    exec.reset();
    ++counters.reinstantiations;
    counters.lastFallbackReason = why;
  }
  if (!graph) {
    instantiateSort();
    return;
  }
  cudaGraphExec_t e = nullptr;
  CUDA_CHECK_CTX(cudaGraphInstantiate(&e, graph.get(), 0), "instantiating the fluid frame graph");
  exec = cuda::GraphExec(e);
  afterInstantiate();
}

void FluidCudaBackend::Impl::afterInstantiate() {
  for (const FluidToggleInfo& t : kFluidToggles) applyToggle(t.toggle, false); // a fresh exec has every node enabled
  for (const KernelNode& k : kernels) {
    if (k.step == Step::Diagnostics)
      CUDA_CHECK_CTX(cudaGraphNodeSetEnabled(exec.get(), k.node, 0), "disabling node diagnostics");
  }
  diagnosticsExecEnabled = false;
  CUDA_CHECK(cudaGraphUpload(exec.get(), stream.get()));
  instantiateSort();
}

void FluidCudaBackend::Impl::instantiateSort() {
  sortExec.reset();
  if (options.scratch == FluidScratch::GraphMemoryNodes) return;
  cudaGraphExec_t se = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&se, sortGraph.get(), 0));
  sortExec = cuda::GraphExec(se);
  nodesStale = true;
}

void FluidCudaBackend::Impl::applyToggle(FluidToggle toggle, bool counted) {
  const bool on = settings.enabled[static_cast<std::size_t>(toggle)];
  for (const KernelNode& k : kernels) {
    if (stepRow(k.step).toggle != toggle) continue;
    CUDA_CHECK_CTX(cudaGraphNodeSetEnabled(exec.get(), k.node, on ? 1 : 0),
                   std::string("toggling node ") + stepName(k.step));
    if (counted) ++counters.enableToggles;
  }
}

void FluidCudaBackend::Impl::applyChangedSpecs() {
  for (KernelNode& k : kernels) {
    if (k.step == Step::FrameBegin) continue; // updated every frame in launch()
    const KernelSpec want = spec(k.step);
    if (want == k.applied) continue;
    void* slot[1];
    const cudaKernelNodeParams p = want.nodeParams(slot);
    CUDA_CHECK_CTX(cudaGraphExecKernelNodeSetParams(exec.get(), k.node, &p),
                   std::string("updating node ") + stepName(k.step));
    k.applied = want;
    ++counters.nodeUpdates;
  }
}

void FluidCudaBackend::Impl::launchGraph(std::uint64_t k) {
  nvtx::Range updates(nvtx::Phase::NodeUpdates, k);
  if (waitNode != nullptr) cuda::setFrameSemaphoreValues(exec.get(), waitNode, signalNode, frameSemaphores(), k);
  KernelNode& begin = kernels.front(); // frame_begin: the frame index, every frame
  const KernelSpec b = spec(Step::FrameBegin, k);
  void* slot[1];
  const cudaKernelNodeParams p = b.nodeParams(slot);
  CUDA_CHECK_CTX(cudaGraphExecKernelNodeSetParams(exec.get(), begin.node, &p), "updating frame_begin");
  begin.applied = b;
  if (settingsDirty) applyChangedSpecs();
  settingsDirty = false;
  prepareDiagnostics(k);
  updates.end();
  const nvtx::Range launching(nvtx::Phase::GraphLaunch, k);
  CUDA_CHECK_CTX(cudaGraphLaunch(exec.get(), stream.get()), "launching fluid frame " + std::to_string(k));
}

void FluidCudaBackend::Impl::launchStep(const FluidStepRow& row, std::uint64_t k) {
  if (row.toggle && !settings.enabled[static_cast<std::size_t>(*row.toggle)]) return; // as a disabled node
  switch (row.node) {
  case StepNode::Kernel:
    cuda::launchKernel(spec(row.step, k), stream.get(), [&] { return stepName(row.step); });
    return;
  case StepNode::SortChildGraph: CUDA_CHECK(cudaGraphLaunch(sortExec.get(), stream.get())); return;
  case StepNode::ClearCellsMemset:
    CUDA_CHECK(cudaMemsetAsync(scratch.cellStart, 0xFF, layout.cells * sizeof(unsigned), stream.get()));
    return;
  }
}

void FluidCudaBackend::Impl::launchHostDecided(std::uint64_t k) {
  if (!renderBuffers.empty()) cuda::waitRenderDoneOnStream(stream.get(), frameSemaphores(), k);
  for (const FluidStepRow& row : kFluidSteps)
    if (row.place == StepPlace::FrameStart) launchStep(row, k);
  for (;;) {
    CUDA_CHECK(
        cudaMemcpyAsync(hostCtrl.get(), ctrl.get(), sizeof(gpu::FrameControl), cudaMemcpyDeviceToHost, stream.get()));
    synchronize();
    if (hostCtrl.get()->proceed == 0) break;
    for (const FluidStepRow& row : kFluidSteps)
      if (row.place == StepPlace::Substep) launchStep(row, k);
  }
  const bool sample = prepareDiagnostics(k);
  for (const FluidStepRow& row : kFluidSteps)
    if (row.place == StepPlace::FrameEnd && runs(row) && (!row.diagnostics || sample)) launchStep(row, k);
  if (!renderBuffers.empty()) cuda::signalSimDoneOnStream(stream.get(), frameSemaphores(), k);
}

// ---- live diagnostics ----
bool FluidCudaBackend::Impl::diagnosticsSample(std::uint64_t k) const {
  return config.diagnosticsEvery > 0 &&
         fluidDiagnosticsDue(k, config.diagnosticsEvery, diagnosticsFirstPending, diagnosticsOn, settings.frameDt);
}

bool FluidCudaBackend::Impl::prepareDiagnostics(std::uint64_t k) {
  const bool sample = diagnosticsSample(k);
  if (sample) diagnosticsFirstPending = false;
  for (const KernelNode& n : kernels) { // none in HostDecided: the caller launches the kernel itself
    if (n.step != Step::Diagnostics || sample == diagnosticsExecEnabled) continue;
    CUDA_CHECK_CTX(cudaGraphNodeSetEnabled(exec.get(), n.node, sample ? 1u : 0u),
                   std::string(sample ? "enabling" : "disabling") + " node diagnostics");
    diagnosticsExecEnabled = sample;
  }
  return sample;
}

void FluidCudaBackend::Impl::launch(std::uint64_t k) {
  const auto t0 = Clock::now();
  timing.begin(k, stream.get());
  if (options.launch == FluidLaunch::HostDecided) {
    launchHostDecided(k);
  } else {
    launchGraph(k);
  }
  timing.end(k, stream.get());
  lastLaunched = k;
  nextFrame = k + 1;
  lastUpdateHostUs = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

} // namespace graphsim::fluid
