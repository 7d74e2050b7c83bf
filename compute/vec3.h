// The small float vector the per-particle formulas of every scene share (compute/nbody/nbody_math.h,
// compute/fluid/sph_math.h), and the host/device marker that lets the CUDA kernels include those formulas too.
// Plain C++ with no dependencies; under nvcc every function is __host__ __device__.
#pragma once

#if defined(__CUDACC__)
#define GRAPHSIM_HD __host__ __device__
#else
#define GRAPHSIM_HD
#endif

namespace graphsim::math {

struct Vec3 {
  float x, y, z;
};

GRAPHSIM_HD inline Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
GRAPHSIM_HD inline Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
GRAPHSIM_HD inline Vec3 operator*(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
GRAPHSIM_HD inline float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

// Kick-drift (symplectic Euler / leapfrog on half-step velocities): v += a dt, then x += v dt with the new v.
GRAPHSIM_HD inline void integrate(Vec3& x, Vec3& v, Vec3 a, float dt) {
  v = v + a * dt;
  x = x + v * dt;
}

} // namespace graphsim::math
