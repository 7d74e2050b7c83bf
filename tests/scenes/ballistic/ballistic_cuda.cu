// The ballistic scene on CUDA, on the kit (compute/cuda): one kernel per step row and specFor, the graph
// [wait_render_done] -> fall -> bounce -> write_render -> [signal_sim_done] built once; per frame the byte-diff update
// and the bounce toggle by row (graph_nodes.h), the timing ring around the launch. Pausing is dt = 0 (a node update).
#include <string>

#include "compute/cuda/cuda_check.h"
#include "compute/cuda/frame_resources.h"
#include "compute/cuda/graph_nodes.h"
#include "compute/cuda/shutdown.h"
#include "tests/scenes/ballistic/ballistic.h"

namespace graphsim::ballistic {
namespace {

struct Args { // every kernel's one argument: no implicit padding, so equal arguments are equal bytes
  Float4 *pos, *vel, *out;
  float dt, restitution;
  int n, pad;
};

template <int Row> // one kernel per kSteps row
__global__ void stepKernel(Args a) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= a.n) return;
  if constexpr (Row == 0) fall(a.pos[i], a.vel[i], a.dt);
  if constexpr (Row == kBounce) bounce(a.pos[i], a.vel[i], a.restitution);
  if constexpr (Row == 2) a.out[i] = renderOf(a.pos[i], a.vel[i]);
}
cuda::KernelNodeSpec specFor(int row, const Args& a) {
  void (*const kernels[])(Args) = {stepKernel<0>, stepKernel<1>, stepKernel<2>};
  return cuda::kernelSpecOf(kernels[row], a, static_cast<unsigned>(a.n), 256);
}

} // namespace

struct CudaBackend::Impl {
  Impl(int device, int n, const std::optional<InteropDesc>& interop, std::chrono::milliseconds timeout) : n(n) {
    frames.open(device, interop ? &*interop : nullptr, cuda::InteropFds(interop ? &*interop : nullptr), timeout,
                "ballistic frame", "graphsim ballistic frames");
    pos = cuda::DeviceArray<Float4>(n), vel = cuda::DeviceArray<Float4>(n), out = cuda::DeviceArray<Float4>(n);
  }
  Args argsFor(std::uint64_t k, const Config& c, bool advance) const {
    Float4* o = frames.interop() ? frames.renderBuffer<Float4>(k) : out.get();
    return {pos.get(), vel.get(), o, advance ? kFrameDt : 0.0f, c.params.restitution, n, 0};
  }
  void build(const Config& c) {
    const cuda::FrameSemaphores sem = frames.semaphores();
    cuda::BuiltGraph<cuda::GraphNode> g{cuda::makeGraph(), {}};
    cudaGraphNode_t prev = sem.present() ? (wait = cuda::addFrameWaitNode(g.graph.get(), nullptr, 0, sem)) : nullptr;
    for (int row = 0; row < static_cast<int>(kSteps.size()); ++row) {
      const cuda::KernelNodeSpec spec = specFor(row, argsFor(0, c, true));
      prev = cuda::addKernelNode(g.graph.get(), prev != nullptr ? &prev : nullptr, prev != nullptr ? 1 : 0, spec,
                                 kSteps[row].first);
      g.nodes.push_back({std::string(kSteps[row].first), row, prev, spec});
    }
    if (sem.present()) signal = cuda::addFrameSignalNode(g.graph.get(), &prev, 1, sem);
    (void)cuda::replaceGraph(fx, nodes, std::move(g), counters, {});
  }
  void synchronize() const {
    frames.synchronize([] { return std::string("the ballistic frame failed"); });
  }

  cuda::FrameResources frames;
  int n;
  cuda::DeviceArray<Float4> pos, vel, out;
  cuda::FrameExec fx;
  std::vector<cuda::GraphNode> nodes;
  cudaGraphNode_t wait = nullptr, signal = nullptr;
  UpdateCounters counters;
  double updateUs = 0;
};

CudaBackend::CudaBackend(const Config& c, int device, std::optional<InteropDesc> interop,
                         std::chrono::milliseconds timeout)
    : BackendBase(c, "kernel"), impl_(std::make_unique<Impl>(device, static_cast<int>(c.particles), interop, timeout)) {
  setState(initialState(c.particles));
  impl_->build(c);
}
CudaBackend::~CudaBackend() { cuda::finishOrRetire(impl_, "ballistic shutdown"); }

void CudaBackend::launchFrame(std::uint64_t k) {
  Impl& m = *impl_;
  const auto t0 = std::chrono::steady_clock::now();
  if (m.frames.interop()) cuda::setFrameSemaphoreValues(m.fx.get(), m.wait, m.signal, m.frames.semaphores(), k);
  const Args a = m.argsFor(k, config_, advance_);
  m.counters.nodeUpdates += cuda::updateKernels(
      m.fx.get(), m.nodes, [&](const cuda::GraphNode& node) { return std::optional(specFor(node.row, a)); });
  m.counters.enableToggles += cuda::syncEnables(m.fx.get(), m.nodes, [&](const cuda::GraphNode& node) {
    return node.row == kBounce ? std::optional(config_.bounce) : std::nullopt;
  });
  m.updateUs = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  m.frames.timed(k, [&] {
    CUDA_CHECK_CTX(cudaGraphLaunch(m.fx.get(), m.frames.stream.get()),
                   "launching ballistic frame " + std::to_string(k));
  });
}
void CudaBackend::copyRenderOutput(Float4* dst) {
  synchronize();
  CUDA_CHECK(cudaMemcpy(dst, impl_->out.get(), impl_->out.bytes(), cudaMemcpyDeviceToHost));
}
void CudaBackend::synchronize() const { impl_->synchronize(); }
UpdateCounters CudaBackend::counters() const { return impl_->counters; }
double CudaBackend::lastSimGpuMs() const { return impl_->frames.lastSimGpuMs(); }
double CudaBackend::lastUpdateHostUs() const { return impl_->updateUs; }
void CudaBackend::dumpGraphDot(const std::filesystem::path& path) const { cuda::dumpGraphDot(impl_->fx.shown(), path); }
State CudaBackend::state() {
  synchronize();
  State s{std::vector<Float4>(impl_->n), std::vector<Float4>(impl_->n)};
  cuda::download(s.pos, impl_->pos), cuda::download(s.vel, impl_->vel);
  return s;
}
void CudaBackend::setState(const State& s) {
  synchronize(); // no launch may still use the arrays; the next launch reads them once landed
  cuda::upload(impl_->pos, s.pos), cuda::upload(impl_->vel, s.vel);
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

} // namespace graphsim::ballistic
