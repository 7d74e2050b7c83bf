// FluidCpuBackend: one frame of the fluid scene on the host, in the order, with the switches and with the checks of
// the CUDA frame graph (compute/fluid/fluid_cuda_backend.h).
#include "compute/fluid/fluid_cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace graphsim::fluid {
namespace {

std::string vecText(float x, float y, float z) {
  std::ostringstream out;
  out << "(" << x << ", " << y << ", " << z << ")";
  return out.str();
}

bool finite3(const Float4& f) { return std::isfinite(f.x) && std::isfinite(f.y) && std::isfinite(f.z); }

std::optional<std::string> checkDensity(const FluidParams& params, const FluidState& state) {
  const float limit = kBlowUpDensityFactor * params.restDensity;
  for (std::size_t i = 0; i < state.size(); ++i) {
    const float rho = state.density[i];
    if (!std::isfinite(rho) || rho > limit) {
      std::ostringstream out;
      out << "particle " << i << ": density " << rho << " kg/m^3 "
          << (std::isfinite(rho) ? "above " : "non-finite, limit ") << kBlowUpDensityFactor << " x rest density";
      return out.str();
    }
  }
  return std::nullopt;
}

std::optional<std::string> checkFinite(const FluidState& state) {
  for (std::size_t i = 0; i < state.size(); ++i) {
    const Float4& p = state.pos[i];
    const Float4& v = state.vel[i];
    if (!finite3(p)) return "particle " + std::to_string(i) + ": non-finite position " + vecText(p.x, p.y, p.z);
    if (!finite3(v)) return "particle " + std::to_string(i) + ": non-finite velocity " + vecText(v.x, v.y, v.z);
  }
  return std::nullopt;
}

std::optional<std::string> checkInBox(const FluidParams& params, const FluidState& state) {
  for (std::size_t i = 0; i < state.size(); ++i) {
    const Float4& p = state.pos[i];
    const float x[3] = {p.x, p.y, p.z};
    for (int a = 0; a < 3; ++a) {
      if (!(x[a] >= 0.0f && x[a] <= params.boxSize[a])) {
        return "particle " + std::to_string(i) + ": position " + vecText(p.x, p.y, p.z) + " outside the box " +
               vecText(params.boxSize[0], params.boxSize[1], params.boxSize[2]);
      }
    }
  }
  return std::nullopt;
}

void requireCount(std::int64_t n) {
  if (n < 1 || n > kMaxFluidParticles) {
    throw std::invalid_argument("fluid: setState: " + std::to_string(n) + " particles, outside [1, " +
                                std::to_string(kMaxFluidParticles) + "]");
  }
}

bool& switchOf(FluidSwitches& s, FluidToggle t) { return s[static_cast<std::size_t>(t)]; }
bool switchOf(const FluidSwitches& s, FluidToggle t) { return s[static_cast<std::size_t>(t)]; }

} // namespace

float colourAttribute(ColourBy by, float scale, float restDensity, const Float4& vel, float density) {
  const float c = by == ColourBy::Speed ? std::sqrt(vel.x * vel.x + vel.y * vel.y + vel.z * vel.z) / scale
                                        : 0.5f + 0.5f * 100.0f * (density / restDensity - 1.0f) / scale;
  return std::min(std::max(c, 0.0f), 1.0f);
}

FluidCpuBackend::FluidCpuBackend(const FluidConfig& config) { reset(config); }

void FluidCpuBackend::reset(const FluidConfig& config) {
  // Build everything before touching the members, so that a throwing reset leaves the old scene intact.
  FluidConfig next = config;
  next.params = validateFluidConfig(config);
  FluidState state = makeInitialState(next);
  config_ = std::move(next);
  frameDt_ = config_.frameDt;
  state_ = std::move(state);
  work_ = DfsphWorkspace{};
  lastFrame_.reset();
  blowUp_.reset();
  nodes_.clear();
  startDiagnosticsSeries();
  computeColour();
}

void FluidCpuBackend::startDiagnosticsSeries() {
  ++diagnosticsSeries_;
  diagnosticsFirstPending_ = true;
  diagnostics_.reset(); // it described a state that is gone
}

void FluidCpuBackend::setParams(const FluidParams& params) {
  const FluidParams& now = config_.params;
  if (params.spacing != now.spacing || params.boxSize[0] != now.boxSize[0] || params.boxSize[1] != now.boxSize[1] ||
      params.boxSize[2] != now.boxSize[2]) {
    throw std::invalid_argument("fluid: setParams changes spacing or boxSize: structural: reset with a new config");
  }
  validateFluidParams(params);
  config_.params = params;
}

void FluidCpuBackend::setEnabled(FluidToggle toggle, bool on) { switchOf(config_.enabled, toggle) = on; }

bool FluidCpuBackend::enabled(FluidToggle toggle) const { return switchOf(config_.enabled, toggle); }

void FluidCpuBackend::setFrameDt(float frameDt) {
  if (!(frameDt >= 0.0f && frameDt <= 0.1f)) {
    throw std::invalid_argument("fluid: frameDt = " + std::to_string(frameDt) + " is outside [0, 0.1] s (0 pauses)");
  }
  frameDt_ = frameDt;
  if (frameDt > 0.0f) config_.frameDt = frameDt;
}

SubstepSwitches FluidCpuBackend::switches() const {
  return {enabled(FluidToggle::Viscosity), enabled(FluidToggle::Gravity), enabled(FluidToggle::Obstacle)};
}

void FluidCpuBackend::step() { stepFrame(nextFrame_); }

void FluidCpuBackend::setSolver(FluidSolver solver) {
  if (solver != FluidSolver::Wcsph && solver != FluidSolver::Dfsph)
    throw std::invalid_argument("fluid: solver " + std::to_string(static_cast<int>(solver)) + " is not wcsph or dfsph");
  if (solver != config_.solver) nodes_.clear(); // the list shows the solver's rows
  config_.solver = solver;
}

void FluidCpuBackend::stepFrame(std::uint64_t k) {
  const AfterSubstepStage after = [&](int substep, std::string_view stage) { check(k, substep, stage); };
  DfsphFrame d;
  if (config_.solver == FluidSolver::Dfsph) {
    d = dfsphStepFrame(config_.params, config_.dfsph, state_, work_, frameDt_, switches(), after);
  } else {
    prepareBoundaries(config_.params, config_.dfsph, switches().obstacle, work_);
    work_.fluid.boundary = [this](sph_math::Vec3 x) { return boundaryTermsAt(config_.params, work_, x); };
    d.frame = fluid::stepFrame(config_.params, state_, work_.fluid, frameDt_, switches(), after);
  }
  const FrameStep& f = d.frame;
  // Where the CUDA graph's diagnostics node runs: after the WHILE node, before write_render and colour.
  if (config_.diagnosticsEvery > 0 &&
      fluidDiagnosticsDue(k, config_.diagnosticsEvery, diagnosticsFirstPending_, diagnosticsOn_, frameDt_)) {
    diagnostics_ = FluidDiagnosticsSample{k, diagnosticsSeries_, computeFluidDiagnostics(state_, config_.params)};
    diagnosticsFirstPending_ = false;
  }
  computeColour();
  const float peakBefore = lastFrame_ ? lastFrame_->peakSinceReset : 0.0f;
  lastFrame_ = FluidFrameInfo{k,         f.substeps,        f.lastDt,      f.covered, state_.time, d.divergence,
                              d.density, d.peakCompression, d.densityError};
  lastFrame_->peakSinceReset = std::max(peakBefore, d.peakCompression);
  lastFrame_->resorts = f.substeps;
  nextFrame_ = k + 1;
}

void FluidCpuBackend::check(std::uint64_t frame, int substep, std::string_view stage) {
  if (blowUp_) return; // the first report only
  std::optional<std::string> what;
  if (stage == "density" || stage == "density_factor") what = checkDensity(config_.params, state_);
  if (stage == "integrate" || stage == "advect") what = checkFinite(state_);
  if (stage == "walls") what = checkInBox(config_.params, state_);
  if (what) blowUp_ = FluidBlowUp{frame, substep, std::string(stage), std::move(*what)};
}

void FluidCpuBackend::computeColour() {
  colour_.resize(state_.size());
  const bool on = enabled(FluidToggle::Colour);
  for (std::size_t i = 0; i < state_.size(); ++i) {
    colour_[i] = on ? colourAttribute(config_.colourBy, config_.colourScale, config_.params.restDensity, state_.vel[i],
                                      state_.density[i])
                    : 0.5f;
  }
}

void FluidCpuBackend::writeRender(Float4* dst) const {
  for (std::size_t i = 0; i < state_.size(); ++i) {
    dst[i] = {state_.pos[i].x, state_.pos[i].y, state_.pos[i].z, colour_[i]};
  }
}

void FluidCpuBackend::setState(FluidState state) {
  if (state.vel.size() != state.pos.size()) {
    throw std::invalid_argument("fluid: setState: " + std::to_string(state.pos.size()) + " positions but " +
                                std::to_string(state.vel.size()) + " velocities");
  }
  requireCount(static_cast<std::int64_t>(state.size()));
  state.density.resize(state.size(), 0.0f);
  config_.particles = static_cast<std::int64_t>(state.size());
  state_ = std::move(state);
  blowUp_.reset();
  startDiagnosticsSeries();
  computeColour();
}

const std::vector<NodeInfo>& FluidCpuBackend::nodes() const {
  if (nodes_.empty()) { // the solver's rows that are CPU stages, in execution order; diagnostics only when configured
    for (const StepPlace place : {StepPlace::FrameStart, StepPlace::Substep, StepPlace::FrameEnd}) {
      forEachRowInOrder(place, config_.solver, [&](const FluidStepRow& row) {
        if (!row.cpu || (row.diagnostics && config_.diagnosticsEvery <= 0)) return;
        nodes_.push_back(rowNode(row.name, "cpu", row.whyNot));
        nodes_.back().diagnostics = row.diagnostics;
      });
    }
  }
  for (NodeInfo& info : nodes_) {
    const FluidStepRow* row = findStep(info.name);
    if (row != nullptr && row->toggle) info.enabled = enabled(*row->toggle);
    if (info.diagnostics) info.enabled = diagnosticsOn_;
  }
  return nodes_;
}

} // namespace graphsim::fluid
