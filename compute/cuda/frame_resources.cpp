#include "compute/cuda/frame_resources.h"

#include <algorithm>
#include <utility>

#include <nvtx3/nvToolsExtCudaRt.h>

#include "compute/cuda/cuda_check.h"
#include "compute/float4.h"

namespace graphsim::cuda {

void FrameResources::open(int device, const InteropDesc* interop, InteropFds fds, std::chrono::milliseconds timeout,
                          std::string noun, const char* streamName) {
  waitTimeout = timeout, frameNoun = std::move(noun);
  CUDA_CHECK(cudaSetDevice(device));
  stream = makeStream();
  nvtxNameCudaStreamA(stream.get(), streamName); // the timeline's name; a no-op without a tool
  timings.create();
  if (interop == nullptr) return;
  imported = importInterop(std::move(fds), *interop);
  protocol = FrameProtocol(static_cast<std::uint32_t>(interop->renderBuffers.size()));
  renderCapacity = UINT64_MAX;
  for (const InteropDesc::Buffer& b : interop->renderBuffers)
    renderCapacity = std::min<std::uint64_t>(renderCapacity, b.bufferSize / sizeof(Float4));
}

TimeoutError FrameResources::stalled() const {
  const std::uint64_t k = timings.oldestIncomplete().value_or(lastLaunched.value_or(0));
  std::string m = "CUDA side stalled: " + frameNoun + " " + std::to_string(k) + " did not complete within " +
                  std::to_string(waitTimeout.count()) + " ms";
  if (interop()) m += " (waiting on renderDone ≥ " + std::to_string(protocol.renderDoneWaited(k)) + "?)";
  return TimeoutError(m, TimeoutError::Side::Cuda);
}

double FrameResources::lastSimGpuMs() const {
  if (lastLaunched) lastSimMs = timings.newestMs(*lastLaunched).value_or(lastSimMs);
  return lastSimMs;
}

} // namespace graphsim::cuda
