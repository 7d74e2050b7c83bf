#include "app/reliability/soak.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/cli/scene_config.h"
#include "app/run/progress.h"
#include "app/run/session.h"
#include "app/run/signals.h"
#include "app/run/sim_controller.h"
#include "app/ui/window.h"
#include "compute/cpu_backend.h"
#include "compute/state_compare.h"

namespace graphsim::app {
namespace {

using Clock = std::chrono::steady_clock;

// The GPU tests' tolerances (tests/gpu/reference_test.cpp), relative to the system's RMS radius.
constexpr double kMaxRelTolerance = 1e-5;
constexpr double kP99RelTolerance = 1e-6;

// The stages a user can toggle, in table order: the soak toggles one of them at random.
constexpr auto kTogglableStages = [] {
  constexpr auto count = static_cast<std::size_t>(std::ranges::count_if(kStages, &StageInfo::togglable));
  std::array<Stage, count> stages{};
  std::size_t i = 0;
  for (const StageInfo& row : kStages) {
    if (row.togglable()) stages[i++] = row.stage;
  }
  return stages;
}();

// SplitMix64: a tiny generator whose sequence is the same on every platform and standard library (the soak's
// change sequence must replay identically on the CI machine and the GPU machine).
class Random {
public:
  explicit Random(std::uint64_t seed) : state_(seed ^ 0x5d0a6b9c3e2f1a47ull) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::int64_t between(std::int64_t lo, std::int64_t hi) { // inclusive
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  float uniform(float lo, float hi) {
    const double u = static_cast<double>(next() >> 11) * 0x1.0p-53;
    return static_cast<float>(lo + (hi - lo) * u);
  }

private:
  std::uint64_t state_;
};

struct ChangeCounts {
  std::uint64_t toggles = 0, parameters = 0, bodyCounts = 0, substeps = 0;
  std::uint64_t total() const { return toggles + parameters + bodyCounts + substeps; }
};

// Both controllers get every change: the Session's (what the panel drives) and the replay's.
class ChangeMaker {
public:
  ChangeMaker(std::uint64_t seed, std::int64_t bodies) : random_(seed), bodies_(bodies) {}

  void small(SimController& run, SimController& replay, ChangeCounts& counts) {
    if (random_.between(0, 2) == 0) {
      const auto pick = random_.between(0, static_cast<std::int64_t>(kTogglableStages.size()) - 1);
      const Stage stage = kTogglableStages[static_cast<std::size_t>(pick)];
      const bool enabled = !run.stageWanted(stage);
      run.setStageEnabled(stage, enabled);
      replay.setStageEnabled(stage, enabled);
      ++counts.toggles;
      return;
    }
    NBodyParams p = run.params();
    // Ranges a user reaches with the panel's sliders, kept where float noise stays noise over a checkpoint interval:
    // dt, G and softening at most the preset's chaos (softening >= the preset's 0.025, dt <= its 0.0015).
    switch (random_.between(0, 7)) {
    case 0: p.dt = random_.uniform(0.0005f, 0.0015f); break;
    case 1: p.G = random_.uniform(0.5f, 1.25f); break;
    case 2: p.softening = random_.uniform(0.025f, 0.05f); break;
    case 3: p.damping = random_.uniform(0.0f, 2.0f); break;
    case 4: p.attractorStrength = random_.uniform(-4.0f, 4.0f); break;
    case 5:
      for (float& x : p.attractorPos) x = random_.uniform(-3.0f, 3.0f);
      break;
    case 6: p.boundaryRadius = random_.uniform(4.0f, 16.0f); break;
    default: p.colourScale = random_.uniform(0.2f, 3.0f); break;
    }
    run.setParams(p);
    replay.setParams(p);
    ++counts.parameters;
  }

  // Structural changes alternate, body count first, so that any run with two of them (>= 800 frames) has both kinds.
  void structural(SimController& run, SimController& replay, ChangeCounts& counts) {
    if ((counts.bodyCounts + counts.substeps) % 2 == 0) {
      // A quarter to all of the requested bodies (at least 2): body-count changes are whole-graph updates on CUDA.
      const std::int64_t quarter = std::max<std::int64_t>(bodies_ / 4, 1);
      std::int64_t n = quarter * random_.between(1, 4);
      if (n == run.bodies()) n = n == bodies_ ? quarter * 2 : bodies_;
      n = std::max<std::int64_t>(n, 2);
      run.setBodies(n);
      replay.setBodies(n);
      ++counts.bodyCounts;
    } else {
      const int substeps = run.substeps() % 3 + 1; // 1 -> 2 -> 3 -> 1: a topology change, re-instantiated on CUDA
      run.setSubsteps(substeps);
      replay.setSubsteps(substeps);
      ++counts.substeps;
    }
  }

  std::int64_t gap(std::int64_t lo, std::int64_t hi) { return random_.between(lo, hi); }

private:
  Random random_;
  std::int64_t bodies_;
};

BodyState download(SimBackend& backend) {
  BodyState state;
  std::vector<float> colour;
  backend.download(state, colour);
  return state;
}

RunOptions runOptionsFor(const SoakOptions& soak) {
  SceneSettings scene = loadPreset("nbody");
  scene.sim.bodies = soak.bodies;
  scene.sim.seed = soak.seed;
  return RunOptions{.scene = scene,
                    .backend = soak.backend,
                    .headless = true,
                    .frames = soak.frames,
                    .validation = soak.validation,
                    .gpu = soak.gpu,
                    .framesInFlight = soak.framesInFlight,
                    .waitTimeout = soak.waitTimeout,
                    .quiet = soak.quiet,
                    .panel = false,
                    .interop = soak.interop};
}

const char* backendName(BackendKind kind) { return kind == BackendKind::Cuda ? "cuda" : "cpu"; }

} // namespace

namespace {

// The checkpoints' comparisons of the run with the CPU replay, and their worst figures.
struct Checkpoints {
  bool exact = false; // cpu against cpu: bit for bit
  std::uint64_t count = 0, failed = 0, resyncs = 0, identical = 0;
  double worstMax = 0, worstP99 = 0;
  std::uint64_t worstFrame = 0;
  std::vector<std::string> failures;

  // Frame k's state of the run against the replay's; restarts the replay from the run's state where they may
  // legitimately differ (cuda), or after a failure, so that each checkpoint judges its own frames.
  void check(std::uint64_t k, Session& session, CpuBackend& replay) {
    const BodyState got = download(session.backend());
    const StateDifference d = compareStates(got, replay.state());
    ++count;
    identical += d.bitIdentical ? 1 : 0;
    const double relMax = d.scale > 0 ? d.maxAbs / d.scale : d.maxAbs;
    const double relP99 = d.scale > 0 ? d.p99 / d.scale : d.p99;
    if (relMax > worstMax) {
      worstMax = relMax;
      worstFrame = k + 1;
    }
    worstP99 = std::max(worstP99, relP99);
    const bool ok = d.sameSize && (exact ? d.bitIdentical : relMax < kMaxRelTolerance && relP99 < kP99RelTolerance);
    if (!ok) {
      ++failed;
      char line[256];
      std::snprintf(line, sizeof line,
                    "frame %llu: %zu vs %zu bodies, max |dx| = %.3e (%.3e of the scale %.3f), p99 %.3e of the scale%s",
                    static_cast<unsigned long long>(k + 1), got.size(), replay.state().size(), d.maxAbs, relMax,
                    d.scale, relP99, exact ? ", not bit-identical" : "");
      failures.emplace_back(line);
      endProgressLine();
      std::fprintf(stderr, "graphsim soak: checkpoint FAILED at %s\n", line);
    }
    // With the accelerations, which are stale while forces is off.
    if ((!exact || !ok) && d.sameSize && !d.bitIdentical) {
      replay.setState(got, session.backend().downloadAccelerations());
      ++resyncs;
    }
  }

  void print(std::int64_t every) const {
    std::printf(
        "checkpoints: %llu every %lld frames against the cpu replay (%s), %llu failed, %llu bit-identical, "
        "%llu replay restarts from the run's state\n",
        static_cast<unsigned long long>(count), static_cast<long long>(every),
        exact ? "bit for bit" : "tolerance 1e-5 worst body, 1e-6 p99, of the RMS radius",
        static_cast<unsigned long long>(failed), static_cast<unsigned long long>(identical),
        static_cast<unsigned long long>(resyncs));
    if (count == 0) {
      std::printf("checkpoint errors: not measured (no checkpoint reached)\n"); // not "0.000e+00": nothing compared
    } else {
      std::printf("checkpoint errors: worst body %.3e of the scale", worstMax);
      if (worstMax > 0) std::printf(" (frame %llu)", static_cast<unsigned long long>(worstFrame));
      std::printf(", worst p99 %.3e of the scale\n", worstP99);
    }
    for (std::size_t i = 0; i < failures.size() && i < 10; ++i) std::printf("  failed: %s\n", failures[i].c_str());
  }
};

// The report on stdout; returns the exit code.
int report(const SoakOptions& soak, const RunSummary& summary, const UpdateCounters& c, const ChangeCounts& counts,
           const Checkpoints& checks, double seconds) {
  std::printf("graphsim soak: %llu of %llu frames, %s backend, %lld bodies, seed %llu, %.1f s (%.1f fps)\n",
              static_cast<unsigned long long>(summary.frames), static_cast<unsigned long long>(soak.frames),
              backendName(soak.backend), static_cast<long long>(soak.bodies),
              static_cast<unsigned long long>(soak.seed), seconds, static_cast<double>(summary.frames) / seconds);
  std::printf("changes: %llu (stage toggles %llu, parameter moves %llu, body counts %llu, substep counts %llu)\n",
              static_cast<unsigned long long>(counts.total()), static_cast<unsigned long long>(counts.toggles),
              static_cast<unsigned long long>(counts.parameters), static_cast<unsigned long long>(counts.bodyCounts),
              static_cast<unsigned long long>(counts.substeps));
  std::printf("graph: node updates %llu, enable toggles %llu, whole-graph updates %llu, re-instantiations %llu%s%s\n",
              static_cast<unsigned long long>(c.nodeUpdates), static_cast<unsigned long long>(c.enableToggles),
              static_cast<unsigned long long>(c.wholeGraphUpdates), static_cast<unsigned long long>(c.reinstantiations),
              c.lastFallbackReason.empty() ? "" : "; last fallback: ", c.lastFallbackReason.c_str());
  checks.print(soak.checkpointEvery);
  if (soak.validation) {
    std::printf("validation messages: %llu\n", static_cast<unsigned long long>(summary.validationMessages));
  } else {
    std::printf("validation messages: not checked (add --validation)\n");
  }
  const bool interrupted = interruptRequested();
  const bool pass = !interrupted && checks.failed == 0 && summary.validationMessages == 0;
  if (interrupted) {
    std::printf("result: INTERRUPTED by %s\n", signalName(interruptSignal()).c_str());
  } else {
    std::printf("result: %s\n", pass ? "PASS" : "FAIL");
  }
  std::fflush(stdout);
  if (interrupted) return interruptExitCode();
  return pass ? 0 : 1;
}

} // namespace

int runSoak(const SoakOptions& soak) {
  const RunOptions options = runOptionsFor(soak);
  const auto start = Clock::now();
  const InterruptGuard interrupts;

  HeadlessWindow window(options.scene.render.width, options.scene.render.height);
  Session session(options, soak.backend, window);
  SimController& run = session.controller();
  CpuBackend replayBackend(options.scene.sim);
  SimController replay(options.scene.sim, run.maxBodies());
  ChangeMaker changes(soak.seed, soak.bodies);
  ChangeCounts counts;
  Checkpoints checks;
  checks.exact = soak.backend != BackendKind::Cuda;

  const auto frames = static_cast<std::uint64_t>(soak.frames);
  const auto every = static_cast<std::uint64_t>(soak.checkpointEvery);
  std::uint64_t nextChange = static_cast<std::uint64_t>(changes.gap(3, 12));
  std::uint64_t nextStructural = static_cast<std::uint64_t>(changes.gap(200, 400));
  Progress progress(frames, soak.quiet);
  for (std::uint64_t k = 0; k < frames && !interruptRequested(); ++k) {
    if (k >= nextStructural) {
      changes.structural(run, replay, counts);
      nextStructural = k + static_cast<std::uint64_t>(changes.gap(200, 400));
    } else if (k >= nextChange) {
      changes.small(run, replay, counts);
      nextChange = k + static_cast<std::uint64_t>(changes.gap(3, 12));
    }
    session.tick();
    if (replay.applyTo(replayBackend)) replayBackend.step();
    progress.frameDone(session.framesRendered());
    if ((k + 1) % every == 0 || k + 1 == frames) checks.check(k, session, replayBackend);
  }

  progress.finish(); // the report may share the terminal with stderr
  const RunSummary summary = session.finish();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return report(soak, summary, session.backend().counters(), counts, checks, seconds);
}

} // namespace graphsim::app
