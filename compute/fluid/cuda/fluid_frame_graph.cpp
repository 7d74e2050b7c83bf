#include "compute/fluid/cuda/fluid_frame_graph.h"

#include <stdexcept>

namespace graphsim::fluid::gpu {
namespace {

std::size_t alignUp(std::size_t x) { return (x + 255) & ~std::size_t{255}; }

// DFSPH's neighbour lists: per particle, three lanes' base, count and kListPerLane 16-bit offsets, and the position
// at the build.
std::size_t listBytes(std::size_t particles) {
  const std::size_t slots = 3 * particles;
  return alignUp(slots * sizeof(unsigned)) + alignUp(slots) + alignUp(slots * kListPerLane * sizeof(unsigned short)) +
         alignUp(particles * sizeof(float4));
}

} // namespace

ScratchLayout scratchLayout(int particles, const sph_math::GridDims& grid, bool neighbourLists) {
  ScratchLayout l;
  l.particles = static_cast<std::size_t>(particles > 0 ? particles : 1);
  l.cells = static_cast<std::size_t>(grid.nx) * static_cast<std::size_t>(grid.ny) * static_cast<std::size_t>(grid.nz);
  l.keyBits = sph_math::cellKeyBits(grid);
  l.sortTempBytes = sortTempBytes(static_cast<int>(l.particles), l.keyBits);
  l.bytes = 4 * alignUp(l.particles * sizeof(unsigned)) + 2 * alignUp(l.cells * sizeof(unsigned)) +
            5 * alignUp(l.particles * sizeof(float4)) + alignUp(l.particles * sizeof(float)) + alignUp(l.sortTempBytes);
  l.lists = neighbourLists;
  if (neighbourLists) l.bytes += listBytes(l.particles);
  return l;
}

Scratch ScratchLayout::at(void* base) const {
  auto* p = static_cast<unsigned char*>(base);
  std::size_t offset = 0;
  const auto take = [&](std::size_t size) {
    void* q = p + offset;
    offset += alignUp(size);
    return q;
  };
  Scratch s; // the order and sizes of scratchLayout()'s sum
  s.keys = static_cast<unsigned*>(take(particles * sizeof(unsigned)));
  s.keysAlt = static_cast<unsigned*>(take(particles * sizeof(unsigned)));
  s.vals = static_cast<unsigned*>(take(particles * sizeof(unsigned)));
  s.valsAlt = static_cast<unsigned*>(take(particles * sizeof(unsigned)));
  s.cellStart = static_cast<unsigned*>(take(cells * sizeof(unsigned)));
  s.cellEnd = static_cast<unsigned*>(take(cells * sizeof(unsigned)));
  s.posS = static_cast<float4*>(take(particles * sizeof(float4)));
  s.velS = static_cast<float4*>(take(particles * sizeof(float4)));
  s.accel = static_cast<float4*>(take(particles * sizeof(float4)));
  s.alpha = static_cast<float*>(take(particles * sizeof(float)));
  s.posKappa = static_cast<float4*>(take(particles * sizeof(float4)));
  s.boundaryGrad = static_cast<float4*>(take(particles * sizeof(float4)));
  s.sortTemp = take(sortTempBytes);
  s.sortTempBytes = sortTempBytes;
  if (lists) {
    const std::size_t slots = 3 * particles;
    s.lists.base = static_cast<unsigned*>(take(slots * sizeof(unsigned)));
    s.lists.count = static_cast<unsigned char*>(take(slots));
    s.lists.offset = static_cast<unsigned short*>(take(slots * kListPerLane * sizeof(unsigned short)));
    s.posBuilt = static_cast<float4*>(take(particles * sizeof(float4)));
  }
  if (offset != bytes) throw std::logic_error("ScratchLayout::at: carving does not match scratchLayout()");
  return s;
}

KernelParams kernelParams(const FluidConfig& c, float frameDt, const FluidCudaOptions& options) {
  const FluidParams& p = c.params;
  const bool viscosity = c.enabled[static_cast<std::size_t>(FluidToggle::Viscosity)];
  const bool gravity = c.enabled[static_cast<std::size_t>(FluidToggle::Gravity)];
  KernelParams k;
  k.h = smoothingLength(p);
  k.radius = particleRadius(p);
  const WallRule walls = wallRule(c.solver, p, c.dfsph);
  k.wallRadius = walls.radius, k.wallMirror = walls.mirror ? 1 : 0;
  k.mass = particleMass(p);
  k.cs = speedOfSound(p);
  k.restDensity = p.restDensity;
  k.stiffness = p.stiffness;
  k.maxDensity = kBlowUpDensityFactor * p.restDensity;
  k.alpha = viscosity ? p.viscosity : 0.0f;
  for (int i = 0; i < 3; ++i) {
    k.gravity[i] = gravity ? p.gravity[i] : 0.0f;
    k.obstacleCentre[i] = p.obstacleCentre[i];
    k.box[i] = p.boxSize[i];
  }
  k.cflNumber = p.cflNumber;
  k.frameDt = frameDt;
  k.fixedDt = options.launch == FluidLaunch::FixedSubsteps ? frameDt / static_cast<float>(options.fixedSubsteps) : 0.0f;
  k.maxSubsteps = p.maxSubsteps;
  k.obstacleRadius = p.obstacleRadius;
  k.obstacleOn = c.enabled[static_cast<std::size_t>(FluidToggle::Obstacle)] && p.obstacleRadius > 0.0f ? 1 : 0;
  k.wallRestitution = p.wallRestitution;
  k.colourByDensity = c.colourBy == ColourBy::Density ? 1 : 0;
  k.colourScale = c.colourScale;
  const DfsphSettings& d = c.dfsph;
  k.solver = static_cast<int>(c.solver);
  k.lambda = d.timeStepFactor;
  k.spacing = p.spacing;
  k.minDt = d.minDt;
  k.maxDt = d.maxDt;
  // Only a graph with the re-sort IF keeps the order (FixedSubsteps has no conditional node: it re-sorts every step).
  k.skin = options.launch != FluidLaunch::FixedSubsteps ? d.neighbourSkin * k.h : 0.0f;
  for (int w = 0; w < 2; ++w) {
    k.rule[w] = d.ruleOf(static_cast<sph_math::Solve>(w));
    if (options.launch == FluidLaunch::FixedSubsteps)
      k.rule[w].minIterations = k.rule[w].maxIterations = options.fixedIterations[w];
  }
  return k;
}

} // namespace graphsim::fluid::gpu
