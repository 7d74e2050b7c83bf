// Helpers shared by the GPU tests: the skip-without-device guard, small scene configs, and the report of a state
// comparison (compute/nbody/nbody_state_compare.h, which the soak uses too).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "compute/cuda_device.h"
#include "compute/nbody/nbody.h"
#include "compute/nbody/nbody_backend.h"
#include "compute/nbody/nbody_state_compare.h"
#include "render/particle_renderer.h"
#include "render/vulkan_context.h"

// Every GPU test starts with this: on machines without a CUDA device (CI) the test is reported as skipped, with
// the reason listCudaDevices() gives ("no CUDA driver ...", "no CUDA device ...").
#define GRAPHSIM_REQUIRE_CUDA_DEVICE()                                                                                 \
  do {                                                                                                                 \
    const ::graphsim::CudaDeviceList cudaDevicesForSkip_ = ::graphsim::listCudaDevices();                              \
    if (cudaDevicesForSkip_.devices.empty()) GTEST_SKIP() << "no CUDA device: " << cudaDevicesForSkip_.whyNone;        \
  } while (false)

namespace graphsim::gputest {

// The Vulkan device that is CUDA device 0, with interop extensions and validation on.
inline render::DeviceRequest interopRequest() {
  render::DeviceRequest r;
  r.uuid = listCudaDevices().devices.at(0).uuid;
  r.requireInterop = true;
  r.validation = true;
  return r;
}

// A small offscreen renderer whose body buffers are exported to CUDA.
inline render::RendererConfig exportedRendererConfig(std::uint32_t width, std::uint32_t height, std::int64_t maxBodies,
                                                     std::uint32_t framesInFlight) {
  render::RendererConfig rc;
  rc.width = width;
  rc.height = height;
  rc.maxBodies = static_cast<std::uint32_t>(maxBodies);
  rc.framesInFlight = framesInFlight;
  rc.mode = render::BodyBufferMode::Exported;
  rc.waitTimeout = std::chrono::milliseconds(5000);
  return rc;
}

// The render half of frame k of the interop protocol, as the frame loop submits it: draws CUDA frame k's bodies
// once simDone reaches k + 1; with `capture` the picture is kept for finishCapture(k).
inline void submitRender(render::ParticleRenderer& renderer, std::uint64_t k, std::int64_t bodies,
                         bool capture = false) {
  render::FrameSubmit frame;
  frame.frame = k;
  frame.bodyCount = static_cast<std::uint32_t>(bodies);
  frame.waitSimDone = k + 1;
  frame.capture = capture;
  renderer.submit(frame);
}

inline NBodyConfig scene(const char* initial, std::int64_t bodies, std::uint64_t seed = 7) {
  NBodyConfig c;
  c.initial = initial;
  c.bodies = bodies;
  c.seed = seed;
  return c;
}

// One line the lead copies into the closing note (the tolerances were set from these numbers).
inline void report(const char* what, const StateDifference& d) {
  std::printf(
      "[ measured ] %s: max |dx| = %.3e (body %zu), p99 = %.3e, rms = %.3e, system scale = %.3f, "
      "max/scale = %.3e, bit-identical = %s\n",
      what, d.maxAbs, d.worst, d.p99, d.rms, d.scale, d.scale > 0 ? d.maxAbs / d.scale : 0.0,
      d.bitIdentical ? "yes" : "no");
}

inline BodyState download(NBodyBackend& backend) {
  BodyState s;
  std::vector<float> colour;
  backend.download(s, colour);
  return s;
}

// Every instance of `stage` in a node list (NodeInfo::stage; node names are for people).
inline std::vector<NodeInfo> stageInstances(const std::vector<NodeInfo>& nodes, NBodyStage stage) {
  std::vector<NodeInfo> out;
  for (const NodeInfo& n : nodes) {
    if (stageOf(n) == stage) out.push_back(n);
  }
  return out;
}

} // namespace graphsim::gputest
