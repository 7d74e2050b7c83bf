// NBodyCudaBackend: device choice, interop import, construction on one or several GPUs, and the public API over its
// Impl (compute/nbody/cuda/nbody_cuda_impl.h: state, frame graph, launches and the bounded waits around them).
#include "compute/nbody/nbody_cuda_backend.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>

#include <nvtx3/nvToolsExtCudaRt.h>

#include "compute/cuda/shutdown.h"
#include "compute/cuda_device.h"
#include "compute/nbody/cuda/nbody_cuda_impl.h"
#include "compute/nbody/nbody_cpu_stages.h"
#include "compute/nbody/nbody_initial_conditions.h"

namespace graphsim {

HostStart makeHostStart(const NBodyConfig& config, LeapfrogStart start) {
  HostStart h;
  h.state = makeInitialConditions(config);
  if (start == LeapfrogStart::Host) {
    startLeapfrog(h.state, config.params, h.accel);
    cpu::computeColour(h.state.vel, config.params.colourScale, h.colour);
  } else {
    h.accel.assign(h.state.size(), Float4{});
    h.colour.assign(h.state.size(), 0.0f);
  }
  return h;
}

namespace {

std::string describeDevices(const CudaDeviceList& list) {
  if (list.devices.empty()) return "none (" + list.whyNone + ")";
  std::string s;
  for (const CudaDeviceInfo& d : list.devices) s += (s.empty() ? "" : ", ") + std::to_string(d.index) + ": " + d.name;
  return s;
}

// Refuses an empty list, a device listed twice and devices that do not exist (naming the ones that do).
// Several GPUs sum forces directly (the tree's walk is not split over GPUs: issue 33 leaves it out of scope); auto
// means direct there.
void refuseTreeOnSeveral(const NBodyConfig& config) {
  if (config.forces == NBodyForces::Tree) {
    throw std::invalid_argument("forces: tree runs on one GPU; several GPUs sum directly (forces: direct or auto)");
  }
}

void checkGpus(const std::vector<int>& gpus) {
  if (gpus.empty()) throw std::invalid_argument("NBodyCudaBackend: no GPU given");
  const CudaDeviceList devices = listCudaDevices();
  if (devices.devices.empty()) throw EnvironmentError("no CUDA device: " + devices.whyNone);
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    if (std::find(gpus.begin(), gpus.begin() + static_cast<std::ptrdiff_t>(i), gpus[i]) !=
        gpus.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw std::invalid_argument("CUDA device " + std::to_string(gpus[i]) + " is listed twice");
    }
  }
  if (const std::string missing = missingCudaDevices(gpus, devices); !missing.empty()) {
    const bool one = missing.find(',') == std::string::npos;
    throw EnvironmentError(std::string(one ? "CUDA device " : "CUDA devices ") + missing + (one ? " does" : " do") +
                           " not exist; CUDA devices: " + describeDevices(devices));
  }
}

// Refuses a frames-in-flight count out of range and a render buffer that cannot hold `bodies`.
void checkRenderBuffers(const InteropDesc& interop, std::int64_t bodies) {
  const std::size_t f = interop.renderBuffers.size();
  if (f < 1 || f > kMaxFramesInFlight) {
    throw std::invalid_argument("interop: " + std::to_string(f) + " render buffers (frames in flight must be 1 to " +
                                std::to_string(kMaxFramesInFlight) + ")");
  }
  for (std::size_t i = 0; i < f; ++i) {
    const std::uint64_t size = interop.renderBuffers[i].bufferSize;
    if (size < static_cast<std::uint64_t>(bodies) * sizeof(Float4)) {
      throw std::invalid_argument("interop: render buffer " + std::to_string(i) + " holds " + std::to_string(size) +
                                  " bytes, " + std::to_string(bodies) + " bodies need " + std::to_string(bodies * 16) +
                                  " (16 bytes each)");
    }
  }
}

} // namespace

NBodyCudaBackend::NBodyCudaBackend(const NBodyConfig& config, int device, const InteropDesc* interop,
                                   std::chrono::milliseconds waitTimeout, LeapfrogStart start)
    : NBodyCudaBackend(config, std::vector<int>{device}, interop, waitTimeout, start) {}

NBodyCudaBackend::NBodyCudaBackend(const NBodyConfig& config, const std::vector<int>& gpus, const InteropDesc* interop,
                                   std::chrono::milliseconds waitTimeout, LeapfrogStart start)
    : NBodyCudaBackend(config, gpus, nullptr, interop, waitTimeout, start) {}

NBodyCudaBackend::NBodyCudaBackend(const NBodyConfig& config, int device, const ProcessRank& place,
                                   const InteropDesc* interop, std::chrono::milliseconds waitTimeout,
                                   LeapfrogStart start)
    : NBodyCudaBackend(config, std::vector<int>{device}, &place, interop, waitTimeout, start) {}

NBodyCudaBackend::NBodyCudaBackend(const NBodyConfig& config, const std::vector<int>& gpus, const ProcessRank* place,
                                   const InteropDesc* interop, std::chrono::milliseconds waitTimeout,
                                   LeapfrogStart start)
    : impl_(std::make_unique<Impl>()) {
  // The fds belong to us from here on: each is either imported (then the CUDA driver owns it) or closed when this
  // constructor throws.
  cuda::InteropFds fds(interop);

  validateSceneConfig(config);
  checkGpus(gpus);
  const int device = gpus.front();
  if (interop != nullptr) checkRenderBuffers(*interop, config.bodies);
  if (place != nullptr && place->rank != 0 && interop != nullptr) {
    throw std::invalid_argument("rank " + std::to_string(place->rank) + " has interop; only rank 0 renders");
  }

  Impl& m = *impl_;
  m.leapfrogStart = start;
  m.device = device;
  // The interop imports first: a failed one (the session may fall back to host copy and build another backend) must
  // not have joined a job of several processes, which every rank joins once.
  m.frames.open(device, interop, std::move(fds), waitTimeout, "frame", "graphsim nbody frames");
  if (place != nullptr && place->world > 1) { // EnvironmentError without NCCL, TimeoutError when ranks are missing
    m.collectives = std::make_unique<cuda::Collectives>(device, *place, waitTimeout);
    m.joinRoles(*place, config);
  } else if (gpus.size() > 1) {
    m.collectives = std::make_unique<cuda::Collectives>(gpus);
  }
  std::optional<cuda::FrameSemaphores> semaphores;
  if (m.interop()) semaphores = m.frames.semaphores();
  else m.computeOutput = cuda::DeviceArray<float4>(m.capacityFor(config));

  const HostStart hostStart = makeHostStart(config, start);
  if (m.collectives) {
    refuseTreeOnSeveral(config);
    for (std::size_t r = 1; r < gpus.size(); ++r) {
      Impl::Peer& p = m.peers.emplace_back();
      p.device = gpus[r];
      const OnDevice on(p.device, device);
      p.stream = cuda::makeStream();
      nvtxNameCudaStreamA(p.stream.get(), ("graphsim nbody frames, GPU " + std::to_string(p.device)).c_str());
      p.timing.create();
    }
    m.clearBlowUp();
    m.allocateDiagnostics(); // not sampled on several GPUs (docs/MULTI-GPU.md); kept so the accessors stay uniform
    m.layOutSeveral(config, hostStart, {});
    m.config = config;
    m.config.diagnosticsEvery = 0;
    return;
  }
  m.bodies =
      cuda::DeviceBodies(hostStart.state, hostStart.accel, hostStart.colour, m.capacityFor(config), usesTree(config));
  m.startBodies(m.bodies, config.params);
  m.clearBlowUp();
  m.allocateDiagnostics();
  m.graph.emplace(m.bodies.view(), config.substeps, config.params, config.enabled, semaphores ? &*semaphores : nullptr,
                  m.outputFor(0), cuda::ReportBlowUpArgs{m.blowUpState.get(), m.d_blowUpWord},
                  cuda::DiagnosticsBuffers{m.diagnosticsState.get(), m.d_diagnosticsReport}, config.diagnosticsEvery);
  m.config = config;
}

NBodyCudaBackend::~NBodyCudaBackend() {
  if (impl_->role == Impl::Role::Leads) {
    // The other ranks' follow() returns; with an exception unwinding they say that rank 0 failed.
    try {
      impl_->tell(RankCommand{.kind = RankCommandKind::End,
                              .flag = std::uncaught_exceptions() > 0 ? std::uint8_t{1} : std::uint8_t{0}});
      impl_->broadcastPending();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "graphsim: could not tell the other ranks that the run ended: %s\n", e.what());
    }
  }
  cuda::finishOrRetire(impl_, "CUDA backend");
}

void NBodyCudaBackend::reset(const NBodyConfig& config) {
  validateSceneConfig(config);
  Impl& m = *impl_;
  if (m.interop() && static_cast<std::uint64_t>(config.bodies) > m.frames.renderCapacity) {
    throw std::invalid_argument("bodies: " + std::to_string(config.bodies) + " do not fit the render buffers (" +
                                std::to_string(m.frames.renderCapacity) + " bodies)");
  }
  const HostStart start = makeHostStart(config, m.leapfrogStart); // may throw (initial conditions): nothing touched
  // Ahead of the collectives the new layout captures: every rank resets at the same place in its stream.
  m.tell(resetCommand(config));
  m.broadcastPending();
  m.synchronize(); // no launch may still use the arrays about to be overwritten or replaced
  if (m.collectives) {
    refuseTreeOnSeveral(config);
    m.layOutSeveral(config, start, "one GPU of several: bodies laid out afresh");
    m.config = config;
    m.config.diagnosticsEvery = 0;
    m.clearBlowUp();
    return;
  }
  if (config.substeps == m.graph->substeps() && static_cast<std::size_t>(config.bodies) <= m.bodies.capacity() &&
      usesTree(config) == m.bodies.view().tree.present()) {
    m.resetInPlace(config, start);
  } else {
    m.resetReallocating(config, start);
  }
  m.graph->setDiagnosticsEvery(config.diagnosticsEvery); // between 0 and > 0: the node added or removed (a rebuild)
  m.config = config;
  m.clearBlowUp(); // a new state: an old blow-up no longer describes it (nothing runs: synchronised above)
  m.clearDiagnostics();
}

void NBodyCudaBackend::setParams(const NBodyParams& params) {
  impl_->tell(RankCommand{.kind = RankCommandKind::Params, .params = params});
  impl_->graph->setParams(params);
  for (Impl::Peer& p : impl_->peers) p.graph->setParams(params); // applied by its next launch, on its device
  impl_->config.params = params;
}

void NBodyCudaBackend::setStageEnabled(NBodyStage stage, bool enabled) {
  Impl& m = *impl_;
  m.graph->setStageEnabled(stage, enabled); // throws for a stage that cannot be disabled: nothing told
  m.tell(RankCommand{.kind = RankCommandKind::Stage,
                     .flag = static_cast<std::uint8_t>(enabled),
                     .stage = static_cast<std::uint8_t>(stage)});
  m.onPeers([&](Impl::Peer& p) { p.graph->setStageEnabled(stage, enabled); });
  m.config.enabled[static_cast<int>(stage)] = m.graph->stageEnabled(stage);
}

bool NBodyCudaBackend::stageEnabled(NBodyStage stage) const { return impl_->graph->stageEnabled(stage); }

void NBodyCudaBackend::step() {
  Impl& m = *impl_;
  if (m.interop()) {
    // With interop every frame waits on renderDone and signals simDone: only the frame loop, which submits the
    // matching Vulkan work, may launch frames (launchFrame).
    throw std::logic_error(
        "NBodyCudaBackend::step() is compute-only; with interop the frame loop calls launchFrame(k)");
  }
  m.launch(m.nextComputeFrame++);
  m.synchronize();
}

void NBodyCudaBackend::launchFrame(std::uint64_t k) { impl_->launch(k); }

void NBodyCudaBackend::synchronize() { impl_->synchronize(); }

void NBodyCudaBackend::download(BodyState& state, std::vector<float>& colour) {
  Impl& m = *impl_;
  m.synchronize();
  m.gatherOtherProcessesShares();
  m.bodies.download(state, colour);
  // Several GPUs: positions and colours are gathered everywhere; each GPU's velocities are its own slice's.
  for (const Impl::Peer& p : m.peers) {
    const cuda::GraphSlice& share = *p.graph->slice();
    p.bodies.downloadVelocities(static_cast<std::size_t>(share.begin), static_cast<std::size_t>(share.end),
                                state.vel.data());
  }
}

void NBodyCudaBackend::setState(BodyState state, std::vector<Float4> accel) {
  Impl& m = *impl_;
  if (m.role == Impl::Role::Leads)
    throw std::invalid_argument("setState: the other ranks of a job of one process per GPU cannot be handed a state");
  const auto n = static_cast<std::size_t>(m.config.bodies);
  if (state.posMass.size() != n || state.vel.size() != n || accel.size() != n) {
    throw std::invalid_argument("setState: " + std::to_string(state.posMass.size()) + " positions, " +
                                std::to_string(state.vel.size()) + " velocities and " + std::to_string(accel.size()) +
                                " accelerations for a run of " + std::to_string(n) + " bodies");
  }
  std::vector<float> colour; // what the colour stage computes from the velocities; the next frame writes its own
  cpu::computeColour(state.vel, m.config.params.colourScale, colour);
  m.synchronize(); // no launch may still use the arrays about to be overwritten
  m.bodies.upload(state, accel, colour);
  // Several GPUs: every GPU holds the whole state alike, as after a reset.
  m.onPeers([&](Impl::Peer& p) { p.bodies.upload(state, accel, colour); });
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy)); // the uploads' pageable copies (see startBodies)
  m.clearBlowUp();
  if (!m.collectives) m.clearDiagnostics(); // several GPUs run without diagnostics (as reset)
}

std::optional<NBodyCudaBackend::TreeStats> NBodyCudaBackend::treeStats() {
  Impl& m = *impl_;
  const cuda::DeviceTree& tree = m.bodies.tree();
  if (!tree.view().present()) return std::nullopt;
  m.synchronize();
  const cuda::TreeDeviceStats s = tree.stats();
  return TreeStats{s.depth, s.nodes, s.overflow, s.walkOverflow, tree.bytes()};
}

std::vector<Float4> NBodyCudaBackend::downloadAccelerations() {
  Impl& m = *impl_;
  m.synchronize();
  m.gatherOtherProcessesShares();
  std::vector<Float4> accel = m.bodies.downloadAccelerations();
  for (const Impl::Peer& p : m.peers) {
    const cuda::GraphSlice& share = *p.graph->slice();
    p.bodies.downloadAccelerations(static_cast<std::size_t>(share.begin), static_cast<std::size_t>(share.end),
                                   accel.data());
  }
  return accel;
}

const std::vector<NodeInfo>& NBodyCudaBackend::nodes() const {
  const Impl& m = *impl_;
  if (m.peers.empty()) return m.graph->nodes();
  // Rank 0's nodes, then every peer's named "<node>@gpu<device>". Assigned element by element into the same vector,
  // so that reading it again allocates nothing once the names fit.
  std::size_t total = m.graph->nodes().size();
  for (const Impl::Peer& p : m.peers) total += p.graph->nodes().size();
  m.allNodes.resize(total);
  std::size_t i = 0;
  for (const NodeInfo& n : m.graph->nodes()) m.allNodes[i++] = n;
  for (const Impl::Peer& p : m.peers) {
    const std::string suffix = "@gpu" + std::to_string(p.device);
    for (const NodeInfo& n : p.graph->nodes()) {
      NodeInfo& out = m.allNodes[i++];
      out = n;
      out.name += suffix;
    }
  }
  return m.allNodes;
}

bool NBodyCudaBackend::setProfiling(bool enabled) {
  Impl& m = *impl_;
  m.synchronize(); // the marks change the topology: no launch may still run the old exec
  m.graph->setProfiling(enabled);
  m.onPeers([&](Impl::Peer& p) { p.graph->setProfiling(enabled); });
  return true;
}

UpdateCounters NBodyCudaBackend::counters() const { return impl_->graph->counters(); }

const NBodyConfig& NBodyCudaBackend::config() const { return impl_->config; }

std::optional<NBodyBlowUp> NBodyCudaBackend::blowUp() const {
  impl_->harvestBlowUp();
  return impl_->blowUp;
}

void NBodyCudaBackend::setDiagnosticsEnabled(bool enabled) { impl_->graph->setDiagnosticsEnabled(enabled); }

bool NBodyCudaBackend::diagnosticsEnabled() const { return impl_->graph->diagnosticsEnabled(); }

std::optional<DiagnosticsSample> NBodyCudaBackend::diagnostics() const {
  impl_->harvestDiagnostics();
  return impl_->diagnostics;
}

double NBodyCudaBackend::lastSimGpuMs() const { return impl_->frames.lastSimGpuMs(); }

std::vector<int> NBodyCudaBackend::gpus() const {
  std::vector<int> list{impl_->device};
  for (const Impl::Peer& p : impl_->peers) list.push_back(p.device);
  return list;
}

std::vector<double> NBodyCudaBackend::gpuMs(std::uint64_t k) const {
  const Impl& m = *impl_;
  std::vector<double> ms{m.frames.timings.gpuMs(k).value_or(-1.0)};
  for (const Impl::Peer& p : m.peers) {
    ms.push_back(p.timing.gpuMs(k).value_or(-1.0));
  }
  return ms;
}

double NBodyCudaBackend::lastUpdateHostUs() const { return impl_->graph->lastUpdateHostUs(); }

std::int64_t NBodyCudaBackend::capacity() const { return static_cast<std::int64_t>(impl_->bodies.capacity()); }

void NBodyCudaBackend::dumpGraphDot(const std::filesystem::path& path) const { impl_->graph->dumpDot(path); }

void NBodyCudaBackend::injectKernelFailure(NBodyStage stage, std::uint64_t frame, BreakNode breakNode) {
  impl_->injectedFailure = Impl::InjectedFailure{stage, frame, breakNode};
}

void NBodyCudaBackend::setLaunchMode(LaunchMode mode, ComparisonLaunch launch) {
  if (launch != nullptr && impl_->collectives) {
    throw std::invalid_argument("the comparison launch modes run on one GPU; this backend has " +
                                std::to_string(impl_->ranks()));
  }
  impl_->mode = mode;
  impl_->comparisonLaunch = launch;
}

LaunchMode NBodyCudaBackend::launchMode() const { return impl_->mode; }

void NBodyCudaBackend::setProgrammaticLaunch(bool enabled) {
  Impl& m = *impl_;
  if (m.graph->programmaticLaunch() == enabled) return;
  m.synchronize(); // a rebuild needs the graph idle (NBodyFrameGraph::rebuild)
  m.graph->setProgrammaticLaunch(enabled);
  m.onPeers([&](Impl::Peer& p) { p.graph->setProgrammaticLaunch(enabled); });
}

LaunchHostTiming NBodyCudaBackend::lastLaunchHostTiming() const {
  return {impl_->graph->lastUpdateHostUs(), impl_->graph->lastLaunchHostUs()};
}

void NBodyCudaBackend::waitForFrame(std::uint64_t k) { impl_->waitForFrame(k); }

std::optional<double> NBodyCudaBackend::frameGpuMs(std::uint64_t k) const { return impl_->frames.timings.gpuMs(k); }

NBodyCudaBackend::FollowSummary NBodyCudaBackend::follow() {
  Impl& m = *impl_;
  if (m.role != Impl::Role::Follows)
    throw std::logic_error("NBodyCudaBackend::follow: only a rank other than 0 of a job of several processes follows");
  FollowSummary summary;
  for (;;) {
    const std::vector<RankCommand> commands = m.receive();
    ++summary.messages;
    for (const RankCommand& c : commands) {
      switch (c.kind) {
      case RankCommandKind::Reset:
        reset(configAfter(m.config, c));
        ++summary.resets;
        break;
      case RankCommandKind::Params: setParams(c.params); break;
      case RankCommandKind::Stage: setStageEnabled(static_cast<NBodyStage>(c.stage), c.flag != 0); break;
      case RankCommandKind::Frame:
        m.launch(c.value);
        ++summary.frames;
        break;
      case RankCommandKind::Gather:
        m.synchronize();
        m.gatherOtherProcessesShares();
        ++summary.gathers;
        break;
      case RankCommandKind::End:
        m.synchronize();
        summary.rank0Failed = c.flag != 0;
        return summary;
      case RankCommandKind::Hello: throw std::runtime_error("rank 0 said hello twice: the ranks are out of step");
      }
    }
  }
}

void NBodyCudaBackend::copyRenderOutput(Float4* dst) {
  Impl& m = *impl_;
  if (m.interop()) {
    throw std::logic_error(
        "NBodyCudaBackend::copyRenderOutput is for the compute-only graph; with interop the render "
        "buffers are Vulkan's");
  }
  const std::size_t n = static_cast<std::size_t>(m.config.bodies);
  // Sized to the capacity once: count changes within it allocate nothing here.
  if (m.hostOutput.size() < n) m.hostOutput = cuda::PinnedArray<float4>(std::max(n, m.computeOutput.size()));
  CUDA_CHECK(cudaMemcpyAsync(m.hostOutput.get(), m.computeOutput.get(), n * sizeof(float4), cudaMemcpyDeviceToHost,
                             m.frames.stream.get()));
  m.synchronize();
  if (n > 0) std::memcpy(static_cast<void*>(dst), m.hostOutput.get(), n * sizeof(float4));
}

} // namespace graphsim
