// A configuration whose frames would take minutes or hours on the chosen backend (`--bodies 16777216 --backend cpu`,
// `--scene fluid --particles 8388608 --backend cpu`) is accepted, but says so before any work starts. The scene
// estimates its own cost (Scene::estimateCost: n-body N^2 interactions per substep, fluid particle-substeps); this
// turns the estimate into the warning.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "app/scenes/scene.h"

namespace graphsim::app {

enum class BackendKind;

// Above this, a frame or the start-up is called slow.
inline constexpr double kSlowConfigSeconds = 60.0;
// Above this, a frame that a burst of motion can make (CostEstimate::worstFrameSeconds) is worth a warning: the run
// may crawl from one frame to the next without any estimate at rest saying so (1,000 fluid particles with maxSubsteps
// 1000 took 7.4 s a frame on CI's 2 cores).
inline constexpr double kSlowWorstFrameSeconds = 5.0;

// The warning for settings on backend (cpu or cuda; auto must be resolved), or nullopt when the scene's estimate is
// below kSlowConfigSeconds (and its worst frame below kSlowWorstFrameSeconds).
std::optional<std::string> slowConfigWarning(const SceneSettings& settings, BackendKind backend);
// Prints the warning, if any, on stderr ("graphsim: warning: …").
void warnIfSlow(const SceneSettings& settings, BackendKind backend);

// "42 s", "12 min", "3.5 h", "7 days".
std::string durationText(double seconds);
// "2.1e+09": a rate in the estimate's basis.
std::string rateText(double perSecond);

// The floor of --wait-timeout-ms. The stall timeout measures lack of progress over one timeout (docs/FRAME.md,
// "Timeouts"): a queue that has a frame but has not yet started it is no progress, and a driver's queue thread can
// take milliseconds to pick a submit up, so a shorter timeout would call a healthy run stalled.
inline constexpr std::chrono::milliseconds kMinWaitTimeout{100};
// A timeout below the floor is raised to it, with one notice on stderr.
std::chrono::milliseconds flooredWaitTimeout(std::chrono::milliseconds requested);

} // namespace graphsim::app
