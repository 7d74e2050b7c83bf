#include "app/run/slow_config.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "app/cli/run_options.h"
#include "compute/cpu_stages.h"
#include "compute/initial_conditions.h"

namespace graphsim::app {
namespace {

constexpr double kCudaInteractionsPerSecond = 3.0e12; // H100, the symmetric-pair forces stage (issue 14)
constexpr std::int64_t kWorthChecking = 32768;        // below this, no backend takes a minute

// Pair interactions per second of the CPU forces stage on this machine: one 2,048-body stage, timed.
double measureCpuRate() {
  SceneConfig config;
  config.bodies = 2048;
  const BodyState state = makeInitialConditions(config);
  cpu::ForceScratch scratch;
  std::vector<Float4> accel;
  const auto start = std::chrono::steady_clock::now();
  cpu::computeForces(state.posMass, config.params, scratch, accel);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return 2048.0 * 2048.0 / std::max(seconds, 1e-6);
}

std::string duration(double seconds) {
  char text[32];
  if (seconds < 120) {
    std::snprintf(text, sizeof text, "%.0f s", seconds);
  } else if (seconds < 7200) {
    std::snprintf(text, sizeof text, "%.0f min", seconds / 60);
  } else if (seconds < 2 * 86400) {
    std::snprintf(text, sizeof text, "%.1f h", seconds / 3600);
  } else {
    std::snprintf(text, sizeof text, "%.0f days", seconds / 86400);
  }
  return text;
}

} // namespace

std::optional<std::string> slowConfigWarning(const SceneSettings& settings, BackendKind backend) {
  const std::int64_t n = settings.sim.bodies;
  if (settings.scene != "nbody" || n < kWorthChecking) return std::nullopt;
  const bool cpu = backend != BackendKind::Cuda;
  const double interactions = static_cast<double>(n) * static_cast<double>(n);
  const double rate = cpu ? measureCpuRate() : kCudaInteractionsPerSecond;
  const double frame = interactions * settings.sim.substeps / rate;
  // The CPU backend's start: startLeapfrog's direct sum in double, ~4x the float stage per interaction.
  const double startup = cpu ? interactions * 4 / rate : 0;
  if (frame < kSlowConfigSeconds && startup < kSlowConfigSeconds) return std::nullopt;
  char rateText[32];
  std::snprintf(rateText, sizeof rateText, "%.2g", rate);
  std::string text = std::to_string(n) + " bodies on the " + (cpu ? "cpu" : "cuda") +
                     " backend: one frame takes about " + duration(frame);
  if (cpu) text += ", and the start-up about " + duration(startup) + " before the first frame";
  text += " (an estimate: N^2 = " + std::to_string(n) + "^2 pair interactions per forces stage at " + rateText +
          " per second, " + (cpu ? "measured on this machine just now" : "an H100's rate") +
          "). Ctrl-C stops it at any point";
  if (cpu) text += "; --backend cuda or fewer bodies is practical";
  return text;
}

void warnIfSlow(const SceneSettings& settings, BackendKind backend) {
  if (const std::optional<std::string> warning = slowConfigWarning(settings, backend)) {
    std::fprintf(stderr, "graphsim: warning: %s\n", warning->c_str());
  }
}

std::chrono::milliseconds flooredWaitTimeout(std::chrono::milliseconds requested) {
  if (requested >= kMinWaitTimeout) return requested;
  std::fprintf(stderr,
               "graphsim: --wait-timeout-ms %lld is below the floor of %lld ms (a stall is a whole timeout without "
               "progress, and a healthy queue can take milliseconds to start a frame); using %lld\n",
               static_cast<long long>(requested.count()), static_cast<long long>(kMinWaitTimeout.count()),
               static_cast<long long>(kMinWaitTimeout.count()));
  return kMinWaitTimeout;
}

} // namespace graphsim::app
