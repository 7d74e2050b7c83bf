// The simulation state in CUDA memory: float4 arrays posMass, vel, accel and the per-body colour attribute.
// Allocated once per structural change (reset), never inside a frame.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "compute/cuda/cuda_handles.h"
#include "compute/cuda/nbody_kernels.h"
#include "compute/nbody.h"

namespace graphsim::cuda {

static_assert(sizeof(Float4) == sizeof(float4) && alignof(Float4) == alignof(float4),
              "graphsim::Float4 must have the layout of CUDA's float4 (states are copied bytewise)");

class DeviceBodies {
public:
  DeviceBodies() = default;
  // Allocates n bodies and copies the host state in (synchronous: reset is not a per-frame path).
  DeviceBodies(const BodyState& state, const std::vector<Float4>& accel, const std::vector<float>& colour);

  BodiesView view() const;
  std::size_t size() const { return posMass_.size(); }

  // Copies the state back. The caller has synchronised the stream that writes it.
  void download(BodyState& state, std::vector<float>& colour) const;
  std::vector<Float4> downloadAccelerations() const;

private:
  DeviceArray<float4> posMass_, vel_, accel_;
  DeviceArray<float> colour_;
};

} // namespace graphsim::cuda
