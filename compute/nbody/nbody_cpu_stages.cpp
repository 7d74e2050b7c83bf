// CPU loops of the nbody stages. Only forces is O(N^2) and runs on threads; the O(N) stages stay serial: they cost
// less than the forces of a single body block and keep this file free of scheduling decisions.
#include "compute/nbody/nbody_cpu_stages.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>

#include "compute/long_work.h"
#include "compute/nbody/nbody_math.h"

namespace graphsim::cpu {
namespace {

using nbody_math::Vec3;

Vec3 xyz(const Float4& f) { return {f.x, f.y, f.z}; }
void setXyz(Float4& f, Vec3 v) {
  f.x = v.x;
  f.y = v.y;
  f.z = v.z;
}

// Accelerations of bodies i0 .. i0+count-1 (count <= kForceLanes). Lane k accumulates body i0+k over j = 0..n-1
// in order, exactly as a scalar loop would: vectorising across i instead of j changes no sum, so the result is
// bit-identical to the plain double loop and independent of how blocks are spread over threads. The restrict
// pointers tell the compiler the SoA arrays do not alias the accumulators.
void forceBlock(const float* __restrict px, const float* __restrict py, const float* __restrict pz,
                const float* __restrict pm, std::size_t n, std::size_t i0, std::size_t count, float eps2, float G,
                Float4* __restrict accel) {
  float xi[kForceLanes], yi[kForceLanes], zi[kForceLanes];
  float ax[kForceLanes] = {}, ay[kForceLanes] = {}, az[kForceLanes] = {};
  for (std::size_t k = 0; k < kForceLanes; ++k) {
    xi[k] = px[i0 + k];
    yi[k] = py[i0 + k];
    zi[k] = pz[i0 + k];
  }
  for (std::size_t j = 0; j < n; ++j) {
    const float xj = px[j], yj = py[j], zj = pz[j], mj = pm[j];
    for (std::size_t k = 0; k < kForceLanes; ++k) {
      const float dx = xj - xi[k], dy = yj - yi[k], dz = zj - zi[k];
      const float w = nbody_math::gravityWeight(dx, dy, dz, mj, eps2);
      ax[k] += dx * w;
      ay[k] += dy * w;
      az[k] += dz * w;
    }
  }
  for (std::size_t k = 0; k < count; ++k) accel[i0 + k] = {G * ax[k], G * ay[k], G * az[k], 0.0f};
}

} // namespace

void computeForces(const std::vector<Float4>& posMass, const NBodyParams& params, ForceScratch& scratch,
                   std::vector<Float4>& accel) {
  const std::size_t n = posMass.size();
  const std::size_t padded = (n + kForceLanes - 1) / kForceLanes * kForceLanes;
  scratch.x.resize(padded);
  scratch.y.resize(padded);
  scratch.z.resize(padded);
  scratch.m.resize(padded);
  accel.resize(n);
  for (std::size_t i = 0; i < padded; ++i) {
    // Padding lanes sit at the origin with no mass: they compute a value nobody stores and pull on nobody.
    const Float4 p = i < n ? posMass[i] : Float4{};
    scratch.x[i] = p.x;
    scratch.y[i] = p.y;
    scratch.z[i] = p.z;
    scratch.m[i] = p.w;
  }
  const float eps2 = params.softening * params.softening;
  const auto blocks = static_cast<std::int64_t>(padded / kForceLanes);
  // In chunks of ~50 ms with an interrupt checkpoint between them (compute/long_work.h): at large N one frame's
  // forces take seconds to hours, and Ctrl-C must not wait for them. Chunking changes no sum.
  LongWork work;
  const auto chunk = static_cast<std::int64_t>(
      std::max<std::size_t>(1, kInteractionsPerCheckpoint / (std::max<std::size_t>(n, 1) * kForceLanes)));
  for (std::int64_t begin = 0; begin < blocks; begin += chunk) {
    const std::int64_t end = std::min(blocks, begin + chunk);
    // Every block costs the same (n pair evaluations per lane), so a static schedule balances the threads.
#pragma omp parallel for schedule(static)
    for (std::int64_t b = begin; b < end; ++b) {
      const std::size_t i0 = static_cast<std::size_t>(b) * kForceLanes;
      const std::size_t count = n - i0 < kForceLanes ? n - i0 : kForceLanes;
      forceBlock(scratch.x.data(), scratch.y.data(), scratch.z.data(), scratch.m.data(), n, i0, count, eps2, params.G,
                 accel.data());
    }
    if (end < blocks) work.checkpoint(static_cast<double>(end) / static_cast<double>(blocks));
  }
}

void applyAttractor(const std::vector<Float4>& posMass, std::vector<Float4>& vel, const NBodyParams& params) {
  const Vec3 p = {params.attractorPos[0], params.attractorPos[1], params.attractorPos[2]};
  for (std::size_t i = 0; i < posMass.size(); ++i) {
    setXyz(vel[i], nbody_math::attractorKick(xyz(posMass[i]), xyz(vel[i]), p, params.attractorStrength, params.dt,
                                             kAttractorSoftening));
  }
}

void integrate(std::vector<Float4>& posMass, std::vector<Float4>& vel, const std::vector<Float4>& accel, float dt) {
  for (std::size_t i = 0; i < posMass.size(); ++i) {
    Vec3 x = xyz(posMass[i]), v = xyz(vel[i]);
    nbody_math::integrate(x, v, xyz(accel[i]), dt);
    setXyz(posMass[i], x);
    setXyz(vel[i], v);
  }
}

void damp(std::vector<Float4>& vel, float factor) {
  for (Float4& v : vel) setXyz(v, nbody_math::damp(xyz(v), factor));
}

void applyBoundary(std::vector<Float4>& posMass, std::vector<Float4>& vel, float radius) {
  for (std::size_t i = 0; i < posMass.size(); ++i) {
    Vec3 x = xyz(posMass[i]), v = xyz(vel[i]);
    nbody_math::reflectAtBoundary(x, v, radius);
    setXyz(posMass[i], x);
    setXyz(vel[i], v);
  }
}

void computeColour(const std::vector<Float4>& vel, float colourScale, std::vector<float>& colour) {
  colour.resize(vel.size());
  for (std::size_t i = 0; i < vel.size(); ++i) colour[i] = nbody_math::speedColour(xyz(vel[i]), colourScale);
}

void writeRender(const std::vector<Float4>& posMass, const std::vector<float>& colour, Float4* dst) {
  for (std::size_t i = 0; i < posMass.size(); ++i) dst[i] = {posMass[i].x, posMass[i].y, posMass[i].z, colour[i]};
}

std::size_t firstNonFinite(const std::vector<Float4>& values) {
  // |x| <= FLT_MAX is false exactly for +-inf and NaN. The healthy pass is an OR over all bodies with no early exit,
  // so it stays a straight (vectorisable) loop; the index is looked for only when something was found.
  const auto finite = [](const Float4& f) -> bool {
    return (std::fabs(f.x) <= FLT_MAX) & (std::fabs(f.y) <= FLT_MAX) & (std::fabs(f.z) <= FLT_MAX);
  };
  bool allFinite = true;
  for (const Float4& f : values) allFinite &= finite(f);
  if (allFinite) return values.size();
  std::size_t i = 0;
  while (i < values.size() && finite(values[i])) ++i;
  return i;
}

} // namespace graphsim::cpu
