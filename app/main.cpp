// graphsim entry point: parse, pick the backend, run, map every failure to an exit code with a one-line reason.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>

#include "app/base/errors.h"
#include "app/bench/bench.h"
#include "app/cli/cli.h"
#include "app/cli/list_gpus.h"
#include "app/run/rank_roles.h"
#include "app/run/ranks.h"
#include "app/run/session.h"
#include "app/run/signals.h"
#include "app/run/slow_config.h"
#include "app/scenes/scene.h"
#include "app/ui/glfw_window.h"
#include "compute/cuda_device.h"
#include "compute/errors.h"

namespace graphsim::app {
namespace {

BackendKind resolveBackend(BackendKind requested) {
  if (requested != BackendKind::Auto) return requested;
  const CudaDeviceList cuda = listCudaDevices();
  if (!cuda.devices.empty()) {
    std::fprintf(stderr, "graphsim: backend auto -> cuda (%s)\n", cuda.devices.front().name.c_str());
    return BackendKind::Cuda;
  }
  std::fprintf(stderr, "graphsim: backend auto -> cpu: %s\n", cuda.whyNone.c_str());
  return BackendKind::Cpu;
}

int run(RunOptions options) {
  options.waitTimeout = flooredWaitTimeout(options.waitTimeout);
  if (options.rank && options.rank->place.rank != 0)
    return followRank0(options.scene, *options.rank, options.waitTimeout);
  const BackendKind backend = resolveBackend(options.backend);
  warnIfSlow(options.scene, backend); // `--bodies 16777216 --backend cpu`: hours per frame, said before any work
  std::unique_ptr<Window> window;
  if (options.headless) {
    window = std::make_unique<HeadlessWindow>(options.scene.render.width, options.scene.render.height);
  } else {
    window = std::make_unique<GlfwWindow>(options.scene.render.width, options.scene.render.height, "graphsim");
  }
  const RunSummary s = runSession(options, backend, *window);
  const double fps = s.wallSeconds > 0 ? static_cast<double>(s.frames) / s.wallSeconds : 0;
  const auto ms = [](const std::optional<double>& v) {
    if (!v) return std::string("not measured");
    char text[32];
    std::snprintf(text, sizeof text, "%.3f ms", *v);
    return std::string(text);
  };
  std::fprintf(stderr,
               "graphsim: %llu frames of %s in %.2f s (%.1f fps); sim %s/frame (%s), render GPU %s; frames "
               "reach the renderer by %s%s%s\n",
               static_cast<unsigned long long>(s.frames), s.state.c_str(), s.wallSeconds, fps,
               ms(s.simMsPerFrame).c_str(), backend == BackendKind::Cuda ? "cuda graph, GPU time" : "cpu, wall time",
               ms(s.renderGpuMs).c_str(), s.dataPath.c_str(), s.detail.empty() ? "" : "; ", s.detail.c_str());
  // A period longer than the run (or a window closed early) is not an error, but an empty output folder would
  // otherwise be the only sign.
  if (options.captureEvery > 0 && s.frames < static_cast<std::uint64_t>(options.captureEvery)) {
    std::fprintf(stderr,
                 "graphsim: --capture-every %lld: the run ended after %llu frames, before frame %lld; nothing "
                 "was captured\n",
                 static_cast<long long>(options.captureEvery), static_cast<unsigned long long>(s.frames),
                 static_cast<long long>(options.captureEvery));
  }
  if (!s.diagnostics.empty()) std::fprintf(stderr, "graphsim: %s\n", s.diagnostics.c_str());
  if (!s.replay.empty()) std::fprintf(stderr, "graphsim: %s\n", s.replay.c_str());
  if (options.validation) {
    std::fprintf(stderr, "graphsim: validation messages: %llu\n",
                 static_cast<unsigned long long>(s.validationMessages));
    if (s.validationMessages > 0) return kExitInternal;
  }
  if (s.replayFailed && !interruptRequested()) return kExitInternal;
  if (interruptRequested()) {
    std::fprintf(stderr, "graphsim: interrupted by %s after %llu frames; both APIs drained and released\n",
                 signalName(interruptSignal()).c_str(), static_cast<unsigned long long>(s.frames));
    return interruptExitCode();
  }
  return kExitOk;
}

// An interruption that reached main() as an exception (Interrupted: start-up work stopped at a checkpoint) or after
// a command that finished anyway (list-gpus): 128 + the signal, one line.
int interruptedExit(const char* during) {
  std::fprintf(stderr, "graphsim: interrupted by %s %s; nothing else was written\n",
               signalName(interruptSignal()).c_str(), during);
  return interruptExitCode();
}

int runCommand(int argc, char** argv) {
  const Command command = parseCommandLine(argc, argv);
  if (const auto* exit = std::get_if<ExitNow>(&command)) return exit->code;
  if (std::holds_alternative<ListGpusCommand>(command)) {
    const int code = listGpus();
    return code == kExitOk && interruptRequested() ? interruptedExit("while listing devices") : code;
  }
  if (const auto* bench = std::get_if<BenchOptions>(&command)) return runBenchCommand(*bench);
  if (const auto* soak = std::get_if<SoakOptions>(&command)) {
    SoakOptions resolved = *soak;
    resolved.backend = resolveBackend(soak->backend);
    resolved.waitTimeout = flooredWaitTimeout(resolved.waitTimeout);
    const SceneSettings settings = soakSettings(findScene(resolved.scene), resolved);
    if (resolved.rank && resolved.rank->place.rank != 0)
      return followRank0(settings, *resolved.rank, resolved.waitTimeout);
    warnIfSlow(settings, resolved.backend);
    return runSoak(resolved);
  }
  return run(std::get<RunOptions>(command));
}

int mainImpl(int argc, char** argv) {
  // One signal policy for every command (app/run/signals.h): SIGINT, SIGTERM, SIGHUP drain and exit 128 + the
  // signal; SIGPIPE and SIGXFSZ are ignored, so the write fails and is reported; long start-up work is interruptible.
  const InterruptGuard interrupts;
  try {
    return runCommand(argc, argv);
  } catch (const Interrupted& e) { // compute/'s long work stopped at a checkpoint, before any frame
    std::fprintf(stderr, "graphsim: interrupted by %s during start-up (%s); both APIs drained and released\n",
                 signalName(interruptSignal()).c_str(), e.what());
    return interruptExitCode();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "graphsim: error: %s\n", e.what());
    return kExitUsage;
  } catch (const OutputError& e) {
    std::fprintf(stderr, "graphsim: cannot write output: %s\n", e.what());
    return kExitInternal;
  } catch (const EnvironmentError& e) { // Vulkan or CUDA
    std::fprintf(stderr, "graphsim: this machine lacks what was asked for: %s\n", e.what());
    return kExitEnvironment;
  } catch (const TimeoutError& e) { // "sim side stalled: …", "render side stalled: …", "CUDA side stalled: …"
    std::fprintf(stderr, "graphsim: timeout: %s%s\n", e.what(), stalledJobContext().c_str());
    return kExitInternal;
  } catch (const Error& e) {
    // The rest of compute/errors.h name themselves: ApiError ("CUDA error: <what failed, which node>: <call> failed
    // …", "Vulkan error: VK_… from <call> …") and SimulationBlowUp ("the simulation blew up in frame …").
    std::fprintf(stderr, "graphsim: %s\n", e.what());
    return kExitInternal;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "graphsim: internal error: %s\n", e.what());
    return kExitInternal;
  }
}

} // namespace
} // namespace graphsim::app

int main(int argc, char** argv) {
  const int code = graphsim::app::mainImpl(argc, argv);
  // A rank of a job of several processes that failed (another rank died, say): NCCL's kernels may still spin on its
  // GPU for the missing rank, and the CUDA runtime's exit-time teardown waits with them (seen on 4 H200s: two of the
  // three surviving ranks hung after their message). Such a rank leaves without that teardown.
  if (code != 0 && graphsim::app::joinedSeveralProcessJob()) {
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(code);
  }
  // stderr: a command that succeeded but could not write its messages (`2>&1 | head -1`, a full device) exits 1; it
  // cannot say so there. Any other code stays: an interrupted run whose terminal went away still exits 128 + signal.
  if (code == 0 && (std::fflush(stderr) != 0 || std::ferror(stderr) != 0)) return 1;
  return code;
}
