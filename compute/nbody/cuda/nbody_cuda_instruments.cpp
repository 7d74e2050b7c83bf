// NBodyCudaInstruments (compute/nbody/nbody_cuda_instruments.h): forwards to NBodyCudaBackend's private instrument
// members, handing it the frame graph's comparison launches and kernel-fail hook, which live in this library
// (nbody_frame_graph_instruments.cpp).
#include "compute/nbody/nbody_cuda_instruments.h"

#include "compute/nbody/cuda/nbody_frame_graph_instruments.h"

namespace graphsim {
namespace {

using cuda::FrameGraphInstruments;
using ComparisonLaunch = void (*)(cuda::NBodyFrameGraph& graph, const cuda::FrameLaunch& launch);

// nullptr for the product's own launch.
ComparisonLaunch comparisonLaunch(LaunchMode mode) {
  switch (mode) {
  case LaunchMode::Graph:
  case LaunchMode::Programmatic: return nullptr; // the product's launch (Programmatic: a graph with programmatic edges)
  case LaunchMode::Stream: return &FrameGraphInstruments::launchOnStream;
  case LaunchMode::WholeUpdate: return &FrameGraphInstruments::launchWithWholeUpdate;
  case LaunchMode::Reinstantiate: return &FrameGraphInstruments::launchReinstantiated;
  }
  return nullptr;
}

} // namespace

void NBodyCudaInstruments::setLaunchMode(NBodyCudaBackend& backend, LaunchMode mode) {
  backend.setProgrammaticLaunch(mode == LaunchMode::Programmatic);
  backend.setLaunchMode(mode, comparisonLaunch(mode));
}
LaunchMode NBodyCudaInstruments::launchMode(const NBodyCudaBackend& backend) { return backend.launchMode(); }
LaunchHostTiming NBodyCudaInstruments::lastLaunchHostTiming(const NBodyCudaBackend& backend) {
  return backend.lastLaunchHostTiming();
}
void NBodyCudaInstruments::waitForFrame(NBodyCudaBackend& backend, std::uint64_t k) { backend.waitForFrame(k); }
std::optional<double> NBodyCudaInstruments::frameGpuMs(const NBodyCudaBackend& backend, std::uint64_t k) {
  return backend.frameGpuMs(k);
}
void NBodyCudaInstruments::injectKernelFailure(NBodyCudaBackend& backend, NBodyStage stage, std::uint64_t frame) {
  backend.injectKernelFailure(stage, frame, &FrameGraphInstruments::injectBadLaunchConfig);
}

std::string_view launchModeName(LaunchMode mode) {
  switch (mode) {
  case LaunchMode::Graph: return "graph";
  case LaunchMode::Programmatic: return "programmatic";
  case LaunchMode::Stream: return "stream";
  case LaunchMode::WholeUpdate: return "whole-update";
  case LaunchMode::Reinstantiate: return "reinstantiate";
  }
  return "unknown";
}

} // namespace graphsim
