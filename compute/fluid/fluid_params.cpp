#include "compute/fluid/fluid_params.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace graphsim::fluid {
namespace {

[[noreturn]] void refuse(const std::string& field, float value, const std::string& range) {
  throw std::invalid_argument("fluid: " + field + " = " + std::to_string(value) + " is outside " + range);
}

const char* const kAxis[3] = {"x", "y", "z"};

} // namespace

void validateFluidParams(const FluidParams& p) {
  checkParamRanges("fluid", p, kFluidParams);
  // Between fields: the box holds one cell of h per axis and at most 2^30 cells; the obstacle lies inside the box.
  const float h = smoothingLength(p);
  double cells = 1;
  for (int a = 0; a < 3; ++a) {
    if (!(p.boxSize[a] >= h)) {
      refuse(std::string("boxSize.") + kAxis[a], p.boxSize[a],
             "[h, inf) m with h = 2 * spacing = " + std::to_string(h) + " (one cell)");
    }
    cells *= std::ceil(static_cast<double>(p.boxSize[a]) / h);
  }
  if (cells > double(1 << 30)) {
    throw std::invalid_argument("fluid: boxSize / h gives " + std::to_string(cells) +
                                " cells, more than 2^30 (the 32-bit cell key)");
  }
  for (int a = 0; a < 3; ++a) {
    const float lo = p.obstacleRadius;
    const float hi = p.boxSize[a] - p.obstacleRadius;
    if (!(p.obstacleCentre[a] >= lo && p.obstacleCentre[a] <= hi)) {
      refuse(std::string("obstacleCentre.") + kAxis[a], p.obstacleCentre[a],
             "[" + std::to_string(lo) + ", " + std::to_string(hi) +
                 "] m (obstacleRadius from the faces: the sphere must lie inside the box)");
    }
  }
}

float particleMass(const FluidParams& p) {
  const float h = smoothingLength(p);
  const int reach = static_cast<int>(std::ceil(h / p.spacing));
  float sum = 0.0f; // fixed order: z, y, x ascending
  for (int k = -reach; k <= reach; ++k) {
    for (int j = -reach; j <= reach; ++j) {
      for (int i = -reach; i <= reach; ++i) {
        const float dx = static_cast<float>(i) * p.spacing;
        const float dy = static_cast<float>(j) * p.spacing;
        const float dz = static_cast<float>(k) * p.spacing;
        sum += sph_math::kernelW(dx * dx + dy * dy + dz * dz, h);
      }
    }
  }
  return p.restDensity / sum;
}

sph_math::GridDims gridDims(const FluidParams& p) {
  const float h = smoothingLength(p);
  auto cellsAlong = [&](float extent) { return std::max(1, static_cast<int>(std::ceil(extent / h))); };
  return {cellsAlong(p.boxSize[0]), cellsAlong(p.boxSize[1]), cellsAlong(p.boxSize[2]), h};
}

} // namespace graphsim::fluid
