// FluidCudaBackend: device choice, the interop import, the device state, the bounded waits, the pinned report the host
// reads without waiting, and the public API. The frame graph and the launches: fluid_cuda_graph.cpp.
#include "compute/fluid/fluid_cuda_backend.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "compute/cuda/cuda_check.h"
#include "compute/cuda/cuda_handles.h"
#include "compute/cuda/external_interop.h"
#include "compute/cuda/kernel_launch.h"
#include "compute/cuda/mapped_report.h"
#include "compute/cuda/poll.h"
#include "compute/cuda/shutdown.h"
#include "compute/cuda_device.h"
#include "compute/fluid/cuda/fluid_cuda_impl.h"
#include "compute/fluid/fluid_cpu_backend.h" // makeInitialState
#include "compute/protocol.h"

namespace graphsim::fluid {

namespace {

std::string blowUpStage(unsigned stage) { // the step that flagged it (fluid_kernels.h)
  return stage < std::size(kFluidSteps) ? std::string(kFluidSteps[stage].name) : "?";
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

void FluidCudaBackend::Impl::allocateState() {
  const auto n = static_cast<std::size_t>(config.particles);
  pos = cuda::DeviceArray<float4>(n);
  vel = cuda::DeviceArray<float4>(n);
  rhoP = cuda::DeviceArray<float2>(n);
  if (!ctrl.get()) {
    ctrl = cuda::DeviceArray<gpu::FrameControl>(1);
    blowUpState = cuda::DeviceArray<gpu::BlowUpState>(1);
    report = cuda::PinnedArray<gpu::HostReport>(1, cudaHostAllocMapped);
    hostCtrl = cuda::PinnedArray<gpu::FrameControl>(1);
    d_report = cuda::mappedOnDevice(report);
    diagnosticsState = cuda::DeviceArray<gpu::FluidDiagnosticsDeviceState>(1);
    CUDA_CHECK(cudaMemset(diagnosticsState.get(), 0, sizeof(gpu::FluidDiagnosticsDeviceState)));
    diagnosticsReport = cuda::PinnedArray<gpu::FluidDiagnosticsHostReport>(1, cudaHostAllocMapped);
    std::memset(static_cast<void*>(diagnosticsReport.get()), 0, sizeof(gpu::FluidDiagnosticsHostReport));
    d_diagnosticsReport = cuda::mappedOnDevice(diagnosticsReport);
  }
  if (!frames.interop()) computeOutput = cuda::DeviceArray<float4>(n);
  uploadBoundary();
  chooseNeighbourSearch();
  scratchOwned.reset();
  if (options.scratch == FluidScratch::Preallocated) {
    scratchOwned = cuda::DeviceArray<unsigned char>(layout.bytes);
    scratch = layout.at(scratchOwned.get());
  }
}

// Lists where DFSPH can run and they fit: the 27-cell walk needs about 175 B a particle less (docs/FLUID.md). The
// choice is made at each reset and shown in the panel (the neighbour_lists node) and bench's JSON.
void FluidCudaBackend::Impl::chooseNeighbourSearch() {
  const int n = static_cast<int>(config.particles);
  layout = gpu::scratchLayout(n, grid, false);
  if (!options.neighbourLists) {
    neighbourSearch = "cells (lists off)";
    return;
  }
  if (!dfsphBuilt()) {
    neighbourSearch = "cells (WCSPH walks its cells)";
    return;
  }
  const gpu::ScratchLayout withLists = gpu::scratchLayout(n, grid, true);
  std::size_t free = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  constexpr std::size_t kHeadroom = std::size_t{256} << 20; // the render buffers, CUB's and the driver's own
  const std::size_t more = withLists.bytes - layout.bytes;
  if (withLists.bytes + kHeadroom > free) {
    neighbourSearch = "cells (the lists' " + std::to_string(more >> 20) + " MiB do not fit in the " +
                      std::to_string(free >> 20) + " MiB free)";
    return;
  }
  layout = withLists;
  char skin[32];
  std::snprintf(skin, sizeof skin, "%.2f", static_cast<double>(config.dfsph.neighbourSkin));
  neighbourSearch = std::string("lists (skin ") + skin + " h)";
}

void FluidCudaBackend::Impl::uploadBoundary() {
  if (!boundary.get()) boundary = cuda::DeviceArray<gpu::BoundaryArgs>(2);
  const int layers = config.dfsph.boundaryLayers;
  uploadBoundarySet(gpu::kWallBoundary, layers > 0 ? makeWallBoundary(config.params, layers) : Boundary{});
  uploadObstacleBoundary();
}

void FluidCudaBackend::Impl::uploadObstacleBoundary() {
  const FluidParams& p = config.params;
  const int layers = config.dfsph.boundaryLayers;
  uploadBoundarySet(gpu::kObstacleBoundary,
                    layers > 0 && p.obstacleRadius > 0.0f ? makeObstacleBoundary(p, layers) : Boundary{});
  boundaryRadius = p.obstacleRadius;
}

void FluidCudaBackend::Impl::uploadBoundarySet(int i, const Boundary& b) {
  BoundaryArrays& a = boundaries[i];
  a.pos = cuda::DeviceArray<float4>(b.size()), a.volume = cuda::DeviceArray<float>(b.size());
  a.cellStart = cuda::DeviceArray<unsigned>(b.grid.cellStart.size());
  a.cellEnd = cuda::DeviceArray<unsigned>(b.grid.cellEnd.size());
  cuda::upload(a.pos, b.pos), cuda::upload(a.volume, b.volume);
  cuda::upload(a.cellStart, b.grid.cellStart), cuda::upload(a.cellEnd, b.grid.cellEnd);
  const sph_math::GridDims& g = b.grid.dims;
  gpu::BoundaryArgs args{
      a.pos.get(), a.volume.get(), a.cellStart.get(), a.cellEnd.get(), gpu::Grid{g.nx, g.ny, g.nz, g.cellSize},
      b.frame};
  args.built = args.n = static_cast<int>(b.size()); // frame_begin switches the obstacle's every frame
  CUDA_CHECK(cudaMemcpy(boundary.get() + i, &args, sizeof args, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy)); // pageable copies: landed before a launch reads them
}

// Synchronous copies: the host vectors die with the caller's. frame_begin and cfl reset the rest of the control block
// every frame; only the simulated time carries over.
void FluidCudaBackend::Impl::upload(const FluidState& s) {
  std::vector<float2> densities(s.density.size()); // the pressure half is the density stage's, recomputed first
  for (std::size_t i = 0; i < densities.size(); ++i) densities[i] = {s.density[i], 0.0f};
  synchronize(); // no launch may still use the arrays about to be overwritten
  cuda::upload(pos, s.pos), cuda::upload(vel, s.vel), cuda::upload(rhoP, densities);
  gpu::FrameControl c{};
  c.time = s.time;
  CUDA_CHECK(cudaMemcpy(ctrl.get(), &c, sizeof c, cudaMemcpyHostToDevice));
  const gpu::BlowUpState b{gpu::kNoBlowUp, gpu::kNoBlowUp};
  CUDA_CHECK(cudaMemcpy(blowUpState.get(), &b, sizeof b, cudaMemcpyHostToDevice));
  // A pageable host-to-device cudaMemcpy may return before its DMA has landed, on the legacy stream that the frames'
  // non-blocking stream does not order against: wait for it before the next launch reads the state.
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  *report.get() = gpu::HostReport{};
  report.get()->blowUp = gpu::kNoBlowUp;
  blowUp.reset();
  clearDiagnostics();
}

void FluidCudaBackend::Impl::clearDiagnostics() {
  static_cast<volatile gpu::FluidDiagnosticsHostReport*>(diagnosticsReport.get())->seq = 0;
  ++diagnosticsSeries;
  diagnostics.reset();
  diagnosticsFirstPending = true;
}

void FluidCudaBackend::Impl::harvestDiagnostics() const {
  if (const auto h = cuda::readMappedReport(diagnosticsReport.get()))
    diagnostics = FluidDiagnosticsSample{h->frame, diagnosticsSeries, h->sums};
}

std::optional<gpu::HostReport> FluidCudaBackend::Impl::readReport() const {
  return cuda::readMappedReport(report.get());
}

void FluidCudaBackend::Impl::configure(const FluidConfig& c) {
  FluidConfig next = c;
  next.params = validateFluidConfig(c); // throws std::invalid_argument for a config the scene refuses
  for (const int fixed : options.fixedIterations) {
    if (options.launch == FluidLaunch::FixedSubsteps && (fixed < 1 || fixed > 10000))
      throw std::invalid_argument("fluid: fixed solver iterations " + std::to_string(fixed) + " outside [1, 10000]");
  }
  if (options.launch == FluidLaunch::FixedSubsteps &&
      (options.fixedSubsteps < 1 || options.fixedSubsteps > kMaxFluidSubsteps)) {
    throw std::invalid_argument("fluid: fixed substeps " + std::to_string(options.fixedSubsteps) +
                                " outside [1, 1000]");
  }
  if (options.launch == FluidLaunch::HostDecided && options.scratch == FluidScratch::GraphMemoryNodes)
    throw std::invalid_argument("fluid: host-decided stream launches have no graph for memory nodes");
  if (frames.interop() && static_cast<std::uint64_t>(next.particles) > frames.renderCapacity) {
    throw std::invalid_argument("fluid: " + std::to_string(next.particles) + " particles do not fit the " +
                                std::to_string(frames.renderCapacity) + " the render buffers hold");
  }
  config = next;
  grid = gridDims(config.params);
  frameDt = config.frameDt;
  resolved.reset();
}

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
  }
  m.frames.open(device, interop, std::move(fds), options.waitTimeout, "fluid frame", "graphsim fluid frames");
  m.passStart = cuda::makeTimingEvent();
  m.passEnd = cuda::makeTimingEvent();
  m.configure(config);
  m.allocateState();
  m.upload(makeInitialState(m.config));
  m.build();
  m.install("construction");
}

FluidCudaBackend::~FluidCudaBackend() { cuda::finishOrRetire(impl_, "fluid CUDA backend"); }

void FluidCudaBackend::reset(const FluidConfig& config) {
  Impl& m = *impl_;
  m.synchronize();
  m.configure(config);
  m.allocateState(); // the grid (and with it the scratch) follows the particle count; the exec is updated below
  m.upload(makeInitialState(m.config));
  m.build();
  m.install("reset to " + std::to_string(m.config.particles) + " particles");
}

void FluidCudaBackend::setParams(const FluidParams& params) {
  Impl& m = *impl_;
  FluidParams p = params;
  if (p.spacing != m.config.params.spacing || !std::equal(p.boxSize, p.boxSize + 3, m.config.params.boxSize))
    throw std::invalid_argument("fluid: spacing and box size are structural: change them with a reset");
  validateFluidParams(p);
  m.config.params = p;
  if (m.config.dfsph.boundaryLayers > 0 && p.obstacleRadius != m.boundaryRadius) {
    m.synchronize(); // the obstacle's boundary particles are rebuilt for the new radius; no launch may be reading them
    m.uploadObstacleBoundary();
  }
  m.settingsChanged();
  m.nodesStale = true;
}

void FluidCudaBackend::setEnabled(FluidToggle toggle, bool enabled) {
  Impl& m = *impl_;
  const auto i = static_cast<std::size_t>(toggle);
  if (m.config.enabled[i] == enabled) return;
  m.config.enabled[i] = enabled;
  if (toggleIsNode(toggle) && m.options.launch != FluidLaunch::HostDecided) m.counters.enableToggles += m.syncToggles();
  m.settingsChanged(); // a node toggle too: the obstacle's also switches its boundary particles (frame_begin's
                       // argument)
  m.nodesStale = true;
}

bool FluidCudaBackend::enabled(FluidToggle toggle) const {
  return impl_->config.enabled[static_cast<std::size_t>(toggle)];
}

void FluidCudaBackend::setFrameDt(float frameDt) {
  Impl& m = *impl_;
  if (!(frameDt >= 0.0f && frameDt <= 0.1f)) throw std::invalid_argument("fluid: frameDt outside [0, 0.1] s");
  if (m.frameDt == frameDt) return;
  m.frameDt = frameDt;
  m.settingsChanged();
}

void FluidCudaBackend::setSolver(FluidSolver solver) {
  Impl& m = *impl_;
  if (solver != FluidSolver::Wcsph && solver != FluidSolver::Dfsph)
    throw std::invalid_argument("fluid: solver " + std::to_string(static_cast<int>(solver)) + " is not wcsph or dfsph");
  if (m.config.solver == solver) return;
  m.config.solver = solver; // cfl's argument: the next launch updates its node, and cfl sets the SWITCH's value
  m.settingsChanged();
  m.nodesStale = true;
  if (m.switchBuilt()) return;
  m.synchronize(); // one solver's rows: the graph (or the host's loop) changes, the state stays
  m.build();
  m.install(std::string("solver changed to ") + kFluidSolverNames[static_cast<int>(solver)].data());
}

void FluidCudaBackend::step() {
  launchFrame(impl_->nextFrame);
  impl_->synchronize();
}

void FluidCudaBackend::launchFrame(std::uint64_t k) { impl_->launch(k); }
void FluidCudaBackend::injectKernelFailure(FluidStep step, std::uint64_t frame) {
  if (stepRow(step).node != StepNode::Kernel)
    throw std::invalid_argument(std::string("--inject kernel-fail: ") + stepName(step) + " is not a kernel node");
  impl_->injectedFailure = Impl::InjectedFailure{step, frame};
}
void FluidCudaBackend::waitForFrame(std::uint64_t k) { impl_->waitForFrame(k); }
void FluidCudaBackend::synchronize() { impl_->synchronize(); }

void FluidCudaBackend::download(FluidState& state) {
  Impl& m = *impl_;
  m.synchronize();
  const auto n = static_cast<std::size_t>(m.config.particles);
  state.pos.resize(n), state.vel.resize(n), state.density.resize(n);
  std::vector<float2> rhoP(n);
  cuda::download(state.pos, m.pos), cuda::download(state.vel, m.vel), cuda::download(rhoP, m.rhoP);
  for (std::size_t i = 0; i < n; ++i) state.density[i] = rhoP[i].x;
  gpu::FrameControl c{};
  CUDA_CHECK(cudaMemcpy(&c, m.ctrl.get(), sizeof c, cudaMemcpyDeviceToHost));
  state.time = c.time;
}

void FluidCudaBackend::setState(FluidState state) {
  const auto n = static_cast<std::size_t>(impl_->config.particles);
  if (state.pos.size() != n || state.vel.size() != n || state.density.size() != n) {
    throw std::invalid_argument("fluid: setState: " + std::to_string(state.pos.size()) + " positions, " +
                                std::to_string(state.vel.size()) + " velocities and " +
                                std::to_string(state.density.size()) + " densities for a run of " + std::to_string(n) +
                                " particles");
  }
  impl_->upload(state);
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
  const std::uint64_t frame = m.frames.lastLaunched.value_or(0);
  const float4* src = d.outputs.out[frame % static_cast<std::uint64_t>(d.outputs.slots)];
  CUDA_CHECK(
      cudaMemcpyAsync(m.hostOutput.get(), src, n * sizeof(float4), cudaMemcpyDeviceToHost, m.frames.stream.get()));
  m.synchronize();
  std::memcpy(static_cast<void*>(dst), m.hostOutput.get(), n * sizeof(float4));
}

std::optional<FluidFrameInfo> FluidCudaBackend::lastFrame() const {
  const auto r = impl_->readReport();
  if (!r) return std::nullopt;
  FluidFrameInfo f{r->frame, r->substeps, r->lastDt, r->covered, r->time};
  IterationSpan* spans[2] = {&f.divergence, &f.density}; // indexed by sph_math::Solve
  for (int s = 0; s < 2; ++s) *spans[s] = {r->itMin[s], r->itMax[s], r->itTotal[s]};
  f.peakCompression = r->peakCompression;
  f.peakSinceReset = r->runPeak;
  f.densityError = r->densityError;
  f.resorts = r->resorts;
  return f;
}

std::optional<FluidBlowUp> FluidCudaBackend::blowUp() const {
  Impl& m = *impl_;
  if (m.blowUp) return m.blowUp;
  const auto r = m.readReport();
  if (!r || r->blowUp == gpu::kNoBlowUp) return std::nullopt;
  const auto code = static_cast<unsigned>(r->blowUp >> 32);
  const auto particle = static_cast<unsigned>(r->blowUp & 0xffffffffu);
  m.blowUp = FluidBlowUp{r->blowUpFrame, static_cast<int>(code >> 9), blowUpStage((code >> 4) & 31u),
                         blowUpWhat(code & 15u, particle)};
  return m.blowUp;
}

void FluidCudaBackend::setDiagnosticsEnabled(bool enabled) {
  Impl& m = *impl_;
  if (m.diagnosticsOn == enabled) return;
  m.diagnosticsOn = enabled; // the schedule's: the next launch enables or disables the node as it samples or not
  m.nodesStale = true;
}

bool FluidCudaBackend::diagnosticsEnabled() const { return impl_->diagnosticsOn; }

std::optional<FluidDiagnosticsSample> FluidCudaBackend::diagnostics() const {
  impl_->harvestDiagnostics();
  return impl_->diagnostics;
}

UpdateCounters FluidCudaBackend::counters() const { return impl_->counters; }
const FluidConfig& FluidCudaBackend::config() const { return impl_->config; }
const FluidCudaOptions& FluidCudaBackend::options() const { return impl_->options; }
const std::string& FluidCudaBackend::neighbourSearch() const { return impl_->neighbourSearch; }
double FluidCudaBackend::lastUpdateHostUs() const { return impl_->lastUpdateHostUs; }
double FluidCudaBackend::lastSimGpuMs() const { return impl_->frames.lastSimGpuMs(); }

std::vector<FluidPassTime> FluidCudaBackend::timePasses(int steps) {
  Impl& m = *impl_;
  m.synchronize();
  if (m.options.scratch == FluidScratch::GraphMemoryNodes || steps <= 0) return {};
  struct Restore { // the graph's handles and no clock again, however this ends
    Impl& m;
    gpu::Handles handles;
    ~Restore() {
      m.handles = handles;
      m.passClock.reset();
    }
  } restore{m, m.handles};
  m.handles = {}; // stream launches: no kernel may set a conditional node's value
  const Impl::PassClock& c = m.passClock.emplace();
  // Steps as frames take them: a step past a frame's end would take dt = 0 (its remaining time), and the solves'
  // kappa = excess alpha / dt^2 would blow the fluid up (every neighbour pass then ran 40 times as long).
  for (int timed = 0, before = -1; timed < steps && timed != before;) { // stops at a frame of no step
    before = timed;
    m.launchScope(StepPlace::FrameStart, StepScope::Top, m.nextFrame);
    for (; timed < steps && m.readBack().proceed != 0; ++timed)
      m.launchScope(StepPlace::Substep, StepScope::Top, m.nextFrame);
  }
  std::vector<FluidPassTime> times;
  for (const FluidStepRow& row : kFluidSteps) {
    const auto i = static_cast<std::size_t>(row.step);
    if (row.place != StepPlace::Substep || c.launches[i] == 0) continue;
    times.push_back({std::string(row.name), c.ms[i] / c.launches[i], static_cast<double>(c.launches[i]) / steps});
  }
  return times;
}

std::vector<std::optional<std::vector<std::uint32_t>>> FluidCudaBackend::downloadNeighbourLists() {
  Impl& m = *impl_;
  m.synchronize();
  const gpu::NeighbourLists& l = m.scratch.lists;
  if (l.base == nullptr || m.options.scratch == FluidScratch::GraphMemoryNodes) return {};
  const auto n = static_cast<std::size_t>(m.config.particles), slots = 3 * n;
  std::vector<unsigned> base(slots);
  std::vector<unsigned char> counts(slots);
  std::vector<unsigned short> offsets(slots * gpu::kListPerLane);
  CUDA_CHECK(cudaMemcpy(base.data(), l.base, slots * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(counts.data(), l.count, slots, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(offsets.data(), l.offset, offsets.size() * sizeof(unsigned short), cudaMemcpyDeviceToHost));
  std::vector<std::optional<std::vector<std::uint32_t>>> lists(n, std::vector<std::uint32_t>{});
  for (std::size_t slot = 0; slot < slots; ++slot) {
    std::optional<std::vector<std::uint32_t>>& mine = lists[slot / 3];
    if (!mine) continue;
    if (counts[slot] == gpu::kListOverflow) {
      mine.reset();
      continue;
    }
    for (unsigned k = 0; k < counts[slot]; ++k) mine->push_back(base[slot] + offsets[k * slots + slot]);
  }
  return lists;
}

std::size_t FluidCudaBackend::deviceBytes() const {
  const Impl& m = *impl_;
  // The compute-only render target stands in for the render buffers: excluded, as they are.
  return m.pos.bytes() + m.vel.bytes() + m.rhoP.bytes() + m.layout.bytes + sizeof(gpu::FrameControl) +
         sizeof(gpu::BlowUpState) + sizeof(gpu::FluidDiagnosticsDeviceState) + m.boundaries[0].bytes() +
         m.boundaries[1].bytes();
}

void FluidCudaBackend::dumpGraphDot(const std::filesystem::path& path) const {
  cuda::dumpGraphDot(impl_->exec.shown(), path);
}

const std::vector<NodeInfo>& FluidCudaBackend::nodes() const {
  Impl& m = *impl_;
  if (!m.nodesStale) return m.nodes;
  m.nodes.clear();
  const auto add = [&](std::string_view name, const std::string& type, std::string_view why) -> NodeInfo& {
    return m.nodes.emplace_back(rowNode(name, type, why));
  };
  const bool loop = m.options.launch == FluidLaunch::WhileGraph;
  const std::string body = loop ? " (WHILE body)" : m.options.launch == FluidLaunch::HostDecided ? " (host loop)" : "";
  if (m.options.scratch == FluidScratch::GraphMemoryNodes) add("alloc_scratch", "memory alloc", "scratch");
  if (m.semaphoreNodes()) add(cuda::kWaitNodeName, "semaphore wait", "the frame protocol");
  // Both solvers' rows where the graph holds the SWITCH, else the configured one's (FixedSubsteps: the first copy of
  // a substep or an unrolled solve stands for all).
  std::optional<FluidSolver> branches;
  if (!m.switchBuilt()) branches = m.config.solver;
  for (const StepPlace place : {StepPlace::FrameStart, StepPlace::Substep, StepPlace::FrameEnd}) {
    if (place == StepPlace::Substep && loop) add("while", "conditional WHILE", "conditional nodes cannot be disabled");
    forEachRowInOrder(place, branches, [&](const FluidStepRow& row) {
      const bool conditional =
          row.node == StepNode::SolverSwitch || row.node == StepNode::SolveWhile || row.node == StepNode::ResortIf;
      if (!m.runs(row) || (conditional && !m.switchBuilt())) return;
      if (row.scope == StepScope::KeepOrder && m.options.launch == FluidLaunch::FixedSubsteps) return; // sorts always
      std::string type = row.node == StepNode::SortChildGraph
                             ? "child graph: CUB radix sort, " + std::to_string(m.sortChildNodes) + " nodes"
                         : row.node == StepNode::ClearCellsMemset ? "memset"
                         : row.node == StepNode::SolverSwitch     ? "conditional SWITCH (cfl sets its value)"
                         : row.node == StepNode::SolveWhile       ? "conditional WHILE (nested)"
                         : row.node == StepNode::ResortIf         ? "conditional IF with ELSE (cfl sets it)"
                         : row.step == Step::ListBuild            ? "kernel: neighbour search " + m.neighbourSearch
                         : row.diagnostics                        ? "kernel (on sampling frames)"
                                                                  : "kernel";
      if ((row.scope == StepScope::Resort || row.scope == StepScope::KeepOrder) && m.switchBuilt())
        type += row.scope == StepScope::Resort ? " (re-sort IF branch)" : " (re-sort ELSE branch)";
      if (row.scope == StepScope::Wcsph || row.scope == StepScope::Dfsph)
        type += std::string(" (") + kFluidSolverNames[row.scope == StepScope::Dfsph ? 1 : 0].data() + " branch)";
      if (row.scope == StepScope::DivergenceLoop || row.scope == StepScope::DensityLoop) {
        type += loop                                           ? " (solve WHILE body)"
                : m.options.launch == FluidLaunch::HostDecided ? " (solve's host loop)"
                                                               : " (solve unrolled)";
      }
      NodeInfo& n = add(row.name, type + (row.place == StepPlace::Substep ? body : ""), row.whyNot);
      n.diagnostics = row.diagnostics;
      n.enabled = row.toggle        ? m.config.enabled[static_cast<std::size_t>(*row.toggle)]
                  : row.diagnostics ? m.diagnosticsOn
                                    : true;
    });
  }
  if (m.options.scratch == FluidScratch::GraphMemoryNodes) add("free_scratch", "memory free", "scratch");
  if (m.semaphoreNodes()) add(cuda::kSignalNodeName, "semaphore signal", "the frame protocol");
  m.nodesStale = false;
  return m.nodes;
}

} // namespace graphsim::fluid
