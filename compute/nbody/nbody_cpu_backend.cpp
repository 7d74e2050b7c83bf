// NBodyCpuBackend: runs the nbody stage list of one frame on the host, in the order and with the enables the CUDA graph
// uses, so that it can serve as the seeded reference the GPU tests compare against.
#include "compute/nbody/nbody_cpu_backend.h"

#include <chrono>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "compute/nbody/nbody_initial_conditions.h"

namespace graphsim {

NBodyCpuBackend::NBodyCpuBackend(const NBodyConfig& config) { reset(config); }

void NBodyCpuBackend::reset(const NBodyConfig& config) {
  validateSceneConfig(config);
  // Build everything before touching the members, so that a throwing reset leaves the old scene intact.
  BodyState state = makeInitialConditions(config);
  std::vector<Float4> accel;
  startLeapfrog(state, config.params, accel);
  std::vector<float> colour;
  cpu::computeColour(state.vel, config.params.colourScale, colour);
  config_ = config;
  state_ = std::move(state);
  accel_ = std::move(accel);
  colour_ = std::move(colour);
  blowUp_.reset();
  startDiagnosticsSeries();
  nodesStale_ = true;
}

void NBodyCpuBackend::startDiagnosticsSeries() {
  ++diagnosticsSeries_;
  diagnosticsFirstPending_ = true;
  diagnostics_.reset(); // it described a state that is gone
}

void NBodyCpuBackend::setDiagnosticsEnabled(bool enabled) {
  if (enabled == diagnosticsOn_) return;
  diagnosticsOn_ = enabled;
  nodesStale_ = true;
}

namespace {

void checkState(const BodyState& state) {
  if (state.vel.size() != state.posMass.size()) {
    throw std::invalid_argument("setState: " + std::to_string(state.posMass.size()) + " positions but " +
                                std::to_string(state.vel.size()) + " velocities");
  }
  if (static_cast<std::int64_t>(state.size()) > kMaxBodies) {
    throw std::invalid_argument("setState: more than " + std::to_string(kMaxBodies) + " bodies");
  }
}

} // namespace

void NBodyCpuBackend::setState(BodyState state) {
  checkState(state);
  std::vector<Float4> accel;
  config_.bodies = static_cast<std::int64_t>(state.size()); // auto's choice follows the count
  computeForces(state.posMass, accel);
  // The tree's relative criterion needs a previous step: a second walk from the first's accelerations (as the GPU's
  // leapfrog start).
  if (usesTree(config_) && config_.params.treeTolerance > 0.0f) computeForces(state.posMass, accel);
  setState(std::move(state), std::move(accel));
}

void NBodyCpuBackend::computeForces(const std::vector<Float4>& posMass, std::vector<Float4>& accel) {
  if (!usesTree(config_)) {
    cpu::computeForces(posMass, config_.params, forceScratch_, accel);
    return;
  }
  tree::buildTree(posMass, config_.params.leafSize, tree::nodeCapacity(static_cast<std::int64_t>(posMass.size())),
                  tree_);
  tree::computeMoments(tree_, config_.params.theta);
  (void)tree::treeForces(tree_, config_.params, accel);
}

void NBodyCpuBackend::setState(BodyState state, std::vector<Float4> accel) {
  checkState(state);
  if (accel.size() != state.size()) {
    throw std::invalid_argument("setState: " + std::to_string(state.size()) + " bodies but " +
                                std::to_string(accel.size()) + " accelerations");
  }
  state_ = std::move(state);
  accel_ = std::move(accel);
  config_.bodies = static_cast<std::int64_t>(state_.size());
  cpu::computeColour(state_.vel, config_.params.colourScale, colour_);
  blowUp_.reset();
  startDiagnosticsSeries();
}

void NBodyCpuBackend::setParams(const NBodyParams& params) { config_.params = params; }

void NBodyCpuBackend::setStageEnabled(NBodyStage stage, bool enabled) {
  const std::string_view why = whyNotTogglable(stage);
  // Asking for what a fixed stage already is (enabled) is not a toggle, so a full enable list can be applied as is.
  if (!why.empty() && !enabled) {
    throw std::invalid_argument("stage " + std::string(stageName(stage)) + " cannot be disabled: " + std::string(why));
  }
  config_.enabled[static_cast<int>(stage)] = enabled;
  nodesStale_ = true;
}

bool NBodyCpuBackend::stageEnabled(NBodyStage stage) const { return config_.enabled[static_cast<int>(stage)]; }

namespace {

// Runs a stage if enabled; with profiling, records its wall time (0 when skipped) in ms[node].
template <typename F>
void runStage(bool enabled, bool profiling, std::vector<double>& ms, std::size_t node, F&& stage) {
  if (!profiling) {
    if (enabled) stage();
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  if (enabled) stage();
  ms.at(node) = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Blow-up detection after one stage instance: the arrays the stage writes, in the order it writes them (integrate
// kicks the velocity, then drifts the position with it), the first non-finite element of each. Accelerations are
// checked where they enter the state, as on the GPU (nbody_kernels.h): a non-finite acceleration always makes
// integrate's velocity non-finite, and then forces of the same substep, which wrote it, is named. Colour and
// write_render write none of the state.
std::optional<NBodyBlowUp> nonFiniteAfter(NBodyStage stage, int substep, std::uint64_t frame, const BodyState& state,
                                          const std::vector<Float4>& accel) {
  const auto check = [&](const std::vector<Float4>& values, NBodyStage writer,
                         const char* quantity) -> std::optional<NBodyBlowUp> {
    const std::size_t i = cpu::firstNonFinite(values);
    if (i == values.size()) return std::nullopt;
    std::ostringstream what;
    what << "non-finite " << quantity << ", body " << i << " = (" << values[i].x << ", " << values[i].y << ", "
         << values[i].z << ")";
    return NBodyBlowUp{frame, writer, substep, what.str()};
  };
  switch (stage) {
  case NBodyStage::Attractor:
  case NBodyStage::Damping: return check(state.vel, stage, "velocity");
  case NBodyStage::Integrate:
    if (cpu::firstNonFinite(state.vel) != state.vel.size()) {
      if (std::optional<NBodyBlowUp> b = check(accel, NBodyStage::Forces, "acceleration")) return b;
    }
    [[fallthrough]];
  case NBodyStage::Boundary:
    if (std::optional<NBodyBlowUp> b = check(state.vel, stage, "velocity")) return b;
    return check(state.posMass, stage, "position");
  case NBodyStage::Forces:
  case NBodyStage::Colour:
  case NBodyStage::WriteRender: break;
  }
  return std::nullopt;
}

} // namespace

void NBodyCpuBackend::step() { stepFrame(nextFrame_); }

void NBodyCpuBackend::stepFrame(std::uint64_t k) {
  const NBodyParams& p = config_.params;
  const float dampFactor = dampingFactor(p); // once per frame, as the CUDA backend pushes it to its damping nodes
  if (profiling_) {
    nodeMs_.assign(nodeCount(), -1.0);
    nodesStale_ = true;
  }
  // Diagnostics (nbody_diagnostics.h): right after forces of substep 0, whose a(t) re-synchronises the velocities of
  // the state this frame starts from; the same frames as the CUDA graph samples.
  const bool hasDiagnostics = config_.diagnosticsEvery > 0;
  const bool sample = hasDiagnostics && diagnosticsOn_ && p.dt != 0.0f && stageEnabled(NBodyStage::Forces) &&
                      diagnosticsDue(k, config_.diagnosticsEvery, diagnosticsFirstPending_);
  // A disabled stage is skipped, not run as identity: with forces off, accel keeps its last values. A stage that ran
  // is checked for non-finite output until the first blow-up is recorded (O(N) passes; not in its profiled time).
  const auto run = [&](NBodyStage stage, int substep, std::size_t node, const auto& body) {
    const bool enabled = stageEnabled(stage);
    runStage(enabled, profiling_, nodeMs_, node, body);
    if (enabled && !blowUp_) blowUp_ = nonFiniteAfter(stage, substep, k, state_, accel_);
  };
  std::size_t node = 0; // the instance's index in nodes()
  forEachStageInstance(config_.substeps, [&](NBodyStage stage, int s) {
    const std::size_t n = node++;
    switch (stage) {
    case NBodyStage::Forces:
      run(stage, s, n, [&] { computeForces(state_.posMass, accel_); });
      if (s == 0 && hasDiagnostics) {
        runStage(sample, profiling_, nodeMs_, node++, [&] {
          diagnostics_ = DiagnosticsSample{k, diagnosticsSeries_, computeDiagnostics(state_, accel_, p)};
          diagnosticsFirstPending_ = false;
        });
      }
      break;
    case NBodyStage::Attractor: run(stage, s, n, [&] { cpu::applyAttractor(state_.posMass, state_.vel, p); }); break;
    case NBodyStage::Integrate:
      run(stage, s, n, [&] { cpu::integrate(state_.posMass, state_.vel, accel_, p.dt); });
      break;
    case NBodyStage::Damping: run(stage, s, n, [&] { cpu::damp(state_.vel, dampFactor); }); break;
    case NBodyStage::Boundary:
      run(stage, s, n, [&] { cpu::applyBoundary(state_.posMass, state_.vel, p.boundaryRadius); });
      break;
    case NBodyStage::Colour: run(stage, s, n, [&] { cpu::computeColour(state_.vel, p.colourScale, colour_); }); break;
    case NBodyStage::WriteRender: break; // writeRender(), when the renderer hands over its buffer
    }
  });
  nextFrame_ = k + 1;
}

bool NBodyCpuBackend::setProfiling(bool enabled) {
  profiling_ = enabled;
  nodeMs_.clear();
  nodesStale_ = true;
  return true;
}

void NBodyCpuBackend::download(BodyState& state, std::vector<float>& colour) {
  state = state_;
  colour = colour_;
}

std::size_t NBodyCpuBackend::nodeCount() const {
  return static_cast<std::size_t>(stageInstanceCount(config_.substeps)) + (config_.diagnosticsEvery > 0 ? 1 : 0);
}

const std::vector<NodeInfo>& NBodyCpuBackend::nodes() const {
  const std::size_t count = nodeCount();
  if (nodes_.size() != count) {
    nodes_.clear();
    nodes_.reserve(count);
    forEachStageInstance(config_.substeps, [&](NBodyStage stage, int substep) {
      nodes_.push_back(rowNode(stageInstanceName(stage, substep), "cpu", stageInfo(stage).whyNotTogglable,
                               static_cast<int>(stage), substep));
      if (stage == NBodyStage::Forces && substep == 0 && config_.diagnosticsEvery > 0) {
        nodes_.push_back(rowNode(kDiagnosticsNodeName, "cpu", ""));
        nodes_.back().diagnostics = true;
      }
    });
    nodesStale_ = true;
  }
  if (nodesStale_) {
    const bool timed = profiling_ && nodeMs_.size() == nodes_.size();
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      nodes_[i].enabled = nodes_[i].diagnostics ? diagnosticsOn_ : stageEnabled(*stageOf(nodes_[i]));
      nodes_[i].ms = timed ? nodeMs_[i] : -1.0;
    }
    nodesStale_ = false;
  }
  return nodes_;
}

// write_render is the last stage instance of a frame (forEachStageInstance), so its time is nodeMs_.back().
static_assert(kNBodyStages.back().stage == NBodyStage::WriteRender);

void NBodyCpuBackend::writeRender(Float4* dst) const {
  const bool timed = profiling_ && !nodeMs_.empty();
  runStage(true, timed, nodeMs_, nodeMs_.size() - 1, [&] { cpu::writeRender(state_.posMass, colour_, dst); });
  if (timed) nodesStale_ = true;
}

} // namespace graphsim
