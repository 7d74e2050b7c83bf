// CudaInstruments (compute/cuda_instruments.h): forwards to CudaBackend's private instrument members.
#include "compute/cuda_instruments.h"

namespace graphsim {

void CudaInstruments::setLaunchMode(CudaBackend& cuda, LaunchMode mode) { cuda.setLaunchMode(mode); }
LaunchMode CudaInstruments::launchMode(const CudaBackend& cuda) { return cuda.launchMode(); }
LaunchHostTiming CudaInstruments::lastLaunchHostTiming(const CudaBackend& cuda) { return cuda.lastLaunchHostTiming(); }
void CudaInstruments::waitForFrame(CudaBackend& cuda, std::uint64_t k) { cuda.waitForFrame(k); }
std::optional<double> CudaInstruments::frameGpuMs(const CudaBackend& cuda, std::uint64_t k) {
  return cuda.frameGpuMs(k);
}
void CudaInstruments::injectKernelFailure(CudaBackend& cuda, Stage stage, std::uint64_t frame) {
  cuda.injectKernelFailure(stage, frame);
}

std::string_view launchModeName(LaunchMode mode) {
  switch (mode) {
  case LaunchMode::Graph: return "graph";
  case LaunchMode::Stream: return "stream";
  case LaunchMode::WholeUpdate: return "whole-update";
  case LaunchMode::Reinstantiate: return "reinstantiate";
  }
  return "unknown";
}

} // namespace graphsim
