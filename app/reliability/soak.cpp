#include "app/reliability/soak.h"

#include <chrono>
#include <cstdio>
#include <string>

#include "app/base/progress.h"
#include "app/base/standard_streams.h"
#include "app/run/session.h"
#include "app/run/signals.h"
#include "app/scenes/scene.h"
#include "app/scenes/scene_config.h"
#include "app/ui/window.h"
#include "compute/errors.h"

namespace graphsim::app {

SceneSettings soakSettings(const Scene& scene, const SoakOptions& soak) {
  SceneSettings s = loadPreset(scene.name());
  scene.setCount(s, soak.count);
  if (soak.capacity > 0) scene.setCapacity(s, soak.capacity);
  scene.setSeed(s, soak.seed);
  if (soak.forces) s.sim.forces = *soak.forces;
  return s;
}

namespace {

using Clock = std::chrono::steady_clock;

RunOptions runOptionsFor(const SoakOptions& soak, const Scene& scene) {
  return RunOptions{.scene = soakSettings(scene, soak),
                    .backend = soak.backend,
                    .headless = true,
                    .frames = soak.frames,
                    .validation = soak.validation,
                    .gpu = soak.gpu,
                    .gpus = soak.gpus,
                    .framesInFlight = soak.framesInFlight,
                    .waitTimeout = soak.waitTimeout,
                    .quiet = soak.quiet,
                    .panel = false,
                    .interop = soak.interop,
                    .rank = soak.rank};
}

const char* backendName(BackendKind kind) { return kind == BackendKind::Cuda ? "cuda" : "cpu"; }

// The report on stdout; returns the exit code.
int report(const SoakOptions& soak, const Scene& scene, const RunSummary& summary, const UpdateCounters& c,
           const SceneSoak& checks, double seconds) {
  std::printf("graphsim soak: %llu of %llu frames, %s scene, %s backend, %lld %s, seed %llu, %.1f s (%.1f fps)\n",
              static_cast<unsigned long long>(summary.frames), static_cast<unsigned long long>(soak.frames),
              soak.scene.c_str(), backendName(soak.backend), static_cast<long long>(soak.count),
              std::string(scene.countNoun()).c_str(), static_cast<unsigned long long>(soak.seed), seconds,
              static_cast<double>(summary.frames) / seconds);
  checks.printChanges();
  std::printf("graph: node updates %llu, enable toggles %llu, whole-graph updates %llu, re-instantiations %llu%s%s\n",
              static_cast<unsigned long long>(c.nodeUpdates), static_cast<unsigned long long>(c.enableToggles),
              static_cast<unsigned long long>(c.wholeGraphUpdates), static_cast<unsigned long long>(c.reinstantiations),
              c.lastFallbackReason.empty() ? "" : "; last fallback: ", c.lastFallbackReason.c_str());
  checks.printCheckpoints();
  if (soak.validation) {
    std::printf("validation messages: %llu\n", static_cast<unsigned long long>(summary.validationMessages));
  } else {
    std::printf("validation messages: not checked (add --validation)\n");
  }
  const bool interrupted = interruptRequested();
  const bool pass = !interrupted && checks.passed() && summary.validationMessages == 0;
  if (interrupted) {
    std::printf("result: INTERRUPTED by %s\n", signalName(interruptSignal()).c_str());
  } else {
    std::printf("result: %s\n", pass ? "PASS" : "FAIL");
  }
  flushStandardOutput();
  if (interrupted) return interruptExitCode();
  return pass ? 0 : 1;
}

} // namespace

int runSoak(const SoakOptions& soak) {
  const Scene& scene = findScene(soak.scene);
  const RunOptions options = runOptionsFor(soak, scene);
  const auto start = Clock::now();

  HeadlessWindow window(options.scene.render.width, options.scene.render.height);
  Session session(options, soak.backend, window);
  const std::unique_ptr<SceneSoak> checks = scene.makeSoak(options.scene, soak, scene.renderCapacity(options.scene));

  const auto frames = static_cast<std::uint64_t>(soak.frames);
  const auto every = static_cast<std::uint64_t>(soak.checkpointEvery);
  Progress progress(frames, soak.quiet);
  try { // Interrupted: a CPU forces stage (the run's or the replay's) stopped at a checkpoint (compute/long_work.h)
    for (std::uint64_t k = 0; k < frames && !interruptRequested(); ++k) {
      checks->change(k, session.scene());
      session.tick();
      checks->afterFrame(k, session.scene(), (k + 1) % every == 0 || k + 1 == frames);
      progress.frameDone(session.framesRendered(), [&] { return session.scene().frameDetail(); });
    }
  } catch (const Interrupted&) {
  }

  progress.finish(); // the report may share the terminal with stderr
  const RunSummary summary = session.finish();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return report(soak, scene, summary, session.scene().counters(), *checks, seconds);
}

} // namespace graphsim::app
