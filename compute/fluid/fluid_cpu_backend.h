// The fluid scene's CPU reference backend (issue 13): the stages of compute/fluid/fluid_cpu.h run in the order of the
// CUDA frame graph (compute/fluid/fluid_cuda_backend.h), with the same switches, frame rule, colour and blow-up
// checks, so that it serves as the reference the GPU tests compare against. Also the initial conditions and the
// config checks both backends use (defined in fluid_backend.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "compute/fluid/fluid_backend.h"

namespace graphsim::fluid {

// Throws std::invalid_argument naming the field and its range: initial (dam-break | rest | column), particles
// [1, kMaxFluidParticles] (and enough of them for h = 2 * spacingFor(config) to fit in the box), frameDt (0, 0.1],
// colourScale (0, inf), colourBy, params.boxSize, the lattice block fitting in the box, then validateFluidParams of
// the params with spacing = spacingFor(config). Returns those params.
FluidParams validateFluidConfig(const FluidConfig& config);

// The initial block of `config.initial` (see spacingFor), validated as above: a simple-cubic lattice of spacing
// s = spacingFor(config) at (i + 1/2) s from the origin, nx = floor(blockX / s) (at least 1) particles along x,
// nz = floor(blockZ / s) along z, filled x fastest, then z, then y upward in layers, the last layer partial: exactly
// config.particles particles, at rest, pos.w = 0, density 0.
FluidState makeInitialState(const FluidConfig& config);

// The colour stage's attribute of one particle, in [0, 1] (ColourBy::Speed: clamp(|v| / scale, 0, 1); Density:
// clamp(0.5 + 0.5 * 100 * (rho / rho0 - 1) / scale, 0, 1)); the colour switch off gives 0.5 instead.
float colourAttribute(ColourBy by, float scale, float restDensity, const Float4& vel, float density);

class FluidCpuBackend final : public FluidBackend {
public:
  explicit FluidCpuBackend(const FluidConfig& config); // throws std::invalid_argument (validateFluidConfig)

  std::string_view name() const override { return "cpu"; }
  // A throwing reset leaves the scene as it was. Sets config().params.spacing = spacingFor(config).
  void reset(const FluidConfig& config) override;
  void setParams(const FluidParams& params) override;
  void setEnabled(FluidToggle toggle, bool enabled) override;
  bool enabled(FluidToggle toggle) const override;
  void setFrameDt(float frameDt) override; // [0, 0.1]; 0 pauses (config().frameDt keeps the last nonzero value)
  void setSolver(FluidSolver solver) override;
  void step() override; // stepFrame(the last frame + 1), frame 0 first
  // One frame as frame k of the frame loop (a blow-up in it is reported as frame k): the substeps (stepFrame of
  // fluid_cpu.h, or dfsphStepFrame of dfsph.h, with the switches), then the colour stage. write_render is
  // writeRender().
  void stepFrame(std::uint64_t k);
  void download(FluidState& state) override { state = state_; }
  std::vector<float> downloadColour() override { return colour_; }
  std::optional<FluidFrameInfo> lastFrame() const override { return lastFrame_; }
  const std::vector<NodeInfo>& nodes() const override;
  UpdateCounters counters() const override { return {}; }
  // Checked after density or density_factor (non-finite or > kBlowUpDensityFactor * rho0), integrate or advect
  // (non-finite position or velocity) and walls (outside [0, box]) of every substep, until the first report.
  std::optional<FluidBlowUp> blowUp() const override { return blowUp_; }
  const FluidConfig& config() const override { return config_; }
  // With config().diagnosticsEvery > 0: computeFluidDiagnostics after the substeps of the frames that sample
  // (fluidDiagnosticsDue), before the colour stage; nodes() lists it there as "diagnostics".
  void setDiagnosticsEnabled(bool enabled) override { diagnosticsOn_ = enabled; }
  bool diagnosticsEnabled() const override { return diagnosticsOn_; }
  std::optional<FluidDiagnosticsSample> diagnostics() const override { return diagnostics_; }

  // The write_render stage: (x, y, z, colour) per particle into dst (config().particles entries).
  void writeRender(Float4* dst) const;
  const FluidState& state() const { return state_; }
  // Replaces the particles (a hand-made test state or another backend's download); config().particles follows its
  // size, density is resized (recomputed by the next substep), the colour recomputed. Clears blowUp(). Throws
  // std::invalid_argument when pos and vel differ in size or the count is outside [1, kMaxFluidParticles].
  void setState(FluidState state) override;

private:
  SubstepSwitches switches() const;
  void computeColour();
  void check(std::uint64_t frame, int substep, std::string_view stage);
  void startDiagnosticsSeries(); // a reset or a replaced state: the next frame that may sample starts a new series

  FluidConfig config_;
  float frameDt_ = 0.0f;
  FluidState state_;
  DfsphWorkspace work_; // .fluid: WCSPH's; the rest: DFSPH's
  std::vector<float> colour_;
  std::uint64_t nextFrame_ = 0;
  std::optional<FluidFrameInfo> lastFrame_;
  std::optional<FluidBlowUp> blowUp_;
  bool diagnosticsOn_ = true, diagnosticsFirstPending_ = true;
  std::uint64_t diagnosticsSeries_ = 0;
  std::optional<FluidDiagnosticsSample> diagnostics_;
  mutable std::vector<NodeInfo> nodes_; // rebuilt when empty (a reset clears it: the diagnostics row may change)
};

} // namespace graphsim::fluid
