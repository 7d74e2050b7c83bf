// Upload and download of the simulation state (device_bodies.h).
#include "compute/nbody/cuda/device_bodies.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace graphsim::cuda {

DeviceBodies::DeviceBodies(const BodyState& state, const std::vector<Float4>& accel, const std::vector<float>& colour,
                           std::size_t capacity, bool tree)
    : posMass_(std::max(state.size(), capacity)), vel_(posMass_.size()), accel_(posMass_.size()),
      colour_(posMass_.size()), forcesFixed_(3 * posMass_.size()),
      forcesTileDone_(forcesTileCounters(posMass_.size())) {
  if (tree) tree_ = DeviceTree(posMass_.size());
  upload(state, accel, colour);
}

void DeviceBodies::upload(const BodyState& state, const std::vector<Float4>& accel, const std::vector<float>& colour) {
  const std::size_t n = state.size();
  if (state.vel.size() != n || accel.size() != n || colour.size() != n) {
    throw std::invalid_argument("DeviceBodies: inconsistent host arrays (" + std::to_string(n) + " bodies)");
  }
  if (n > capacity()) {
    throw std::invalid_argument("DeviceBodies: " + std::to_string(n) + " bodies exceed the capacity " +
                                std::to_string(capacity()));
  }
  count_ = n;
  double massSum = 0;
  for (const Float4& p : state.posMass) massSum += p.w;
  massSum_ = static_cast<float>(massSum);
  // The scratch starts at zero (a launch that failed half-way may have left sums behind).
  if (forcesFixed_.size() > 0)
    CUDA_CHECK(cudaMemset(forcesFixed_.get(), 0, forcesFixed_.size() * sizeof(unsigned long long)));
  if (forcesTileDone_.size() > 0)
    CUDA_CHECK(cudaMemset(forcesTileDone_.get(), 0, forcesTileDone_.size() * sizeof(unsigned int)));
  if (n == 0) return;
  CUDA_CHECK(cudaMemcpy(posMass_.get(), state.posMass.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(vel_.get(), state.vel.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(accel_.get(), accel.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(colour_.get(), colour.data(), n * sizeof(float), cudaMemcpyHostToDevice));
}

BodiesView DeviceBodies::view() const {
  return {posMass_.get(),
          vel_.get(),
          accel_.get(),
          colour_.get(),
          static_cast<int>(count_),
          {forcesFixed_.get(), forcesTileDone_.get()},
          massSum_,
          tree_.view()};
}

void DeviceBodies::download(BodyState& state, std::vector<float>& colour) const {
  const std::size_t n = size();
  state.posMass.resize(n);
  state.vel.resize(n);
  colour.resize(n);
  if (n == 0) return;
  CUDA_CHECK(cudaMemcpy(state.posMass.data(), posMass_.get(), n * sizeof(float4), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(state.vel.data(), vel_.get(), n * sizeof(float4), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(colour.data(), colour_.get(), n * sizeof(float), cudaMemcpyDeviceToHost));
}

std::vector<Float4> DeviceBodies::downloadAccelerations() const {
  std::vector<Float4> accel(size());
  if (!accel.empty()) {
    CUDA_CHECK(cudaMemcpy(accel.data(), accel_.get(), accel.size() * sizeof(float4), cudaMemcpyDeviceToHost));
  }
  return accel;
}

namespace {
void copyRange(const float4* src, std::size_t count, std::size_t begin, std::size_t end, Float4* dst) {
  if (begin > end || end > count) {
    throw std::invalid_argument("DeviceBodies: bodies [" + std::to_string(begin) + ", " + std::to_string(end) +
                                ") outside the " + std::to_string(count) + " in use");
  }
  if (begin == end) return;
  CUDA_CHECK(cudaMemcpy(dst + begin, src + begin, (end - begin) * sizeof(float4), cudaMemcpyDeviceToHost));
}
} // namespace

void DeviceBodies::downloadVelocities(std::size_t begin, std::size_t end, Float4* dst) const {
  copyRange(vel_.get(), size(), begin, end, dst);
}

void DeviceBodies::downloadAccelerations(std::size_t begin, std::size_t end, Float4* dst) const {
  copyRange(accel_.get(), size(), begin, end, dst);
}

} // namespace graphsim::cuda
