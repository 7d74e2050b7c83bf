// The fluid scene's parameters (issue 13): what the panel and scene files will edit, with units and the ranges that
// validateFluidParams() enforces. Derived quantities (h, particle mass, speed of sound, the grid) are functions of
// the parameters so that no two places compute them differently.
#pragma once

#include "compute/fluid/sph_math.h"

namespace graphsim::fluid {

inline constexpr int kMaxFluidSubsteps = 1000;

struct FluidParams {
  float restDensity = 1000.0f;             // rho0 [kg/m^3], > 0 (water: 1000)
  float stiffness = 100.0f;                // B / rho0 [m^2/s^2], > 0; speed of sound c_s = sqrt(7 * stiffness)
  float viscosity = 0.05f;                 // Monaghan's alpha [-], [0, 1]
  float gravity[3] = {0.0f, -9.81f, 0.0f}; // [m/s^2], each component within +-1000
  float spacing = 0.02f;                   // initial lattice spacing [m], > 0; radius = spacing / 2, h = 2 * spacing
  float cflNumber = 0.25f;                 // C in dt = C h / (c_s + max|v|) [-], (0, 1]
  int maxSubsteps = 32;                    // per frame, [1, 1000]; a clamped frame covers less than frameDt
  float wallRestitution = 0.5f;            // share of the normal speed kept at a wall or the obstacle [-], [0, 1]
  float obstacleCentre[3] = {0.8f, 0.2f, 0.4f}; // [m], the sphere must lie inside the box
  float obstacleRadius = 0.15f;                 // [m], >= 0; 0 = no obstacle
  float boxSize[3] = {1.6f, 1.0f, 0.8f};        // [m], each >= h (at least one cell per axis), at most 2^30 cells
};

// Throws std::invalid_argument with a message naming the field and its allowed range.
void validateFluidParams(const FluidParams& params);

inline float smoothingLength(const FluidParams& p) { return 2.0f * p.spacing; }
inline float particleRadius(const FluidParams& p) { return 0.5f * p.spacing; }
inline float speedOfSound(const FluidParams& p) { return sph_math::soundSpeed(p.stiffness); }

// Particle mass [kg]: rest density over the kernel sum of a full simple-cubic lattice of this spacing, so that an
// interior particle of the initial lattice has exactly rho0 by summation (rho0 * spacing^3 would be off by the
// kernel's discretisation error, ~1-3 % at h = 2 spacing, and the fluid would start out of equilibrium).
float particleMass(const FluidParams& p);

// The grid of cells of size h covering the box (ceil per axis).
sph_math::GridDims gridDims(const FluidParams& p);

inline sph_math::Vec3 toVec3(const float (&v)[3]) { return {v[0], v[1], v[2]}; }

} // namespace graphsim::fluid
