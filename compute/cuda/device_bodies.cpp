// Upload and download of the simulation state (device_bodies.h).
#include "compute/cuda/device_bodies.h"

#include <stdexcept>
#include <string>

namespace graphsim::cuda {

DeviceBodies::DeviceBodies(const BodyState& state, const std::vector<Float4>& accel, const std::vector<float>& colour)
    : posMass_(state.size()), vel_(state.size()), accel_(state.size()), colour_(state.size()) {
  const std::size_t n = state.size();
  if (state.vel.size() != n || accel.size() != n || colour.size() != n) {
    throw std::invalid_argument("DeviceBodies: inconsistent host arrays (" + std::to_string(n) + " bodies)");
  }
  if (n == 0) return;
  CUDA_CHECK(cudaMemcpy(posMass_.get(), state.posMass.data(), posMass_.bytes(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(vel_.get(), state.vel.data(), vel_.bytes(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(accel_.get(), accel.data(), accel_.bytes(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(colour_.get(), colour.data(), colour_.bytes(), cudaMemcpyHostToDevice));
}

BodiesView DeviceBodies::view() const {
  return {posMass_.get(), vel_.get(), accel_.get(), colour_.get(), static_cast<int>(posMass_.size())};
}

void DeviceBodies::download(BodyState& state, std::vector<float>& colour) const {
  const std::size_t n = size();
  state.posMass.resize(n);
  state.vel.resize(n);
  colour.resize(n);
  if (n == 0) return;
  CUDA_CHECK(cudaMemcpy(state.posMass.data(), posMass_.get(), posMass_.bytes(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(state.vel.data(), vel_.get(), vel_.bytes(), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(colour.data(), colour_.get(), colour_.bytes(), cudaMemcpyDeviceToHost));
}

std::vector<Float4> DeviceBodies::downloadAccelerations() const {
  std::vector<Float4> accel(size());
  if (!accel.empty()) CUDA_CHECK(cudaMemcpy(accel.data(), accel_.get(), accel_.bytes(), cudaMemcpyDeviceToHost));
  return accel;
}

} // namespace graphsim::cuda
