// The ballistic scene on CUDA, through the kit (compute/cuda): one kernel per step-table row, the frame shell's
// semaphore nodes around them with interop, specs compared byte for byte before a node update, the bounce toggle as
// node enable/disable, the timing-event ring. One graph, built once: [wait] -> fall -> bounce -> write_render ->
// [signal]. Pausing is dt = 0 (a node update); the frames keep running. Only Args, the kernels and specFor are the
// scene's: the rest of CudaEngine (graph from the table, byte-diff loop, toggle, waits, interop slots) is what the
// kit's node list from a step table (issue 27, step 2) will hold for every scene.
#include <cstdio>
#include <string>

#include "compute/cuda/cuda_check.h"
#include "compute/cuda/cuda_handles.h"
#include "compute/cuda/external_interop.h"
#include "compute/cuda/frame_shell.h"
#include "compute/cuda/frame_timings.h"
#include "compute/cuda/kernel_node_spec.h"
#include "compute/cuda/poll.h"
#include "tests/scenes/ballistic/ballistic.h"

namespace graphsim::ballistic {
namespace {

struct Args { // every kernel's one argument: no implicit padding, so equal arguments are equal bytes
  Float4 *pos, *vel, *out;
  float dt, restitution;
  int n, pad;
};

__global__ void fallKernel(Args a) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < a.n) fall(a.pos[i], a.vel[i], a.dt);
}
__global__ void bounceKernel(Args a) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < a.n) bounce(a.pos[i], a.vel[i], a.restitution);
}
__global__ void writeRenderKernel(Args a) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < a.n) a.out[i] = renderOf(a.pos[i], a.vel[i]);
}

cuda::KernelNodeSpec specFor(Step step, const Args& a) {
  void (*const kernels[])(Args) = {fallKernel, bounceKernel, writeRenderKernel}; // in kSteps order
  return cuda::kernelSpecOf(kernels[static_cast<int>(step)], a, static_cast<unsigned>(a.n), 256);
}

class CudaEngine final : public Engine {
public:
  CudaEngine(std::int64_t n, int device, const InteropDesc* interop, std::chrono::milliseconds timeout)
      : fds_(interop), n_(static_cast<int>(n)), timeout_(timeout) {
    CUDA_CHECK(cudaSetDevice(device));
    stream_ = cuda::makeStream();
    timings_.create();
    pos_ = cuda::DeviceArray<Float4>(n_), vel_ = cuda::DeviceArray<Float4>(n_), out_ = cuda::DeviceArray<Float4>(n_);
    if (interop != nullptr) {
      imported_ = cuda::importInterop(std::move(fds_), *interop);
      const auto f = static_cast<std::uint32_t>(interop->renderBuffers.size());
      sem_ = {imported_.renderDone.get(), imported_.simDone.get(), FrameProtocol(f)};
    }
    upload(initialState(n));
    build();
  }
  ~CudaEngine() override {
    try { // bounded: a stall is reported, not waited for forever
      synchronize();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "graphsim: ballistic shutdown: %s\n", e.what());
    }
  }

  std::string_view name() const override { return "cuda"; }
  std::optional<std::uint64_t> produce(std::uint64_t k, bool advance, const Params& p, bool bounceOn) override {
    if (sem_.present()) cuda::setFrameSemaphoreValues(exec_.get(), wait_, signal_, sem_, k);
    const Args a = argsFor(k, advance ? kFrameDt : 0.0f, p.restitution);
    for (const StepRow& row : kSteps) { // the byte diff: only a changed spec is a node update
      const auto i = static_cast<std::size_t>(row.step);
      const cuda::KernelNodeSpec want = specFor(row.step, a);
      if (want == specs_[i]) continue;
      void* slot[1];
      const cudaKernelNodeParams params = want.nodeParams(slot);
      CUDA_CHECK_CTX(cudaGraphExecKernelNodeSetParams(exec_.get(), nodes_[i], &params), std::string(row.name));
      specs_[i] = want;
      ++counters_.nodeUpdates;
    }
    if (bounceOn != bounceOn_) {
      CUDA_CHECK_CTX(cudaGraphNodeSetEnabled(exec_.get(), nodes_[1], bounceOn ? 1 : 0), "toggling bounce");
      bounceOn_ = bounceOn;
      ++counters_.enableToggles;
    }
    timings_.begin(k, stream_.get());
    CUDA_CHECK_CTX(cudaGraphLaunch(exec_.get(), stream_.get()), "launching ballistic frame " + std::to_string(k));
    timings_.end(k, stream_.get());
    last_ = k;
    if (!sem_.present()) return std::nullopt;
    return sem_.protocol.simDoneSignalled(k);
  }
  void writeRender(Float4* dst) override {
    synchronize();
    CUDA_CHECK(cudaMemcpy(dst, out_.get(), out_.bytes(), cudaMemcpyDeviceToHost));
  }
  void waitProduced(std::uint64_t k) override {
    cudaEvent_t end = timings_.endOf(k);
    if (end == nullptr) return synchronize();
    if (!cuda::pollCudaUntilDone([&] { return cudaEventQuery(end); }, "cudaEventQuery",
                                 [&] { return "ballistic frame " + std::to_string(k); }, deadline()))
      throw stalled();
  }
  void finish() override { synchronize(); }
  double simMs() const override { return last_ ? timings_.newestMs(*last_).value_or(-1.0) : -1.0; }
  UpdateCounters counters() const override { return counters_; }
  State download() override {
    synchronize();
    State s{std::vector<Float4>(pos_.size()), std::vector<Float4>(vel_.size())};
    CUDA_CHECK(cudaMemcpy(s.pos.data(), pos_.get(), pos_.bytes(), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(s.vel.data(), vel_.get(), vel_.bytes(), cudaMemcpyDeviceToHost));
    return s;
  }
  void upload(const State& s) override { // on the frames' stream, waited for: the next launch reads it
    synchronize();
    CUDA_CHECK(cudaMemcpyAsync(pos_.get(), s.pos.data(), pos_.bytes(), cudaMemcpyHostToDevice, stream_.get()));
    CUDA_CHECK(cudaMemcpyAsync(vel_.get(), s.vel.data(), vel_.bytes(), cudaMemcpyHostToDevice, stream_.get()));
    synchronize();
  }

private:
  Args argsFor(std::uint64_t k, float dt, float restitution) const {
    Float4* out =
        imported_.renderBuffers.empty() ? out_.get() : imported_.renderBuffers[sem_.protocol.slot(k)].as<Float4>();
    return {pos_.get(), vel_.get(), out, dt, restitution, n_, 0};
  }
  void build() {
    graph_ = cuda::makeGraph();
    cudaGraph_t g = graph_.get();
    cudaGraphNode_t last = sem_.present() ? (wait_ = cuda::addFrameWaitNode(g, nullptr, 0, sem_)) : nullptr;
    for (const StepRow& row : kSteps) {
      const auto i = static_cast<std::size_t>(row.step);
      specs_[i] = specFor(row.step, argsFor(0, kFrameDt, Params{}.restitution));
      void* slot[1];
      const cudaKernelNodeParams params = specs_[i].nodeParams(slot);
      CUDA_CHECK_CTX(cudaGraphAddKernelNode(&nodes_[i], g, &last, last != nullptr ? 1 : 0, &params),
                     std::string(row.name));
      last = nodes_[i];
    }
    if (sem_.present()) signal_ = cuda::addFrameSignalNode(g, &last, 1, sem_);
    cudaGraphExec_t e = nullptr;
    CUDA_CHECK_CTX(cudaGraphInstantiate(&e, g, 0), "instantiating the ballistic frame graph");
    exec_ = cuda::GraphExec(e);
  }
  void synchronize() const {
    if (!cuda::pollCudaUntilDone([&] { return cudaStreamQuery(stream_.get()); }, "cudaStreamQuery",
                                 [] { return std::string("the ballistic frame failed"); }, deadline()))
      throw stalled();
  }
  std::chrono::steady_clock::time_point deadline() const { return std::chrono::steady_clock::now() + timeout_; }
  TimeoutError stalled() const {
    return TimeoutError("CUDA side stalled: ballistic frame " + std::to_string(last_.value_or(0)) +
                            " did not complete within " + std::to_string(timeout_.count()) + " ms",
                        TimeoutError::Side::Cuda);
  }

  cuda::InteropFds fds_; // first: closed here if the constructor throws before the import
  int n_;
  std::chrono::milliseconds timeout_;
  cuda::Stream stream_;
  cuda::FrameTimings timings_;
  cuda::DeviceArray<Float4> pos_, vel_, out_;
  cuda::ImportedInterop imported_;
  cuda::FrameSemaphores sem_;
  cuda::Graph graph_;
  cuda::GraphExec exec_;
  cudaGraphNode_t wait_ = nullptr, signal_ = nullptr;
  std::array<cudaGraphNode_t, kSteps.size()> nodes_{};
  std::array<cuda::KernelNodeSpec, kSteps.size()> specs_{};
  bool bounceOn_ = true;
  std::optional<std::uint64_t> last_;
  UpdateCounters counters_;
};

} // namespace

std::unique_ptr<Engine> makeCudaEngine(std::int64_t particles, int device, const InteropDesc* interop,
                                       std::chrono::milliseconds waitTimeout) {
  return std::make_unique<CudaEngine>(particles, device, interop, waitTimeout);
}

} // namespace graphsim::ballistic
