// FluidCudaBackend's frame graph: built once per structural change (WHILE body or unrolled substeps, the captured CUB
// sort as a child graph, scratch from graph memory nodes or preallocated), instantiated, updated per frame by node
// updates and enable toggles, and launched; or, for HostDecided, the same specs launched on the stream.
#include <string>
#include <vector>

#include "compute/cuda/cuda_check.h"
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
                 std::string("adding node ") + gpu::stepName(step));
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

void FluidCudaBackend::Impl::addSubstep(cudaGraph_t g, std::vector<cudaGraphNode_t>& deps, int substep) {
  addKernel(g, deps, Step::Cfl, substep);
  addKernel(g, deps, Step::Keys, substep);
  cudaGraphNode_t sort = nullptr;
  CUDA_CHECK_CTX(cudaGraphAddChildGraphNode(&sort, g, deps.data(), deps.size(), sortGraph.get()), "adding sort");
  deps.assign(1, sort);
  cudaMemsetParams clear{};
  clear.dst = scratch.cellStart;
  clear.value = 0xFF;
  clear.elementSize = 1;
  clear.width = layout.cells * sizeof(unsigned);
  clear.height = 1;
  clear.pitch = 0;
  cudaGraphNode_t memset = nullptr;
  CUDA_CHECK_CTX(cudaGraphAddMemsetNode(&memset, g, deps.data(), deps.size(), &clear), "adding clear_cells");
  deps.assign(1, memset);
  for (Step s : kBodySteps) {
    if (s == Step::Cfl || s == Step::Keys) continue;
    addKernel(g, deps, s, substep);
  }
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
    cudaExternalSemaphore_t sem = renderDone.get();
    cudaExternalSemaphoreWaitParams wp{};
    const cudaExternalSemaphoreWaitNodeParams w{&sem, &wp, 1};
    CUDA_CHECK(cudaGraphAddExternalSemaphoresWaitNode(&waitNode, g, deps.data(), deps.size(), &w));
    deps.assign(1, waitNode);
  }
  const bool loop = options.launch == FluidLaunch::WhileGraph;
  if (loop) CUDA_CHECK(cudaGraphConditionalHandleCreate(&handle, g, 0, 0));
  addKernel(g, deps, Step::FrameBegin, -1);
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
  // The state the frame ended with, before anything reads it for the render; disabled except on sampling frames.
  if (config.diagnosticsEvery > 0) addKernel(g, deps, Step::Diagnostics, -1);
  addKernel(g, deps, Step::WriteRender, -1);
  addKernel(g, deps, Step::Colour, -1);
  addKernel(g, deps, Step::Report, -1);
  if (allocNode != nullptr) {
    cudaGraphNode_t freeNode = nullptr;
    CUDA_CHECK_CTX(cudaGraphAddMemFreeNode(&freeNode, g, deps.data(), deps.size(), static_cast<void*>(scratch.keys)),
                   "adding the scratch free node");
    deps.assign(1, freeNode);
  }
  if (!renderBuffers.empty()) {
    cudaExternalSemaphore_t sem = simDone.get();
    cudaExternalSemaphoreSignalParams sp{};
    const cudaExternalSemaphoreSignalNodeParams sgn{&sem, &sp, 1};
    CUDA_CHECK(cudaGraphAddExternalSemaphoresSignalNode(&signalNode, g, deps.data(), deps.size(), &sgn));
  }
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
  applyToggle(FluidToggle::Obstacle, false); // a fresh exec has every node enabled
  applyToggle(FluidToggle::Colour, false);
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
  const Step step = toggle == FluidToggle::Obstacle ? Step::Obstacle : Step::Colour;
  const bool on = settings.enabled[static_cast<std::size_t>(toggle)];
  for (const KernelNode& k : kernels) {
    if (k.step != step) continue;
    CUDA_CHECK_CTX(cudaGraphNodeSetEnabled(exec.get(), k.node, on ? 1 : 0),
                   std::string("toggling node ") + gpu::stepName(k.step));
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
                   std::string("updating node ") + gpu::stepName(k.step));
    k.applied = want;
    ++counters.nodeUpdates;
  }
}

void FluidCudaBackend::Impl::launchGraph(std::uint64_t k) {
  nvtx::Range updates(nvtx::Phase::NodeUpdates, k);
  if (waitNode != nullptr) {
    cudaExternalSemaphore_t rd = renderDone.get(), sd = simDone.get();
    cudaExternalSemaphoreWaitParams wp{};
    wp.params.fence.value = protocol.renderDoneWaited(k);
    cudaExternalSemaphoreSignalParams sp{};
    sp.params.fence.value = protocol.simDoneSignalled(k);
    const cudaExternalSemaphoreWaitNodeParams w{&rd, &wp, 1};
    const cudaExternalSemaphoreSignalNodeParams s{&sd, &sp, 1};
    CUDA_CHECK_CTX(cudaGraphExecExternalSemaphoresWaitNodeSetParams(exec.get(), waitNode, &w), "wait_render_done");
    CUDA_CHECK_CTX(cudaGraphExecExternalSemaphoresSignalNodeSetParams(exec.get(), signalNode, &s), "signal_sim_done");
  }
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

void FluidCudaBackend::Impl::launchSpec(const KernelSpec& s, const char* what) {
  void* slot[1];
  const cudaKernelNodeParams p = s.nodeParams(slot);
  CUDA_CHECK_CTX(cudaLaunchKernel(p.func, p.gridDim, p.blockDim, p.kernelParams, 0, stream.get()), what);
}

void FluidCudaBackend::Impl::launchHostDecided(std::uint64_t k) {
  if (!renderBuffers.empty()) {
    cudaExternalSemaphore_t rd = renderDone.get();
    cudaExternalSemaphoreWaitParams wp{};
    wp.params.fence.value = protocol.renderDoneWaited(k);
    CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&rd, &wp, 1, stream.get()));
  }
  launchSpec(spec(Step::FrameBegin, k), "frame_begin");
  for (;;) {
    CUDA_CHECK(
        cudaMemcpyAsync(hostCtrl.get(), ctrl.get(), sizeof(gpu::FrameControl), cudaMemcpyDeviceToHost, stream.get()));
    synchronize();
    if (hostCtrl.get()->proceed == 0) break;
    launchSpec(spec(Step::Cfl), "cfl");
    launchSpec(spec(Step::Keys), "cell_keys");
    CUDA_CHECK(cudaGraphLaunch(sortExec.get(), stream.get()));
    CUDA_CHECK(cudaMemsetAsync(scratch.cellStart, 0xFF, layout.cells * sizeof(unsigned), stream.get()));
    for (Step s : kBodySteps) {
      if (s == Step::Cfl || s == Step::Keys) continue;
      if (s == Step::Obstacle && !settings.enabled[static_cast<int>(FluidToggle::Obstacle)]) continue;
      launchSpec(spec(s), gpu::stepName(s));
    }
  }
  if (prepareDiagnostics(k)) launchSpec(spec(Step::Diagnostics), "diagnostics");
  launchSpec(spec(Step::WriteRender), "write_render");
  if (settings.enabled[static_cast<int>(FluidToggle::Colour)]) launchSpec(spec(Step::Colour), "colour");
  launchSpec(spec(Step::Report), "report");
  if (!renderBuffers.empty()) {
    cudaExternalSemaphore_t sd = simDone.get();
    cudaExternalSemaphoreSignalParams sp{};
    sp.params.fence.value = protocol.simDoneSignalled(k);
    CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&sd, &sp, 1, stream.get()));
  }
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
  Timing& t = timingOf(k);
  CUDA_CHECK(cudaEventRecord(t.start.get(), stream.get()));
  if (options.launch == FluidLaunch::HostDecided) {
    launchHostDecided(k);
  } else {
    launchGraph(k);
  }
  CUDA_CHECK(cudaEventRecord(t.end.get(), stream.get()));
  t.frame = k;
  lastLaunched = k;
  nextFrame = k + 1;
  lastUpdateHostUs = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

} // namespace graphsim::fluid
