// The per-body formulas of the nbody stages, written once for both backends: the CPU reference (nbody_cpu_backend.cpp)
// and the CUDA kernels include this header, so a stage computes the same expression, in the same operation order,
// in float32 on both sides. The results still differ in the last bits between the backends (nvcc contracts a*b+c
// into FMAs and the CUDA tiles may evaluate a pair differently), which the GPU tests absorb with a tolerance; on
// the CPU no FMA is formed (x86-64 baseline has none) and nothing is reordered, so CPU runs are bit-reproducible.
//
// Plain C++ with no dependencies beyond <cmath> and compute/vec3.h; under nvcc every function is __host__ __device__.
#pragma once

#include <cmath>

#include "compute/vec3.h"

namespace graphsim::nbody_math {

using math::dot;
using math::Vec3;

// forces: the weight of body j in the sum for body i, given d = x_j - x_i and eps2 = softening^2:
//   w = m_j / (|d|^2 + eps2)^(3/2),   acc_i += d * w  (j ascending),   a_i = G * acc_i  (G applied once at the end).
// r2 == 0 happens only for j == i without softening; its contribution is 0 (not 0 * inf = NaN). The weight is
// computed unconditionally and then selected, so that the CPU loop has no branch and vectorises.
GRAPHSIM_HD inline float gravityWeight(float dx, float dy, float dz, float mj, float eps2) {
  const float r2 = dx * dx + dy * dy + dz * dz + eps2;
  const float inv = 1.0f / sqrtf(r2);
  const float w = mj * inv * inv * inv;
  return r2 > 0.0f ? w : 0.0f;
}

// attractor: a velocity kick towards p, independent of the accel array (so toggling forces does not change it):
//   d = p - x,  v += d * (S * dt / (|d|^2 + epsA^2)^(3/2)).
GRAPHSIM_HD inline Vec3 attractorKick(Vec3 x, Vec3 v, Vec3 p, float strength, float dt, float epsA) {
  const Vec3 d = p - x;
  const float r2 = dot(d, d) + epsA * epsA;
  const float inv = 1.0f / sqrtf(r2);
  return v + d * (strength * dt * inv * inv * inv);
}

// integrate: kick-drift leapfrog on half-step velocities: v(t+dt/2) = v(t-dt/2) + a(t) dt; x(t+dt) = x(t) + v dt.
using math::integrate;

// damping: v *= f, with f = dampingFactor(params) = exp(-damping * dt) computed once on the host (nbody.h).
GRAPHSIM_HD inline Vec3 damp(Vec3 v, float factor) { return v * factor; }

// boundary: a body outside the sphere of radius R is put back on it; an outward velocity is mirrored.
GRAPHSIM_HD inline void reflectAtBoundary(Vec3& x, Vec3& v, float radius) {
  const float r = sqrtf(dot(x, x));
  if (r > radius) {
    const Vec3 n = {x.x / r, x.y / r, x.z / r};
    x = n * radius;
    const float vn = dot(v, n);
    if (vn > 0.0f) v = v - n * (2.0f * vn);
  }
}

// colour: the per-body render attribute, min(|v| * scale * 0.5, 1).
GRAPHSIM_HD inline float speedColour(Vec3 v, float scale) { return fminf(sqrtf(dot(v, v)) * scale * 0.5f, 1.0f); }

} // namespace graphsim::nbody_math
