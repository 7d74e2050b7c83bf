// The nbody stages as loops over host arrays: what NBodyCpuBackend runs, one function per stage, each applying the
// per-body formula of compute/nbody/nbody_math.h to every body. Kept apart from the backend class so tests can run one
// stage on a hand-made state.
#pragma once

#include <cstddef>
#include <vector>

#include "compute/nbody/nbody.h"

namespace graphsim::cpu {

// Bodies processed together by one iteration of the forces loop: the lane loop over i has a fixed trip count, so
// the compiler vectorises it while each lane still sums j in ascending order (see computeForces).
inline constexpr std::size_t kForceLanes = 16;

// Structure-of-arrays copy of positions and masses, padded to a multiple of kForceLanes. Owned by the caller and
// reused across steps so that a step allocates nothing once the body count is reached.
struct ForceScratch {
  std::vector<float> x, y, z, m;
};

// accel[i] = G * sum_j m_j (x_j - x_i) / (|x_j - x_i|^2 + eps^2)^(3/2), j ascending; overwrites accel.
void computeForces(const std::vector<Float4>& posMass, const NBodyParams& params, ForceScratch& scratch,
                   std::vector<Float4>& accel);
void applyAttractor(const std::vector<Float4>& posMass, std::vector<Float4>& vel, const NBodyParams& params);
void integrate(std::vector<Float4>& posMass, std::vector<Float4>& vel, const std::vector<Float4>& accel, float dt);
void damp(std::vector<Float4>& vel, float factor);
void applyBoundary(std::vector<Float4>& posMass, std::vector<Float4>& vel, float radius);
void computeColour(const std::vector<Float4>& vel, float colourScale, std::vector<float>& colour);
// dst[i] = (x, y, z, colour[i]) for every body.
void writeRender(const std::vector<Float4>& posMass, const std::vector<float>& colour, Float4* dst);

// Blow-up detection: the index of the first element whose x, y or z is infinite or NaN, or values.size() if none
// is (w, the mass or an unused lane, is not looked at). One branch-free pass while everything is finite.
std::size_t firstNonFinite(const std::vector<Float4>& values);

} // namespace graphsim::cpu
