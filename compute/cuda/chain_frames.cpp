// The kit's chain frame graph (chain_frames.h).
#include "compute/cuda/chain_frames.h"

#include "compute/cuda/cuda_check.h"
#include "compute/cuda/frame_resources.h"
#include "compute/cuda/graph_nodes.h"
#include "compute/cuda/shutdown.h"

namespace graphsim::cuda {

struct ChainFrames::Impl {
  FrameResources frames; // first: destroyed last
  std::string noun;
  std::vector<DeviceArray<Float4>> arrays;
  DeviceArray<Float4> out;
  FrameExec fx;
  std::vector<GraphNode> nodes;
  cudaGraphNode_t wait = nullptr, signal = nullptr;
  SpecFor specFor;
  EnabledFor enabledFor;
  UpdateCounters counters;
  double updateUs = 0;

  void synchronize() const {
    frames.synchronize([&] { return "the " + noun + " frame failed"; });
  }
};

ChainFrames::ChainFrames(int device, const std::optional<InteropDesc>& interop, std::chrono::milliseconds timeout,
                         const std::string& noun, int arrays, std::int64_t count)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.noun = noun;
  m.frames.open(device, interop ? &*interop : nullptr, InteropFds(interop ? &*interop : nullptr), timeout,
                noun + " frame", ("graphsim " + noun + " frames").c_str());
  for (int i = 0; i < arrays; ++i) m.arrays.emplace_back(count);
  m.out = DeviceArray<Float4>(count);
}
ChainFrames::~ChainFrames() { finishOrRetire(impl_, (impl_->noun + " shutdown").c_str()); }

void ChainFrames::build(Steps steps, SpecFor specFor, EnabledFor enabledFor) {
  Impl& m = *impl_;
  m.specFor = std::move(specFor), m.enabledFor = std::move(enabledFor);
  const FrameSemaphores sem = m.frames.semaphores();
  BuiltGraph<GraphNode> g{makeGraph(), {}};
  cudaGraphNode_t prev = sem.present() ? (m.wait = addFrameWaitNode(g.graph.get(), nullptr, 0, sem)) : nullptr;
  for (int row = 0; row < static_cast<int>(steps.size()); ++row) {
    const KernelNodeSpec spec = m.specFor(row, 0);
    prev = addKernelNode(g.graph.get(), prev != nullptr ? &prev : nullptr, prev != nullptr ? 1 : 0, spec,
                         steps[row].first);
    g.nodes.push_back({std::string(steps[row].first), row, prev, spec});
  }
  if (sem.present()) m.signal = addFrameSignalNode(g.graph.get(), &prev, 1, sem);
  (void)replaceGraph(m.fx, m.nodes, std::move(g), m.counters, {});
}

void ChainFrames::launchFrame(std::uint64_t k) {
  Impl& m = *impl_;
  const auto t0 = std::chrono::steady_clock::now();
  if (m.frames.interop()) setFrameSemaphoreValues(m.fx.get(), m.wait, m.signal, m.frames.semaphores(), k);
  m.counters.nodeUpdates +=
      updateKernels(m.fx.get(), m.nodes, [&](const GraphNode& n) { return std::optional(m.specFor(n.row, k)); });
  m.counters.enableToggles += syncEnables(m.fx.get(), m.nodes, [&](const GraphNode& n) { return m.enabledFor(n.row); });
  m.updateUs = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  m.frames.timed(k, [&] {
    CUDA_CHECK_CTX(cudaGraphLaunch(m.fx.get(), m.frames.stream.get()),
                   "launching " + m.noun + " frame " + std::to_string(k));
  });
}

void ChainFrames::copyRenderOutput(Float4* dst) {
  synchronize();
  CUDA_CHECK(cudaMemcpy(dst, impl_->out.get(), impl_->out.bytes(), cudaMemcpyDeviceToHost));
}
void ChainFrames::synchronize() const { impl_->synchronize(); }
UpdateCounters ChainFrames::counters() const { return impl_->counters; }
double ChainFrames::lastSimGpuMs() const { return impl_->frames.lastSimGpuMs(); }
double ChainFrames::lastUpdateHostUs() const { return impl_->updateUs; }
void ChainFrames::dumpGraphDot(const std::filesystem::path& path) const { cuda::dumpGraphDot(impl_->fx.shown(), path); }
Float4* ChainFrames::array(int i) const { return impl_->arrays[i].get(); }
Float4* ChainFrames::renderTarget(std::uint64_t k) const {
  return impl_->frames.interop() ? impl_->frames.renderBuffer<Float4>(k) : impl_->out.get();
}

std::vector<std::vector<Float4>> ChainFrames::downloadArrays() const {
  synchronize();
  std::vector<std::vector<Float4>> host;
  for (const DeviceArray<Float4>& a : impl_->arrays) download(host.emplace_back(a.size()), a);
  return host;
}
void ChainFrames::uploadArrays(std::initializer_list<const std::vector<Float4>*> arrays) {
  synchronize(); // no launch may still use the arrays; the next launch reads them once landed
  for (std::size_t i = 0; i < arrays.size(); ++i) upload(impl_->arrays[i], *arrays.begin()[i]);
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

} // namespace graphsim::cuda
