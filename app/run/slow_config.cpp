#include "app/run/slow_config.h"

#include <cstdio>

#include "app/run/run_options.h"

namespace graphsim::app {

std::string durationText(double seconds) {
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

std::string rateText(double perSecond) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", perSecond);
  return text;
}

std::optional<std::string> slowConfigWarning(const SceneSettings& settings, BackendKind backend) {
  const Scene& scene = findScene(settings.scene);
  const bool cpu = backend != BackendKind::Cuda;
  const std::optional<CostEstimate> cost = scene.estimateCost(settings, cpu);
  if (!cost || (cost->frameSeconds < kSlowConfigSeconds && cost->startupSeconds < kSlowConfigSeconds &&
                cost->worstFrameSeconds < kSlowWorstFrameSeconds))
    return std::nullopt;
  std::string text = std::to_string(scene.count(settings)) + " " + std::string(scene.countNoun()) + " on the " +
                     (cpu ? "cpu" : "cuda") + " backend: one frame takes about " + durationText(cost->frameSeconds);
  if (cost->worstFrameSeconds > cost->frameSeconds)
    text += ", and up to " + durationText(cost->worstFrameSeconds) + " when the motion needs every allowed substep";
  if (cost->startupSeconds > 0)
    text += ", and the start-up about " + durationText(cost->startupSeconds) + " before the first frame";
  text += " (an estimate: " + cost->basis + "). Ctrl-C stops it at any point";
  if (!cost->advice.empty()) text += "; " + cost->advice;
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
