// The fluid scene's soak (app/reliability/soak.h runs the loop): every 3-12 frames a solver switch (wcsph <-> dfsph,
// one change in eight), a toggle (viscosity, obstacle, gravity, colour) or a parameter move (a kFluidParams row with a
// soak range: rest density, stiffness, viscosity, gravity, CFL, max substeps, obstacle radius and position), every
// 200-400 frames a particle count (a reset), each through the session's FluidController (the panel's path) and, in the
// same frame, through a second FluidController driving a FluidCpuBackend (the replay). Every checkpoint checks the
// invariants (particle count, finite, inside the box, no blow-up) and compares the run with the replay: bit for bit on
// the CPU backend; on CUDA, in bulk (fluid_soak_bulk.h: centre of mass and RMS speed, the replay restarting from the
// CUDA state each time), since the flow amplifies float differences within a few frames. The run's live diagnostics
// (docs/DIAGNOSTICS.md) are polled after every frame: each sample must count every particle (mass N m), and the report
// ends with the last series' line.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "app/reliability/param_soak.h"
#include "app/reliability/soak.h"
#include "app/reliability/soak_checks.h"
#include "app/reliability/soak_random.h"
#include "app/scenes/fluid/fluid_controller.h"
#include "app/scenes/fluid/fluid_scene.h"
#include "app/scenes/fluid/fluid_soak_bulk.h"
#include "compute/fluid/fluid_cpu_backend.h"

namespace graphsim::app {
namespace {

using fluid::FluidParams;

struct FluidChangeCounts {
  std::uint64_t toggles = 0, parameters = 0, particleCounts = 0, solvers = 0;
  std::uint64_t total() const { return toggles + parameters + particleCounts + solvers; }
};

// One kFluidParams row with a soak range (where a user reaches with the panel and the dam break stays a dam break).
std::string_view moveParameter(SoakRandom& random, FluidParams& p) {
  const std::string_view key = moveRandomParam(random, fluid::kFluidParams, p);
  // Between fields: the centres above stay >= 0.25 m from the walls, so any radius up to 0.2 m keeps the sphere in.
  p.obstacleRadius = std::min(p.obstacleRadius, fluid::kSoakMaxObstacleRadius);
  return key;
}

std::string checkInvariants(const fluid::FluidState& s, std::int64_t wanted, const fluid::FluidConfig& c,
                            const std::optional<fluid::FluidBlowUp>& blowUp) {
  if (static_cast<std::int64_t>(s.size()) != wanted)
    return std::to_string(s.size()) + " particles, want " + std::to_string(wanted);
  if (blowUp) return "blow-up: " + fluid::describe(*blowUp);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const float x[3] = {s.pos[i].x, s.pos[i].y, s.pos[i].z};
    const float v[3] = {s.vel[i].x, s.vel[i].y, s.vel[i].z};
    for (int a = 0; a < 3; ++a) {
      if (!std::isfinite(x[a]) || !std::isfinite(v[a])) return "particle " + std::to_string(i) + " non-finite";
      if (x[a] < 0.0f || x[a] > c.params.boxSize[a]) return "particle " + std::to_string(i) + " outside the box";
    }
  }
  return {};
}

class FluidSoak final : public SceneSoak {
public:
  FluidSoak(const SceneSettings& settings, const SoakOptions& options, std::int64_t maxCount)
      : replayBackend_(withoutDiagnostics(fluidConfig(settings))), replay_(fluidConfig(settings), maxCount),
        random_(options.seed), count_(options.count), every_(options.checkpointEvery),
        exact_(options.backend != BackendKind::Cuda) {
    nextChange_ = static_cast<std::uint64_t>(random_.between(3, 12));
    nextStructural_ = static_cast<std::uint64_t>(random_.between(200, 400));
    startTravel();
  }

  void change(std::uint64_t k, SceneProducer& producer) override {
    FluidController& run = *fluidController(producer);
    if (k >= nextStructural_) {
      // Half to all of the requested particles, in quarters: a reset with a new lattice (a graph update on CUDA).
      const std::int64_t quarter = std::max<std::int64_t>(count_ / 4, 1);
      std::int64_t n = quarter * random_.between(2, 4);
      if (n == run.particles()) n = n == count_ ? quarter * 2 : count_;
      run.setParticles(n);
      replay_.setParticles(n);
      ++counts_.particleCounts;
      note(k, std::to_string(n) + " particles");
      nextStructural_ = k + static_cast<std::uint64_t>(random_.between(200, 400));
    } else if (k >= nextChange_) {
      small(k, run);
      nextChange_ = k + static_cast<std::uint64_t>(random_.between(3, 12));
    }
  }

  void afterFrame(std::uint64_t k, SceneProducer& producer, bool checkpoint) override {
    replay_.applyTo(replayBackend_, FrameEdits{.frame = k}); // the replay is never paused
    replayBackend_.stepFrame(k);
    trackTravel();
    if (checkpoint) check(k, *fluidBackend(producer), fluidController(producer)->particles());
    pollDiagnostics(k, *fluidBackend(producer));
  }

  void printChanges() const override {
    std::printf("changes: %llu (toggles %llu, parameter moves %llu, solver switches %llu, particle counts %llu)\n",
                static_cast<unsigned long long>(counts_.total()), static_cast<unsigned long long>(counts_.toggles),
                static_cast<unsigned long long>(counts_.parameters), static_cast<unsigned long long>(counts_.solvers),
                static_cast<unsigned long long>(counts_.particleCounts));
  }
  void printCheckpoints() const override;
  bool passed() const override { return failures_.count == 0; }

private:
  // The changes of the checkpoint interval, for a failure's message.
  void note(std::uint64_t k, const std::string& what) {
    interval_ += (interval_.empty() ? "" : ", ") + std::string("frame ") + std::to_string(k + 1) + " " + what;
  }

  void small(std::uint64_t k, FluidController& run) {
    if (random_.between(0, 7) == 0) { // the solver SWITCH: a node update on CUDA, never a rebuild
      const fluid::FluidSolver next =
          run.solver() == fluid::FluidSolver::Wcsph ? fluid::FluidSolver::Dfsph : fluid::FluidSolver::Wcsph;
      run.setSolver(next);
      replay_.setSolver(next);
      ++counts_.solvers;
      note(k, next == fluid::FluidSolver::Wcsph ? "solver wcsph" : "solver dfsph");
      return;
    }
    if (random_.between(0, 2) == 0) {
      const auto pick = static_cast<std::size_t>(random_.between(0, fluid::kFluidToggleCount - 1));
      const fluid::FluidToggle toggle = fluid::kFluidToggles[pick].toggle;
      const bool enabled = !run.wanted(toggle);
      run.setEnabled(toggle, enabled);
      replay_.setEnabled(toggle, enabled);
      ++counts_.toggles;
      note(k, std::string(fluid::kFluidToggles[pick].name) + (enabled ? " on" : " off"));
      return;
    }
    FluidParams p = run.params();
    for (int a = 0; a < 3; ++a) p.boxSize[a] = replayBackend_.config().params.boxSize[a];
    const std::string_view key = moveParameter(random_, p);
    run.setParams(p);
    replay_.setParams(p);
    ++counts_.parameters;
    note(k, "moved " + std::string(key));
  }

  // The path length of the replay's centre of mass since the interval began; a reset (a new particle count) jumps the
  // centre to a new lattice, which is no motion.
  void startTravel() {
    travelled_ = 0;
    lastCentre_ = centreOf(replayBackend_.state());
    lastSize_ = replayBackend_.state().size();
  }
  void trackTravel() {
    const Centre now = centreOf(replayBackend_.state());
    if (replayBackend_.state().size() == lastSize_) travelled_ += distance(now, lastCentre_);
    lastCentre_ = now;
    lastSize_ = replayBackend_.state().size();
  }

  void check(std::uint64_t k, fluid::FluidBackend& run, std::int64_t wanted);
  void pollDiagnostics(std::uint64_t k, const fluid::FluidBackend& run) {
    if (!diagnostics_.poll(run.config().diagnosticsEvery, run.diagnostics())) return;
    const fluid::FluidDiagnosticsSample& s = *diagnostics_.track.last();
    const auto n = static_cast<unsigned long long>(run.config().particles);
    if (s.sums.particles != n)
      failures_.add(k, "the diagnostics sample of frame " + std::to_string(s.frame + 1) + " counted " +
                           std::to_string(s.sums.particles) + " of " + std::to_string(n) + " particles (mass not N m)");
  }

  fluid::FluidCpuBackend replayBackend_;
  FluidController replay_;
  SoakRandom random_;
  std::int64_t count_, every_;
  bool exact_;
  FluidChangeCounts counts_;
  std::uint64_t nextChange_ = 0, nextStructural_ = 0;
  std::uint64_t checkpoints_ = 0, identical_ = 0, resyncs_ = 0;
  double worstCentre_ = 0, worstCentreShare_ = 0, worstRms_ = 0, worstRmsShare_ = 0; // share: of the allowance
  double worstMaxSpeed_ = 0;                                                         // a record, not a check
  double travelled_ = 0;
  Centre lastCentre_ = {0, 0, 0};
  std::string interval_; // the changes since the last checkpoint
  std::size_t lastSize_ = 0;
  SoakFailures failures_;
  SoakDiagnostics<fluid::FluidDiagnosticsTrack> diagnostics_;
};

void FluidSoak::check(std::uint64_t k, fluid::FluidBackend& run, std::int64_t wanted) {
  fluid::FluidState got;
  run.download(got);
  ++checkpoints_;
  const fluid::FluidState& want = replayBackend_.state();
  if (const std::string broken = checkInvariants(got, wanted, run.config(), run.blowUp()); !broken.empty()) {
    failures_.add(k, "invariant: " + broken);
  } else if (exact_) {
    const bool same = got.pos == want.pos && got.vel == want.vel;
    identical_ += same ? 1 : 0;
    if (!same) failures_.add(k, "the run differs from the cpu replay (not bit-identical)");
  } else {
    const double h = 2.0 * run.config().params.spacing;
    const double interval = static_cast<double>(every_) * replayBackend_.config().frameDt;
    const FluidBulk ours = bulkOf(got), replay = bulkOf(want);
    const FluidBulkComparison c = compareBulk(ours, replay, h, travelled_, interval);
    worstCentre_ = std::max(worstCentre_, c.centre);
    worstCentreShare_ = std::max(worstCentreShare_, c.centre / c.centreAllowed);
    worstRms_ = std::max(worstRms_, c.rmsSpeed);
    worstRmsShare_ = std::max(worstRmsShare_, c.rmsSpeed / c.rmsSpeedAllowed);
    worstMaxSpeed_ = std::max(worstMaxSpeed_, c.maxSpeedShare);
    if (!c.passed()) {
      char what[300];
      std::snprintf(what, sizeof what,
                    "centre of mass off by %.3e h (allowed %.3e h: the replay's centre travelled %.3e h), RMS speed "
                    "%.4g against the replay's %.4g m/s (allowed %.3e m/s apart); changes in the interval: ",
                    c.centre, c.centreAllowed, travelled_ / h, ours.rmsSpeed, replay.rmsSpeed, c.rmsSpeedAllowed);
      failures_.add(k, what + (interval_.empty() ? std::string("none") : interval_));
    }
  }
  interval_.clear();
  const bool sameState = got.pos == want.pos && got.vel == want.vel;
  if ((!exact_ || failures_.count > 0) && got.size() > 0 && !sameState) {
    replayBackend_.setState(got); // judge each interval on its own
    ++resyncs_;
  }
  startTravel();
}

void FluidSoak::printCheckpoints() const {
  char rule[160];
  std::snprintf(rule, sizeof rule,
                "in bulk: centre of mass within %.2g h + %.0f %% of its travel, RMS speed within %.0f %% + %.2g h per "
                "interval",
                kCentreTolerance, 100 * kCentreShareOfTravel, 100 * kRmsSpeedShare, kCentreTolerance);
  printCheckpointLine(checkpoints_, every_, exact_ ? "bit for bit" : rule, failures_.count, identical_, resyncs_);
  std::printf("invariants at every checkpoint: particle count, finite, inside the box, no blow-up\n");
  if (!exact_ && checkpoints_ > 0)
    std::printf(
        "checkpoint errors: worst centre of mass %.3e h (%.0f %% of its allowance), worst RMS speed %.3e m/s "
        "(%.0f %% of its allowance); worst largest speed %.3e of the replay's (a record: one droplet)\n",
        worstCentre_, 100.0 * worstCentreShare_, worstRms_, 100.0 * worstRmsShare_, worstMaxSpeed_);
  failures_.print();
  // The live diagnostics of the last series: a particle-count change or reset starts a new one. With the soak's
  // random parameter moves the density error and speed are a record, not a check; the particle count is checked.
  diagnostics_.print();
}

} // namespace

std::unique_ptr<SceneSoak> makeFluidSoak(const SceneSettings& settings, const SoakOptions& options,
                                         std::int64_t maxCount) {
  return std::make_unique<FluidSoak>(settings, options, maxCount);
}

} // namespace graphsim::app
