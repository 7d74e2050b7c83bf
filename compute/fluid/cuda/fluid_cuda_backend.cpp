// FluidCudaBackend: the device state, the interop import, the frame graph (WHILE, fixed substeps) or the host-decided
// stream launches, node updates, and the pinned report the host reads without waiting.
#include "compute/fluid/fluid_cuda_backend.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "compute/cuda/cuda_check.h"
#include "compute/cuda/cuda_handles.h"
#include "compute/cuda/external_interop.h"
#include "compute/cuda/poll.h"
#include "compute/cuda/shutdown.h"
#include "compute/cuda_device.h"
#include "compute/fluid/cuda/fluid_frame_graph.h"
#include "compute/fluid/fluid_cpu_backend.h" // makeInitialState
#include "compute/protocol.h"

namespace graphsim::fluid {

using gpu::KernelSpec;
using gpu::Step;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::size_t kTimingSlots = 8;
constexpr std::array kBodySteps = {Step::Cfl,    Step::Keys,      Step::Ranges,   Step::Reorder, Step::Density,
                                   Step::Forces, Step::Integrate, Step::Obstacle, Step::Walls,   Step::Condition};

std::string blowUpStage(unsigned stage) {
  switch (stage) {
  case gpu::kStageDensity: return "density";
  case gpu::kStageIntegrate: return "integrate";
  case gpu::kStageWalls: return "walls";
  default: return "?";
  }
}

std::string blowUpWhat(unsigned what, unsigned particle) {
  const std::string p = " (particle " + std::to_string(particle) + " in sorted order)";
  switch (what) {
  case gpu::kWhatNonFinite: return "non-finite value" + p;
  case gpu::kWhatDensity:
    return "density above " + std::to_string(static_cast<int>(kBlowUpDensityFactor)) + " x rest density" + p;
  case gpu::kWhatOutside: return "particle outside the box" + p;
  default: return "?";
  }
}

} // namespace

struct FluidCudaBackend::Impl {
  FluidConfig config;
  FluidCudaOptions options;
  sph_math::GridDims grid{};
  gpu::FrameSettings settings;

  cuda::Stream stream;
  struct Timing {
    cuda::Event start, end;
    std::optional<std::uint64_t> frame;
  };
  std::array<Timing, kTimingSlots> timing;
  Timing& timingOf(std::uint64_t k) { return timing[k % kTimingSlots]; }
  const Timing& timingOf(std::uint64_t k) const { return timing[k % kTimingSlots]; }
  cuda::Event sortStart, sortEnd;

  cuda::ExternalSemaphore renderDone, simDone;
  std::vector<cuda::ExternalBuffer> renderBuffers;
  FrameProtocol protocol{1};
  std::uint64_t renderCapacity = 0;
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

  // Scratch: preallocated, or (GraphMemoryNodes) the address the alloc node returned.
  gpu::ScratchLayout layout;
  cuda::DeviceArray<unsigned char> scratchOwned;
  gpu::Scratch scratch;

  // The graph.
  cuda::Graph graph;
  cuda::GraphExec exec;
  cudaGraphConditionalHandle handle = 0;
  cudaGraphNode_t waitNode = nullptr, signalNode = nullptr;
  struct KernelNode {
    Step step;
    int substep; // -1: outside the substeps
    cudaGraphNode_t node;
    KernelSpec applied;
  };
  std::vector<KernelNode> kernels;
  std::size_t sortChildNodes = 0;
  cuda::Graph sortGraph;    // the captured sort (child graph template; HostDecided and sort timing launch it)
  cuda::GraphExec sortExec; // for setSortTiming
  UpdateCounters counters;
  bool settingsDirty = false;
  double lastUpdateHostUs = -1;
  double lastSortMs = -1;

  std::optional<std::uint64_t> lastLaunched;
  std::uint64_t nextFrame = 0;
  mutable double lastSimMs = -1;
  mutable std::vector<NodeInfo> nodes;
  mutable bool nodesStale = true;
  mutable std::optional<FluidBlowUp> blowUp;

  gpu::DeviceState deviceState() const {
    gpu::DeviceState d;
    d.pos = pos.get();
    d.vel = vel.get();
    d.rhoP = rhoP.get();
    d.ctrl = ctrl.get();
    d.blowUp = blowUpState.get();
    d.report = d_report;
    d.n = static_cast<int>(config.particles);
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
    return gpu::specFor(step, deviceState(), scratch, settings, grid, handle, frame);
  }

  void settingsFromConfig() {
    settings.params = config.params;
    settings.enabled = config.enabled;
    settings.colourBy = config.colourBy;
    settings.colourScale = config.colourScale;
    settings.frameDt = config.frameDt;
    settings.maxSubsteps = config.params.maxSubsteps;
    settings.fixedDt = options.launch == FluidLaunch::FixedSubsteps
                           ? config.frameDt / static_cast<float>(options.fixedSubsteps)
                           : 0.0f;
  }

  // ---- state ----
  void allocateState() {
    const auto n = static_cast<std::size_t>(config.particles);
    pos = cuda::DeviceArray<float4>(n);
    vel = cuda::DeviceArray<float4>(n);
    rhoP = cuda::DeviceArray<float2>(n);
    if (!ctrl.get()) {
      ctrl = cuda::DeviceArray<gpu::FrameControl>(1);
      blowUpState = cuda::DeviceArray<gpu::BlowUpState>(1);
      report = cuda::PinnedArray<gpu::HostReport>(1, cudaHostAllocMapped);
      hostCtrl = cuda::PinnedArray<gpu::FrameControl>(1);
      void* onDevice = nullptr;
      CUDA_CHECK(cudaHostGetDevicePointer(&onDevice, report.get(), 0));
      d_report = static_cast<gpu::HostReport*>(onDevice);
    }
    if (renderBuffers.empty()) computeOutput = cuda::DeviceArray<float4>(n);
    layout = gpu::scratchLayout(static_cast<int>(n), grid);
    scratchOwned.reset();
    if (options.scratch == FluidScratch::Preallocated) {
      scratchOwned = cuda::DeviceArray<unsigned char>(layout.bytes);
      scratch = layout.at(scratchOwned.get());
    }
  }

  void uploadInitialState() {
    const FluidState s = makeInitialState(config);
    static_assert(sizeof(Float4) == sizeof(float4));
    CUDA_CHECK(
        cudaMemcpyAsync(pos.get(), s.pos.data(), s.pos.size() * sizeof(float4), cudaMemcpyHostToDevice, stream.get()));
    CUDA_CHECK(
        cudaMemcpyAsync(vel.get(), s.vel.data(), s.vel.size() * sizeof(float4), cudaMemcpyHostToDevice, stream.get()));
    CUDA_CHECK(cudaMemsetAsync(rhoP.get(), 0, rhoP.bytes(), stream.get()));
    gpu::FrameControl c{};
    CUDA_CHECK(cudaMemcpyAsync(ctrl.get(), &c, sizeof c, cudaMemcpyHostToDevice, stream.get()));
    const gpu::BlowUpState b{gpu::kNoBlowUp, gpu::kNoBlowUp};
    CUDA_CHECK(cudaMemcpyAsync(blowUpState.get(), &b, sizeof b, cudaMemcpyHostToDevice, stream.get()));
    synchronize(); // the host vectors and the stack copies above die here
    *report.get() = gpu::HostReport{};
    report.get()->blowUp = gpu::kNoBlowUp;
    blowUp.reset();
  }

  // ---- graph building ----
  cudaGraphNode_t addKernel(cudaGraph_t g, std::vector<cudaGraphNode_t>& deps, Step step, int substep) {
    const KernelSpec s = spec(step);
    void* slot[1];
    const cudaKernelNodeParams p = s.nodeParams(slot);
    cudaGraphNode_t node = nullptr;
    CUDA_CHECK_CTX(cudaGraphAddKernelNode(&node, g, deps.data(), deps.size(), &p),
                   std::string("adding node ") + gpu::stepName(step));
    kernels.push_back({step, substep, node, s});
    deps.assign(1, node);
    return node;
  }

  // The sort of one substep, captured from CUB into a graph once; the body adds it as a child graph node.
  void captureSort() {
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

  // One substep's nodes in graph g after deps (the WHILE body, or one unrolled copy).
  void addSubstep(cudaGraph_t g, std::vector<cudaGraphNode_t>& deps, int substep) {
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

  void build() {
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

  // Instantiates the graph built last. A reset always re-instantiates (counted, with the reason): a whole-graph
  // update would keep the exec tied to the first graph's node and conditional handles, while the particle count
  // changes the captured sort's shape and the memory nodes' sizes, so the topology is rarely the same anyway.
  void instantiate(const std::string& why) {
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

  void afterInstantiate() {
    applyToggles(true);
    CUDA_CHECK(cudaGraphUpload(exec.get(), stream.get()));
    instantiateSort();
  }

  // A standalone exec of the captured sort, for the stream launches and the sort timing. Not with graph memory
  // nodes: there the sort's buffers exist only while the frame graph runs (and CUDA refuses to instantiate it).
  void instantiateSort() {
    sortExec.reset();
    if (options.scratch == FluidScratch::GraphMemoryNodes) return;
    cudaGraphExec_t se = nullptr;
    CUDA_CHECK(cudaGraphInstantiate(&se, sortGraph.get(), 0));
    sortExec = cuda::GraphExec(se);
    nodesStale = true;
  }

  // ---- per-frame updates ----
  void applyToggles(bool all) {
    for (KernelNode& k : kernels) {
      bool want = true;
      if (k.step == Step::Obstacle) want = settings.enabled[static_cast<int>(FluidToggle::Obstacle)];
      if (k.step == Step::Colour) want = settings.enabled[static_cast<int>(FluidToggle::Colour)];
      if (k.step != Step::Obstacle && k.step != Step::Colour) continue;
      unsigned is = 0;
      CUDA_CHECK(cudaGraphNodeGetEnabled(exec.get(), k.node, &is));
      if ((is != 0) == want && !all) continue;
      CUDA_CHECK_CTX(cudaGraphNodeSetEnabled(exec.get(), k.node, want ? 1 : 0),
                     std::string("toggling node ") + gpu::stepName(k.step));
      if (!all) ++counters.enableToggles;
    }
  }

  void applyChangedSpecs() {
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

  void launchGraph(std::uint64_t k) {
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
    CUDA_CHECK_CTX(cudaGraphLaunch(exec.get(), stream.get()), "launching fluid frame " + std::to_string(k));
  }

  void launchSpec(const KernelSpec& s, const char* what) {
    void* slot[1];
    const cudaKernelNodeParams p = s.nodeParams(slot);
    CUDA_CHECK_CTX(cudaLaunchKernel(p.func, p.gridDim, p.blockDim, p.kernelParams, 0, stream.get()), what);
  }

  // What an app without conditional nodes does: the same kernels from the host; after each substep it reads the
  // control block back (a bounded wait) to decide whether the frame needs another.
  void launchHostDecided(std::uint64_t k) {
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

  void launch(std::uint64_t k) {
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

  // ---- waits ----
  void synchronize() const {
    const bool done = cuda::pollUntil(
        [&] {
          const cudaError_t e = cudaStreamQuery(stream.get());
          if (e == cudaSuccess) return true;
          if (e != cudaErrorNotReady)
            cuda::throwCudaError(e, "cudaStreamQuery", __FILE__, __LINE__, "the fluid frame failed");
          return false;
        },
        Clock::now() + options.waitTimeout);
    if (!done) {
      throw TimeoutError("CUDA side stalled: fluid frame " + std::to_string(lastLaunched.value_or(0)) +
                             " did not complete within " + std::to_string(options.waitTimeout.count()) + " ms",
                         TimeoutError::Side::Cuda);
    }
  }

  void waitForFrame(std::uint64_t k) const {
    const Timing& t = timingOf(k);
    if (t.frame != k) return synchronize();
    const bool done = cuda::pollUntil(
        [&] {
          const cudaError_t e = cudaEventQuery(t.end.get());
          if (e == cudaSuccess) return true;
          if (e != cudaErrorNotReady)
            cuda::throwCudaError(e, "cudaEventQuery", __FILE__, __LINE__, "fluid frame " + std::to_string(k));
          return false;
        },
        Clock::now() + options.waitTimeout);
    if (!done) {
      throw TimeoutError("CUDA side stalled: fluid frame " + std::to_string(k) + " did not complete within " +
                             std::to_string(options.waitTimeout.count()) + " ms",
                         TimeoutError::Side::Cuda);
    }
  }

  // ---- the report ----
  std::optional<gpu::HostReport> readReport() const {
    const volatile gpu::HostReport* h = report.get();
    for (int attempt = 0; attempt < 4; ++attempt) {
      const unsigned long long s1 = h->seq;
      if (s1 == 0) return std::nullopt;
      std::atomic_thread_fence(std::memory_order_acquire);
      gpu::HostReport r;
      r.frame = h->frame;
      r.substeps = h->substeps;
      r.lastDt = h->lastDt;
      r.covered = h->covered;
      r.time = h->time;
      r.blowUp = h->blowUp;
      r.blowUpFrame = h->blowUpFrame;
      std::atomic_thread_fence(std::memory_order_acquire);
      if ((s1 & 1) == 0 && h->seq == s1) return r;
    }
    return std::nullopt;
  }

  void configure(const FluidConfig& c) {
    FluidConfig next = c;
    next.params.spacing = spacingFor(next); // throws std::invalid_argument for a config the scene refuses
    validateFluidParams(next.params);
    if (options.launch == FluidLaunch::FixedSubsteps &&
        (options.fixedSubsteps < 1 || options.fixedSubsteps > kMaxFluidSubsteps)) {
      throw std::invalid_argument("fluid: fixed substeps " + std::to_string(options.fixedSubsteps) +
                                  " outside [1, 1000]");
    }
    if (options.launch == FluidLaunch::HostDecided && options.scratch == FluidScratch::GraphMemoryNodes)
      throw std::invalid_argument("fluid: host-decided stream launches have no graph for memory nodes");
    if (!renderBuffers.empty() && static_cast<std::uint64_t>(next.particles) > renderCapacity) {
      throw std::invalid_argument("fluid: " + std::to_string(next.particles) + " particles do not fit the " +
                                  std::to_string(renderCapacity) + " the render buffers hold");
    }
    config = next;
    grid = gridDims(config.params);
    settingsFromConfig();
  }
};

FluidCudaBackend::FluidCudaBackend(const FluidConfig& config, int device, const InteropDesc* interop,
                                   FluidCudaOptions options)
    : impl_(std::make_unique<Impl>()) {
  cuda::InteropFds fds(interop); // imported below, or closed if this constructor throws first
  Impl& m = *impl_;
  m.options = options;
  const CudaDeviceList devices = listCudaDevices();
  if (devices.devices.empty()) throw EnvironmentError("no CUDA device: " + devices.whyNone);
  if (device < 0 || device >= static_cast<int>(devices.devices.size()))
    throw EnvironmentError("CUDA device " + std::to_string(device) + " does not exist");
  if (interop != nullptr) {
    const std::size_t f = interop->renderBuffers.size();
    if (f < 1 || f > static_cast<std::size_t>(gpu::kMaxOutputs))
      throw std::invalid_argument("interop: " + std::to_string(f) + " render buffers (1 to 4)");
    m.renderCapacity = UINT64_MAX;
    for (const InteropDesc::Buffer& b : interop->renderBuffers)
      m.renderCapacity = std::min<std::uint64_t>(m.renderCapacity, b.bufferSize / sizeof(float4));
    m.protocol = FrameProtocol(static_cast<std::uint32_t>(f));
  }
  CUDA_CHECK(cudaSetDevice(device));
  m.stream = cuda::makeStream();
  for (Impl::Timing& t : m.timing) {
    t.start = cuda::makeTimingEvent();
    t.end = cuda::makeTimingEvent();
  }
  m.sortStart = cuda::makeTimingEvent();
  m.sortEnd = cuda::makeTimingEvent();
  if (interop != nullptr) {
    cuda::ImportedInterop imported = cuda::importInterop(std::move(fds), *interop);
    m.renderDone = std::move(imported.renderDone);
    m.simDone = std::move(imported.simDone);
    m.renderBuffers = std::move(imported.renderBuffers);
  }
  m.configure(config);
  m.allocateState();
  m.uploadInitialState();
  m.build();
  m.instantiate("construction");
}

FluidCudaBackend::~FluidCudaBackend() { cuda::finishOrRetire(impl_, "fluid CUDA backend"); }

void FluidCudaBackend::reset(const FluidConfig& config) {
  Impl& m = *impl_;
  m.synchronize();
  m.configure(config);
  m.allocateState(); // the grid (and with it the scratch) follows the particle count; the exec is updated below
  m.uploadInitialState();
  m.build();
  m.instantiate("reset to " + std::to_string(m.config.particles) + " particles");
}

void FluidCudaBackend::setParams(const FluidParams& params) {
  Impl& m = *impl_;
  FluidParams p = params;
  if (p.spacing != m.config.params.spacing || !std::equal(p.boxSize, p.boxSize + 3, m.config.params.boxSize))
    throw std::invalid_argument("fluid: spacing and box size are structural: change them with a reset");
  validateFluidParams(p);
  m.config.params = p;
  m.settings.params = p;
  m.settings.maxSubsteps = p.maxSubsteps;
  m.settingsDirty = true;
  m.nodesStale = true;
}

void FluidCudaBackend::setEnabled(FluidToggle toggle, bool enabled) {
  Impl& m = *impl_;
  const auto i = static_cast<std::size_t>(toggle);
  if (m.settings.enabled[i] == enabled) return;
  m.settings.enabled[i] = enabled;
  m.config.enabled[i] = enabled;
  if (toggle == FluidToggle::Obstacle || toggle == FluidToggle::Colour) {
    if (m.options.launch != FluidLaunch::HostDecided) m.applyToggles(false);
  } else {
    m.settingsDirty = true;
  }
  m.nodesStale = true;
}

bool FluidCudaBackend::enabled(FluidToggle toggle) const {
  return impl_->settings.enabled[static_cast<std::size_t>(toggle)];
}

void FluidCudaBackend::setFrameDt(float frameDt) {
  Impl& m = *impl_;
  if (!(frameDt >= 0.0f && frameDt <= 0.1f)) throw std::invalid_argument("fluid: frameDt outside [0, 0.1] s");
  if (m.settings.frameDt == frameDt) return;
  m.settings.frameDt = frameDt;
  if (m.options.launch == FluidLaunch::FixedSubsteps)
    m.settings.fixedDt = frameDt / static_cast<float>(m.options.fixedSubsteps);
  m.settingsDirty = true;
}

void FluidCudaBackend::step() {
  launchFrame(impl_->nextFrame);
  impl_->synchronize();
}

void FluidCudaBackend::launchFrame(std::uint64_t k) { impl_->launch(k); }
void FluidCudaBackend::waitForFrame(std::uint64_t k) { impl_->waitForFrame(k); }
void FluidCudaBackend::synchronize() { impl_->synchronize(); }

void FluidCudaBackend::download(FluidState& state) {
  Impl& m = *impl_;
  m.synchronize();
  const auto n = static_cast<std::size_t>(m.config.particles);
  state.pos.resize(n);
  state.vel.resize(n);
  std::vector<float2> rhoP(n);
  CUDA_CHECK(cudaMemcpy(state.pos.data(), m.pos.get(), n * sizeof(float4), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(state.vel.data(), m.vel.get(), n * sizeof(float4), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(rhoP.data(), m.rhoP.get(), n * sizeof(float2), cudaMemcpyDeviceToHost));
  state.density.resize(n);
  for (std::size_t i = 0; i < n; ++i) state.density[i] = rhoP[i].x;
  gpu::FrameControl c{};
  CUDA_CHECK(cudaMemcpy(&c, m.ctrl.get(), sizeof c, cudaMemcpyDeviceToHost));
  state.time = c.time;
}

std::vector<float> FluidCudaBackend::downloadColour() {
  const auto n = static_cast<std::size_t>(impl_->config.particles);
  std::vector<Float4> out(n);
  copyRenderOutput(out.data());
  std::vector<float> colour(n);
  for (std::size_t i = 0; i < n; ++i) colour[i] = out[i].w;
  return colour;
}

void FluidCudaBackend::copyRenderOutput(Float4* dst) {
  Impl& m = *impl_;
  const auto n = static_cast<std::size_t>(m.config.particles);
  if (m.hostOutput.size() < n) m.hostOutput = cuda::PinnedArray<float4>(n);
  const gpu::DeviceState d = m.deviceState();
  const std::uint64_t frame = m.lastLaunched.value_or(0);
  const float4* src = d.outputs.out[frame % static_cast<std::uint64_t>(d.outputs.slots)];
  CUDA_CHECK(cudaMemcpyAsync(m.hostOutput.get(), src, n * sizeof(float4), cudaMemcpyDeviceToHost, m.stream.get()));
  m.synchronize();
  std::memcpy(static_cast<void*>(dst), m.hostOutput.get(), n * sizeof(float4));
}

std::optional<FluidFrameInfo> FluidCudaBackend::lastFrame() const {
  const auto r = impl_->readReport();
  if (!r) return std::nullopt;
  return FluidFrameInfo{r->frame, r->substeps, r->lastDt, r->covered, r->time};
}

std::optional<FluidBlowUp> FluidCudaBackend::blowUp() const {
  Impl& m = *impl_;
  if (m.blowUp) return m.blowUp;
  const auto r = m.readReport();
  if (!r || r->blowUp == gpu::kNoBlowUp) return std::nullopt;
  const auto code = static_cast<unsigned>(r->blowUp >> 32);
  const auto particle = static_cast<unsigned>(r->blowUp & 0xffffffffu);
  m.blowUp = FluidBlowUp{r->blowUpFrame, static_cast<int>(code >> 8), blowUpStage((code >> 4) & 15u),
                         blowUpWhat(code & 15u, particle)};
  return m.blowUp;
}

UpdateCounters FluidCudaBackend::counters() const { return impl_->counters; }
const FluidConfig& FluidCudaBackend::config() const { return impl_->config; }
const FluidCudaOptions& FluidCudaBackend::options() const { return impl_->options; }
double FluidCudaBackend::lastUpdateHostUs() const { return impl_->lastUpdateHostUs; }
double FluidCudaBackend::lastSortGpuMs() const { return impl_->lastSortMs; }

double FluidCudaBackend::lastSimGpuMs() const {
  const Impl& m = *impl_;
  if (!m.lastLaunched) return m.lastSimMs;
  for (std::uint64_t back = 0; back < kTimingSlots && back <= *m.lastLaunched; ++back) {
    const std::uint64_t k = *m.lastLaunched - back;
    const Impl::Timing& t = m.timingOf(k);
    if (t.frame != k) break;
    const cudaError_t q = cudaEventQuery(t.end.get());
    if (q == cudaErrorNotReady) continue;
    if (q != cudaSuccess) break;
    float ms = 0;
    if (cudaEventElapsedTime(&ms, t.start.get(), t.end.get()) == cudaSuccess) m.lastSimMs = ms;
    break;
  }
  return m.lastSimMs;
}

// The sort's GPU time on the current state: cell keys once, then the captured sort 20 times between two events (a
// conditional body may hold no event nodes, so the sort is timed outside the frame). Needs scratch outside a frame:
// with graph memory nodes the frame's scratch is gone after the free node, so the preallocated layout is borrowed.
void FluidCudaBackend::setSortTiming(bool on) {
  Impl& m = *impl_;
  if (!on) return;
  m.synchronize();
  if (m.options.scratch == FluidScratch::GraphMemoryNodes) {
    m.lastSortMs = -1; // the captured sort points into graph-owned memory: not launchable alone
    return;
  }
  constexpr int kReps = 20;
  m.launchSpec(m.spec(Step::Keys), "cell_keys");
  CUDA_CHECK(cudaEventRecord(m.sortStart.get(), m.stream.get()));
  for (int i = 0; i < kReps; ++i) CUDA_CHECK(cudaGraphLaunch(m.sortExec.get(), m.stream.get()));
  CUDA_CHECK(cudaEventRecord(m.sortEnd.get(), m.stream.get()));
  m.synchronize();
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, m.sortStart.get(), m.sortEnd.get()));
  m.lastSortMs = ms / kReps;
}

std::size_t FluidCudaBackend::deviceBytes() const {
  const Impl& m = *impl_;
  // The compute-only render target stands in for the render buffers: excluded, as they are.
  return m.pos.bytes() + m.vel.bytes() + m.rhoP.bytes() + m.layout.bytes + sizeof(gpu::FrameControl) +
         sizeof(gpu::BlowUpState);
}

void FluidCudaBackend::dumpGraphDot(const std::filesystem::path& path) const {
  CUDA_CHECK(cudaGraphDebugDotPrint(impl_->graph.get(), path.c_str(), cudaGraphDebugDotFlagsVerbose));
}

const std::vector<NodeInfo>& FluidCudaBackend::nodes() const {
  Impl& m = *impl_;
  if (!m.nodesStale) return m.nodes;
  m.nodes.clear();
  const bool loop = m.options.launch == FluidLaunch::WhileGraph;
  const auto add = [&](std::string name, std::string type, bool togglable, bool enabled, std::string why) {
    NodeInfo n;
    n.name = std::move(name);
    n.type = std::move(type);
    n.togglable = togglable;
    n.enabled = enabled;
    n.whyNotTogglable = std::move(why);
    m.nodes.push_back(std::move(n));
  };
  const std::string where = loop ? " (WHILE body)" : "";
  if (m.options.scratch == FluidScratch::GraphMemoryNodes) add("alloc_scratch", "memory alloc", false, true, "scratch");
  if (m.waitNode != nullptr) add("wait_render_done", "semaphore wait", false, true, "the frame protocol");
  for (const Impl::KernelNode& k : m.kernels) {
    if (k.substep > 0) continue; // FixedSubsteps: the first copy stands for all
    const bool obstacle = k.step == Step::Obstacle, colour = k.step == Step::Colour;
    const bool inBody = k.substep == 0;
    if (k.step == Step::Keys) {
      add("cell_keys", "kernel" + where, false, true, "the sort needs the keys");
      add("sort", "child graph: CUB radix sort, " + std::to_string(m.sortChildNodes) + " nodes" + where, false, true,
          "child graph nodes cannot be disabled (only kernel, memset and memcpy nodes)");
      add("clear_cells", "memset" + where, false, true, "the cell table must be cleared every substep");
      continue;
    }
    if (k.step == Step::FrameBegin && loop) {
      add("frame_begin", "kernel", false, true, "sets the frame's loop state");
      add("while", "conditional WHILE", false, true, "conditional nodes cannot be disabled");
      continue;
    }
    const bool on = obstacle ? m.settings.enabled[static_cast<int>(FluidToggle::Obstacle)]
                    : colour ? m.settings.enabled[static_cast<int>(FluidToggle::Colour)]
                             : true;
    add(gpu::stepName(k.step), std::string("kernel") + (inBody ? where : ""), obstacle || colour, on,
        obstacle || colour ? "" : "a stage every frame needs");
  }
  if (m.options.scratch == FluidScratch::GraphMemoryNodes) add("free_scratch", "memory free", false, true, "scratch");
  if (m.signalNode != nullptr) add("signal_sim_done", "semaphore signal", false, true, "the frame protocol");
  m.nodesStale = false;
  return m.nodes;
}

} // namespace graphsim::fluid
