// What a fluid-scene backend offers the app (issue 13): the CPU reference (fluid_cpu_backend.h) and the CUDA frame
// graph (compute/fluid/cuda) implement it; the scene layer (app/scenes/fluid) drives it. Plain C++: no CUDA or
// Vulkan headers.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compute/fluid/dfsph.h"
#include "compute/fluid/fluid_cpu.h"
#include "compute/fluid/fluid_diagnostics.h"
#include "compute/fluid/fluid_params.h"
#include "compute/fluid/fluid_steps.h"
#include "compute/node_info.h"

namespace graphsim::fluid {

static_assert(stepRow(FluidStep::Diagnostics).name == std::string_view(kDiagnosticsNodeName));

using FluidSwitches = std::array<bool, kFluidToggleCount>; // indexed by FluidToggle, all on by default

enum class ColourBy : int { Speed, Density };

// Structural settings: changing one resets the state (and rebuilds or updates the CUDA graph).
struct FluidConfig {
  std::string initial = "dam-break"; // dam-break | rest | column (Martin & Moyce: a x 2a x a, a = boxSize.z)
  std::int64_t particles = 65536;    // [1, kMaxFluidParticles]; the lattice spacing follows from it (spacingFor)
  FluidParams params;                // params.spacing is overwritten by reset() from the particle count
  float frameDt = 1.0f / 60.0f;      // simulated seconds per frame, (0, 0.1]
  FluidSwitches enabled = {true, true, true, true};
  ColourBy colourBy = ColourBy::Speed;
  FluidSolver solver = FluidSolver::Dfsph; // live (setSolver): the frame graph's SWITCH picks the branch
  DfsphSettings dfsph;                     // the incompressible solver's (validateDfsphSettings)
  float colourScale = 2.0f; // speed [m/s] (or density deviation from rest, x 100 %) drawn at full colour, > 0
  // Live diagnostics every K frames (fluid_diagnostics.h, docs/DIAGNOSTICS.md), [0, kMaxDiagnosticsEvery]; 0: none
  // (no diagnostics node in the CUDA graph), what a config made in code gets; the app's run and soak default to
  // kDefaultDiagnosticsEvery (--diagnostics-every).
  int diagnosticsEvery = 0;
};

inline constexpr std::int64_t kMaxFluidParticles = std::int64_t{1} << 23;

// The last frame a backend finished, as far as known now (CUDA: an asynchronous readback, a frame or more late).
struct FluidFrameInfo {
  std::uint64_t frame = 0; // frame index k
  int substeps = 0;        // substeps the frame ran (the WHILE node's iterations)
  float lastDt = 0;        // dt of its last substep [s]
  float covered = 0;       // simulated time the frame covered [s] (< frameDt when max substeps clamped it)
  double simTime = 0;      // simulated time since the reset after this frame [s] (FluidState::time)
  // DFSPH (no iterations with WCSPH): per solve the fewest, total and most iterations of the frame's substeps and the
  // last density solve's average error; the particle-wise peak compression at the substeps' density passes (WCSPH
  // too on CUDA, for bench's equal-accuracy comparison; DFSPH only on the CPU).
  IterationSpan divergence, density;
  float peakCompression = 0;
  double densityError = 0;
  // The largest peakCompression of the frames since the last reset or state upload: on CUDA the report kernel keeps
  // it, so frames whose report the host never saw (it reads the latest) count too.
  float peakSinceReset = 0;
  // Steps that sorted the particles and rebuilt the neighbour lists (CUDA's re-sort IF, docs/FLUID.md; the CPU
  // reference sorts in every step).
  int resorts = 0;
};

// A blow-up: NaN, a particle outside the box, or a density beyond kBlowUpDensityFactor * rest density.
struct FluidBlowUp {
  std::uint64_t frame = 0;
  int substep = 0;
  std::string stage; // "density", "integrate", ...
  std::string what;
};
inline constexpr float kBlowUpDensityFactor = 3.0f;

inline std::string describe(const FluidBlowUp& b) {
  return "frame " + std::to_string(b.frame) + ", substep " + std::to_string(b.substep) + ", stage " + b.stage + ": " +
         b.what;
}

// reset: the particle count, initial conditions or box. setParams: params.spacing and params.boxSize must equal the
// config's (else std::invalid_argument: they are structural).
class FluidBackend : public SceneBackendOf<FluidConfig, FluidParams> {
public:
  virtual void setEnabled(FluidToggle toggle, bool enabled) = 0;
  virtual bool enabled(FluidToggle toggle) const = 0;
  virtual void setFrameDt(float frameDt) = 0;     // 0 = paused (the frame runs no substep)
  virtual void setSolver(FluidSolver solver) = 0; // from the next frame on; CUDA: a node update, no rebuild
  virtual void download(FluidState& state) = 0;
  // The colour attribute of each particle as write_render wrote it (the last frame's order).
  virtual std::vector<float> downloadColour() = 0;
  // Replaces the particles with a downloaded state (a snapshot: positions, velocities, densities and the simulated
  // time, in the stored order), so that stepping on resumes bit for bit. Clears blowUp() and starts a new diagnostics
  // series. Throws std::invalid_argument when the sizes disagree (CUDA: or differ from config().particles; a count
  // change is a reset), before changing anything.
  virtual void setState(FluidState state) = 0;
  virtual std::optional<FluidFrameInfo> lastFrame() const = 0;
  virtual std::optional<FluidBlowUp> blowUp() const = 0;

  // The latest live diagnostics sample (fluid_diagnostics.h) of a completed frame. Never waits (CUDA: a few loads of
  // mapped pinned memory, a frame or more late).
  virtual std::optional<FluidDiagnosticsSample> diagnostics() const = 0;
};

// The lattice spacing that puts `particles` particles in the initial block of `config.initial` (dam-break: a block
// of 0.4 x 0.8 x 1 of the box in the corner at the origin; rest: the bottom 0.5 of the box; column: a square column
// a x 2a x a at the origin, a = boxSize.z).
float spacingFor(const FluidConfig& config);

} // namespace graphsim::fluid
