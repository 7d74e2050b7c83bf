// The ballistic scene on CUDA: one kernel per step row and specFor; the kit's chain frame graph
// (compute/cuda/chain_frames.h) builds [wait_render_done] -> fall -> bounce -> write_render -> [signal_sim_done] once
// and per frame applies the byte-diff update and the bounce toggle. Pausing is dt = 0 (a node update).
#include "compute/cuda/kernel_node_spec.h"
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

} // namespace

CudaBackend::CudaBackend(const Config& c, int device, const std::optional<InteropDesc>& interop,
                         std::chrono::milliseconds timeout)
    : BackendBase(c, "kernel"), ChainFrames(device, interop, timeout, "ballistic", 2, c.particles) {
  setState(initialState(c.particles));
  const auto specFor = [this, n = static_cast<int>(c.particles)](int row, std::uint64_t k) {
    void (*const kernels[])(Args) = {stepKernel<0>, stepKernel<1>, stepKernel<2>};
    const Args a{array(0), array(1), renderTarget(k), advance_ ? kFrameDt : 0.0f, config_.params.restitution, n, 0};
    return cuda::kernelSpecOf(kernels[row], a, static_cast<unsigned>(n), 256);
  };
  build(kSteps, specFor, [this](int row) { return row == kBounce ? std::optional(config_.bounce) : std::nullopt; });
}

} // namespace graphsim::ballistic
