// The simulation state in CUDA memory: float4 arrays posMass, vel, accel and the per-body colour attribute.
// Allocated to a capacity once per structural change that does not fit it, never inside a frame; a body count up to
// the capacity is uploaded into the same arrays (upload), so the graph's pointers stay and only counts change.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "compute/cuda/cuda_handles.h"
#include "compute/nbody/cuda/nbody_kernels.h"
#include "compute/nbody/nbody.h"

namespace graphsim::cuda {

static_assert(sizeof(Float4) == sizeof(float4) && alignof(Float4) == alignof(float4),
              "graphsim::Float4 must have the layout of CUDA's float4 (states are copied bytewise)");

class DeviceBodies {
public:
  DeviceBodies() = default;
  // Allocates max(n, capacity) bodies and copies the host state of n bodies in (synchronous: reset is not a
  // per-frame path). The bodies past n are never read: every kernel stops at n (forces pads its tiles itself).
  // tree: also the tree code's arrays for the capacity (forces: tree).
  DeviceBodies(const BodyState& state, const std::vector<Float4>& accel, const std::vector<float>& colour,
               std::size_t capacity = 0, bool tree = false);

  // Copies a host state of n <= capacity() bodies into the arrays (synchronous, like the constructor); the arrays
  // and so view()'s pointers stay, its count becomes n. Throws std::invalid_argument past the capacity, before
  // copying anything. The caller has synchronised the stream that uses the arrays.
  void upload(const BodyState& state, const std::vector<Float4>& accel, const std::vector<float>& colour);

  BodiesView view() const; // n = size()
  std::size_t size() const { return count_; }
  std::size_t capacity() const { return posMass_.size(); }
  const DeviceTree& tree() const { return tree_; }

  // Copies the state back. The caller has synchronised the stream that writes it.
  void download(BodyState& state, std::vector<float>& colour) const;
  std::vector<Float4> downloadAccelerations() const;
  // Bodies [begin, end) of the velocities or accelerations into dst[begin, end) (one GPU of several downloads its
  // share only: docs/MULTI-GPU.md). The caller has synchronised.
  void downloadVelocities(std::size_t begin, std::size_t end, Float4* dst) const;
  void downloadAccelerations(std::size_t begin, std::size_t end, Float4* dst) const;

private:
  DeviceArray<float4> posMass_, vel_, accel_;
  DeviceArray<float> colour_;
  // The forces stage's scratch (nbody_kernels.h, ForcesScratch), zeroed here; the kernel leaves it zeroed.
  DeviceArray<unsigned long long> forcesFixed_;
  DeviceArray<unsigned int> forcesTileDone_;
  DeviceTree tree_; // empty unless asked for
  float massSum_ = 0;
  std::size_t count_ = 0; // bodies in use: the first count_ of each array
};

} // namespace graphsim::cuda
