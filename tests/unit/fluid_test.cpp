// The fluid scene's CPU stages (compute/fluid/fluid_cpu.h, issue 13): the sorted grid against brute force, the frame
// rule (substep count and dt), and the parameter checks. The physics through the backend (rest, dam break, switches,
// blow-up, config) is in fluid_backend_test.cpp. Each test runs <= 4,096 particles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/fluid/fluid_cpu.h"

namespace graphsim::fluid {
namespace {

using sph_math::Vec3;

Vec3 xyz(const Float4& f) { return {f.x, f.y, f.z}; }

FluidParams cubeParams(float cellsX, float cellsY, float cellsZ) {
  FluidParams p;
  p.boxSize[0] = cellsX * p.spacing;
  p.boxSize[1] = cellsY * p.spacing;
  p.boxSize[2] = cellsZ * p.spacing;
  p.obstacleRadius = 0.0f;
  p.obstacleCentre[0] = p.obstacleCentre[1] = p.obstacleCentre[2] = 0.0f;
  return p;
}

TEST(FluidGrid, NeighbourCandidatesHoldExactlyTheBruteForceNeighbours) {
  // 4,096 particles at random in a 16 x 16 x 16 spacing box (8^3 cells of h), plus particles on the faces and
  // corners (the clamped cells). For every particle, the candidates of its 27 cells within h must be the brute-force
  // set of particles within h, with nothing missing and nothing twice.
  FluidParams params = cubeParams(16, 16, 16);
  FluidState state;
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (int i = 0; i < 4096 - 8; ++i) {
    state.pos.push_back({unit(rng) * params.boxSize[0], unit(rng) * params.boxSize[1], unit(rng) * params.boxSize[2]});
  }
  for (int c = 0; c < 8; ++c) { // the box's corners, exactly on the faces
    state.pos.push_back({(c & 1) ? params.boxSize[0] : 0.0f, (c & 2) ? params.boxSize[1] : 0.0f,
                         (c & 4) ? params.boxSize[2] : 0.0f, 0.0f});
  }
  state.vel.assign(state.size(), Float4{});
  state.density.assign(state.size(), 0.0f);
  FluidWorkspace work;
  buildSortedGrid(params, state, work);
  const FluidGrid& grid = work.grid;
  ASSERT_EQ(grid.dims.nx, 8);
  EXPECT_EQ(sph_math::cellKeyBits(grid.dims), 9); // 512 cells

  // The cell table: every sorted particle lies in the range of its own cell, and the ranges cover all of them once.
  std::size_t covered = 0;
  for (std::size_t c = 0; c < grid.cellStart.size(); ++c) {
    if (grid.cellStart[c] == kEmptyCell) continue;
    for (std::uint32_t j = grid.cellStart[c]; j < grid.cellEnd[c]; ++j) {
      ASSERT_EQ(sph_math::cellKeyOf(xyz(state.pos[j]), grid.dims), c) << "particle " << j;
    }
    covered += grid.cellEnd[c] - grid.cellStart[c];
  }
  EXPECT_EQ(covered, state.size());

  const float h = smoothingLength(params);
  std::size_t pairs = 0;
  for (std::size_t i = 0; i < state.size(); ++i) {
    const Vec3 xi = xyz(state.pos[i]);
    std::vector<std::uint32_t> fromGrid, brute;
    forEachCandidate(grid, xi, [&](std::uint32_t j) {
      const Vec3 d = xi - xyz(state.pos[j]);
      if (sph_math::dot(d, d) < h * h) fromGrid.push_back(j);
    });
    for (std::size_t j = 0; j < state.size(); ++j) {
      const Vec3 d = xi - xyz(state.pos[j]);
      if (sph_math::dot(d, d) < h * h) brute.push_back(static_cast<std::uint32_t>(j));
    }
    std::sort(fromGrid.begin(), fromGrid.end());
    ASSERT_EQ(fromGrid, brute) << "particle " << i << " at " << xi.x << ", " << xi.y << ", " << xi.z;
    pairs += brute.size();
  }
  // 4,096 in 16^3 spacings: density 1 per spacing^3, so ~4/3 pi 2^3 = 33 within h (fewer at the faces).
  EXPECT_GT(pairs, state.size() * 20);
}

// A state whose dtCfl cannot change within a frame: 8 particles 0.1 m apart (> h = 0.04 m), so that no pair interacts
// (the density is the self term alone, below rest, so the pressure is 0), gravity off, particle 0 moving along +x
// at `speed` with nothing ahead of it for 0.3 m.
FluidState sparseState(float speed) {
  FluidState state;
  for (int k = 0; k < 8; ++k) state.pos.push_back({0.3f, 0.3f, 0.1f + 0.1f * static_cast<float>(k), 0.0f});
  state.vel.assign(state.size(), Float4{});
  state.vel[0].x = speed;
  state.density.assign(state.size(), 0.0f);
  return state;
}

TEST(FluidFrame, SubstepCountIsCeilOfFrameOverCflClampedToMax) {
  FluidParams params = cubeParams(50, 50, 50); // 1 m box
  params.maxSubsteps = 32;
  const float speed = 3.0f; // max|v| = 3 m/s all frame long
  const double dtCfl = double(params.cflNumber) * smoothingLength(params) / (std::sqrt(7.0 * params.stiffness) + speed);
  SubstepSwitches noGravity;
  noGravity.gravity = false;

  auto run = [&](double frameOverCfl, int expected, double expectedLastDt, double expectedCovered) {
    FluidState state = sparseState(speed);
    FluidWorkspace work;
    const float frameDt = static_cast<float>(frameOverCfl * dtCfl);
    const FrameStep step = stepFrame(params, state, work, frameDt, noGravity);
    EXPECT_EQ(step.substeps, expected) << "frameDt / dtCfl = " << frameOverCfl;
    EXPECT_NEAR(step.lastDt, expectedLastDt, expectedLastDt * 1e-5 + 1e-12) << "frameDt / dtCfl = " << frameOverCfl;
    EXPECT_NEAR(step.covered, expectedCovered, expectedCovered * 1e-5 + 1e-12) << "frameDt / dtCfl = " << frameOverCfl;
    // The substeps really ran: simulated time is their sum, and the moving particle went speed x that far.
    EXPECT_NEAR(state.time, expectedCovered, expectedCovered * 1e-5 + 1e-12);
    float x = 0.0f;
    for (std::size_t i = 0; i < state.size(); ++i) x = std::max(x, state.pos[i].x);
    EXPECT_NEAR(x, 0.3 + speed * expectedCovered, 1e-5) << "frameDt / dtCfl = " << frameOverCfl;
    EXPECT_FLOAT_EQ(maxSpeed(state), speed); // nothing interacted: the known state stayed known
  };
  run(2.5, 3, 2.5 * dtCfl / 3, 2.5 * dtCfl);           // below the clamp: ceil(2.5) = 3, dt = frameDt / 3 <= dtCfl
  run(0.4, 1, 0.4 * dtCfl, 0.4 * dtCfl);               // a frame shorter than dtCfl: one substep of frameDt
  run(31.2, 32, 31.2 * dtCfl / 32, 31.2 * dtCfl);      // just below the clamp
  run(40.5, 32, dtCfl, 32 * dtCfl);                    // above: clamped to maxSubsteps, each dtCfl; covers 32 dtCfl
  run(0.0, 0, 0.0, 0.0);                               // frameDt = 0 (paused): the frame runs no substep
  EXPECT_EQ(sph_math::substepCount(1.0f, 0.0f, 7), 7); // dtCfl = 0 (inf ratio): the clamp, no overflow
}

TEST(FluidFrame, DtIsRecomputedFromTheStateAtEachSubstep) {
  // The GPU rule: dtCfl from max|v| at each substep's start. Particles with nothing near them pushed along +x by a
  // gravity of 500 m/s^2 speed up from 5 to 21.7 m/s within the frame, so dtCfl falls by a third and the frame runs
  // more, shorter substeps than the frame-start rule would (n0 of frameDt / n0).
  FluidParams params = cubeParams(50, 50, 50);
  params.maxSubsteps = 1000;
  params.gravity[0] = 500.0f;
  params.gravity[1] = 0.0f;
  FluidState state = sparseState(5.0f);
  FluidWorkspace work;
  const float frameDt = 1.0f / 30.0f;
  const FrameStep step = stepFrame(params, state, work, frameDt);
  const float firstCfl = params.cflNumber * smoothingLength(params) / (speedOfSound(params) + 5.0f);
  const int n0 = sph_math::substepCount(frameDt, firstCfl, params.maxSubsteps);
  EXPECT_GT(step.substeps, n0 + n0 / 10);
  EXPECT_NEAR(step.covered, frameDt, frameDt * 1e-4);
  EXPECT_LT(step.lastDt, 0.8f * frameDt / static_cast<float>(n0)); // not the frame-start dt any more
  EXPECT_LE(step.lastDt, cflTimeStep(params, state) * 1.01f);
}

TEST(FluidParams, ValidateRefusesEachBadFieldByName) {
  EXPECT_NO_THROW(validateFluidParams(FluidParams{}));
  struct Case {
    const char* field;
    std::function<void(FluidParams&)> spoil;
  };
  const std::vector<Case> cases = {
      {"restDensity", [](FluidParams& p) { p.restDensity = 0.0f; }},
      {"restDensity", [](FluidParams& p) { p.restDensity = -1.0f; }},
      {"restDensity", [](FluidParams& p) { p.restDensity = NAN; }},
      {"stiffness", [](FluidParams& p) { p.stiffness = 0.0f; }},
      {"viscosity", [](FluidParams& p) { p.viscosity = -0.1f; }},
      {"cflNumber", [](FluidParams& p) { p.cflNumber = 0.0f; }},
      {"cflNumber", [](FluidParams& p) { p.cflNumber = 1.01f; }},
      {"maxSubsteps", [](FluidParams& p) { p.maxSubsteps = 0; }},
      {"maxSubsteps", [](FluidParams& p) { p.maxSubsteps = 1001; }},
      {"spacing", [](FluidParams& p) { p.spacing = 0.0f; }},
      {"wallRestitution", [](FluidParams& p) { p.wallRestitution = 1.5f; }},
      {"gravity.y", [](FluidParams& p) { p.gravity[1] = 1e6f; }},
      {"obstacleCentre.x", [](FluidParams& p) { p.obstacleCentre[0] = 1.55f; }}, // sphere pokes through x = 1.6
      {"obstacleCentre.y", [](FluidParams& p) { p.obstacleCentre[1] = -1.0f; }},
      {"obstacleCentre.z", [](FluidParams& p) { p.obstacleCentre[2] = 0.1f; }}, // 0.1 < radius 0.15
      {"obstacleRadius", [](FluidParams& p) { p.obstacleRadius = -0.1f; }},
      {"boxSize.x", [](FluidParams& p) { p.boxSize[0] = 0.039f; }}, // h = 0.04
      {"boxSize.z", [](FluidParams& p) { p.boxSize[2] = 0.0f; }},
      {"cells", [](FluidParams& p) { p.spacing = 1e-4f; }}, // 8,000 x 5,000 x 4,000 cells
  };
  for (const Case& c : cases) {
    FluidParams p;
    c.spoil(p);
    try {
      validateFluidParams(p);
      ADD_FAILURE() << c.field << ": accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(c.field), std::string::npos) << c.field << ": " << e.what();
    }
  }
  // The boundary values themselves are allowed.
  FluidParams edge;
  edge.cflNumber = 1.0f;
  edge.maxSubsteps = 1000;
  edge.obstacleCentre[0] = edge.boxSize[0] - edge.obstacleRadius;
  edge.boxSize[2] = smoothingLength(edge);
  edge.obstacleRadius = 0.0f;
  edge.obstacleCentre[2] = 0.0f;
  EXPECT_NO_THROW(validateFluidParams(edge));
}

} // namespace
} // namespace graphsim::fluid
