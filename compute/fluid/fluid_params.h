// The fluid scene's parameters (issue 13): the struct, and kFluidParams, one row per field (issue 27: key, unit,
// validated range, slider, soak move; compute/param_table.h), which validateFluidParams(), the scene file, the panel,
// the session recording and the soak iterate. Derived quantities (h, particle mass, speed of sound, the grid) are
// functions of the parameters so that no two places compute them differently.
#pragma once

#include <algorithm>
#include <limits>

#include "compute/fluid/sph_math.h"
#include "compute/param_table.h"

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

  bool operator==(const FluidParams&) const = default; // every field: what the controller compares before applying
};

// The obstacle's bounds that follow the box (the sphere must lie inside it): the panel's radius and centre sliders,
// and the soak's centres, kept 0.25 m from the walls (the soak's radii stay <= 0.2, so any later radius fits).
inline float halfSmallestBox(const FluidParams& p) {
  return 0.5f * std::min({p.boxSize[0], p.boxSize[1], p.boxSize[2]});
}
inline float widestBox(const FluidParams& p) { return std::max({p.boxSize[0], p.boxSize[1], p.boxSize[2]}); }
inline constexpr float kSoakCentreLo = 0.25f, kSoakMaxObstacleRadius = 0.2f;
inline float soakCentreHi(const FluidParams& p, int axis) { return p.boxSize[axis] - kSoakCentreLo; }

// One row per field: adding a parameter is its struct field above, its row here and the code that uses it (the
// kernels and the CPU reference). Order: the panel's sliders, the soak's moves (its seeded sequence picks by index)
// and validation's checks follow it. The ranges are the scene file's; validation refuses the same.
// clang-format off
inline constexpr ParamRow<FluidParams> kFluidParams[] = {
    {.key = "restDensity", .member = &FluidParams::restDensity, .unit = "kg/m^3", .range = {0.0, 1e6, true, false},
     .slider = {"rest density", "rest_density", 100.0f, 3000.0f, SliderScale::Log, "%.0f kg/m3"},
     .soak = {900.0f, 1100.0f}, .help = "rho0, the density the pressure pushes towards (water: 1000)"},
    {.key = "stiffness", .member = &FluidParams::stiffness, .unit = "m^2/s^2", .range = {0.0, 1e6, true, false},
     .slider = {"stiffness", "stiffness", 1.0f, 1000.0f, SliderScale::Log, "%.1f m2/s2"}, .soak = {50.0f, 200.0f},
     .help = "B / rho0; the speed of sound is sqrt(7 stiffness), and with it the substep"},
    {.key = "viscosity", .member = &FluidParams::viscosity, .range = {0.0, 1.0},
     .slider = {"viscosity", "viscosity", 0.0f, 1.0f, SliderScale::Linear, "%.3f"}, .soak = {0.0f, 0.2f},
     .help = "Monaghan's alpha (artificial viscosity)"},
    {.key = "gravity", .member = &FluidParams::gravity, .unit = "m/s^2", .range = {-1000.0, 1000.0},
     .slider = {"gravity y", "gravity_y", -30.0f, 30.0f, SliderScale::Linear, "%.2f m/s2", 1},
     .soak = {-12.0f, -5.0f, 1}},
    {.field = "spacing", .member = &FluidParams::spacing, .unit = "m", // the lattice's (spacingFor)
     .range = {0.0, std::numeric_limits<double>::infinity(), true, true}, .role = ParamRole::Derived},
    {.key = "cflNumber", .member = &FluidParams::cflNumber, .range = {0.0, 1.0, true, false},
     .slider = {"CFL number", "cfl", 0.01f, 1.0f, SliderScale::Linear, "%.3f"}, .soak = {0.15f, 0.3f},
     .help = "C in dt = C h / (c_s + max|v|)"},
    {.key = "maxSubsteps", .member = &FluidParams::maxSubsteps, .range = {1.0, kMaxFluidSubsteps},
     .slider = {"max substeps", "max_substeps", 1.0f, 200.0f, SliderScale::Log, "%d"}, .soak = {8.0f, 48.0f},
     .help = "per frame; a clamped frame covers less than frameDt"},
    {.key = "wallRestitution", .member = &FluidParams::wallRestitution, .range = {0.0, 1.0}},
    {.key = "obstacle.radius", .field = "obstacleRadius", .member = &FluidParams::obstacleRadius, .unit = "m",
     .range = {0.0, 1e6},
     .slider = {"obstacle radius", "obstacle_radius", 0.0f, 0.0f, SliderScale::Linear, "%.3f m", -1, halfSmallestBox},
     .soak = {0.05f, kSoakMaxObstacleRadius}, .help = "0: no obstacle"},
    {.key = "obstacle.centre", .field = "obstacleCentre", .member = &FluidParams::obstacleCentre, .unit = "m",
     .range = {-1e6, 1e6},
     .slider = {"obstacle pos", "obstacle_pos", 0.0f, 0.0f, SliderScale::Linear, "%.2f", -1, widestBox},
     .soak = {kSoakCentreLo, 0.0f, -1, soakCentreHi}, .help = "hold A and point to move it"},
    {.key = "box", .field = "boxSize", .member = &FluidParams::boxSize, .unit = "m", .range = {0.0, 1e4, true, false},
     .role = ParamRole::Structural},
};
// clang-format on
static_assert(coversEveryField(kFluidParams), "kFluidParams: a FluidParams field has no row (or two rows)");

// Throws std::invalid_argument with a message naming the field and its allowed range: each row's range, then the
// rules between fields (the box holds one cell of h and at most 2^30 cells, the obstacle lies inside the box).
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
