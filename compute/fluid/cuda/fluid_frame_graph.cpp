#include "compute/fluid/cuda/fluid_frame_graph.h"

#include <stdexcept>
#include <string>

namespace graphsim::fluid::gpu {
namespace {

std::size_t alignUp(std::size_t x) { return (x + 255) & ~std::size_t{255}; }

Grid gridOf(const sph_math::GridDims& g) { return {g.nx, g.ny, g.nz, g.cellSize}; }

} // namespace

ScratchLayout scratchLayout(int particles, const sph_math::GridDims& grid) {
  ScratchLayout l;
  l.particles = static_cast<std::size_t>(particles > 0 ? particles : 1);
  l.cells = static_cast<std::size_t>(grid.nx) * static_cast<std::size_t>(grid.ny) * static_cast<std::size_t>(grid.nz);
  l.keyBits = sph_math::cellKeyBits(grid);
  l.sortTempBytes = sortTempBytes(static_cast<int>(l.particles), l.keyBits);
  l.bytes = 4 * alignUp(l.particles * sizeof(unsigned)) + 2 * alignUp(l.cells * sizeof(unsigned)) +
            3 * alignUp(l.particles * sizeof(float4)) + alignUp(l.sortTempBytes);
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
  s.sortTemp = take(sortTempBytes);
  s.sortTempBytes = sortTempBytes;
  if (offset != bytes) throw std::logic_error("ScratchLayout::at: carving does not match scratchLayout()");
  return s;
}

KernelSpec specFor(Step step, const DeviceState& d, const Scratch& s, const FrameSettings& f,
                   const sph_math::GridDims& g, unsigned long long handle, std::uint64_t frame) {
  const FluidParams& p = f.params;
  const bool on[] = {f.enabled[0], f.enabled[1], f.enabled[2], f.enabled[3]};
  const float h = smoothingLength(p);
  const float radius = particleRadius(p);
  const float alpha = on[static_cast<int>(FluidToggle::Viscosity)] ? p.viscosity : 0.0f;
  const bool gravity = on[static_cast<int>(FluidToggle::Gravity)];
  switch (step) {
  case Step::FrameBegin: return frameBeginSpec({d.ctrl, frame, handle, f.frameDt, f.maxSubsteps});
  case Step::Cfl:
    return cflSpec({d.vel, d.ctrl, d.n, p.cflNumber, h, speedOfSound(p), f.frameDt, f.maxSubsteps, f.fixedDt, 0});
  case Step::Keys: return keysSpec({d.pos, s.keys, s.vals, gridOf(g), d.n, 0});
  case Step::Ranges: return rangesSpec({s.sortedKeys(), s.cellStart, s.cellEnd, d.n, 0});
  case Step::Reorder: return reorderSpec({s.sortedVals(), d.pos, d.vel, s.posS, s.velS, d.n, 0});
  case Step::Density:
    return densitySpec({s.posS, s.cellStart, s.cellEnd, d.rhoP, d.blowUp, d.ctrl, gridOf(g), d.n, h, particleMass(p),
                        p.restDensity, p.stiffness, kBlowUpDensityFactor * p.restDensity, 0});
  case Step::Forces:
    return forcesSpec({s.posS, s.velS, d.rhoP, s.cellStart, s.cellEnd, s.accel, gridOf(g), d.n, h, particleMass(p),
                       speedOfSound(p), alpha, gravity ? p.gravity[0] : 0.0f, gravity ? p.gravity[1] : 0.0f,
                       gravity ? p.gravity[2] : 0.0f});
  case Step::Integrate: return integrateSpec({s.posS, s.velS, s.accel, d.pos, d.vel, d.ctrl, d.blowUp, d.n, 0});
  case Step::Obstacle:
    return obstacleSpec({d.pos, d.vel, d.n, p.obstacleCentre[0], p.obstacleCentre[1], p.obstacleCentre[2],
                         p.obstacleRadius, radius, p.wallRestitution});
  case Step::Walls:
    return wallsSpec(
        {d.pos, d.vel, d.blowUp, d.ctrl, d.n, p.boxSize[0], p.boxSize[1], p.boxSize[2], radius, p.wallRestitution, 0});
  case Step::Condition: return conditionSpec({d.ctrl, handle, f.frameDt, f.maxSubsteps});
  case Step::WriteRender: return writeRenderSpec({d.pos, d.ctrl, d.outputs, d.n, 0.5f});
  case Step::Colour:
    return colourSpec(
        {d.vel, d.rhoP, d.ctrl, d.outputs, d.n, f.colourBy == ColourBy::Density ? 1 : 0, f.colourScale, p.restDensity});
  case Step::Report: return reportSpec({d.ctrl, d.blowUp, d.report});
  case Step::Diagnostics:
    return fluidDiagnosticsSpec(
        {d.pos, d.vel, d.rhoP, d.ctrl, d.diagnostics, d.diagnosticsReport, d.n, p.restDensity, particleMass(p), 0});
  case Step::Sort:
  case Step::ClearCells: break; // not kernel nodes
  }
  throw std::logic_error(std::string("specFor: ") + stepName(step) + " is not a kernel row");
}

} // namespace graphsim::fluid::gpu
