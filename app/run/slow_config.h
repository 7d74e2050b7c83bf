// A configuration whose frames would take minutes or hours on the chosen backend (`--bodies 16777216 --backend cpu`)
// is accepted, but says so before any work starts: the n-body forces cost N^2 pair interactions per frame (per
// substep), and the CPU backend's start adds one double-precision direct sum of the same size.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "app/scenes/scene.h"

namespace graphsim::app {

enum class BackendKind;

// Above this, a frame or the start-up is called slow.
inline constexpr double kSlowConfigSeconds = 60.0;

// The warning for settings on backend (cpu or cuda; auto must be resolved), or nullopt when the estimate is below
// kSlowConfigSeconds or the scene is not nbody. cpu: the rate is measured now (a 2,048-body forces stage, ~10 ms);
// cuda: the rate the forces stage reaches on an H100 (docs/PERFORMANCE.md), an upper bound for other GPUs.
std::optional<std::string> slowConfigWarning(const SceneSettings& settings, BackendKind backend);
// Prints the warning, if any, on stderr ("graphsim: warning: …").
void warnIfSlow(const SceneSettings& settings, BackendKind backend);

// The floor of --wait-timeout-ms. The stall timeout measures lack of progress over one timeout (docs/FRAME.md,
// "Timeouts"): a queue that has a frame but has not yet started it is no progress, and a driver's queue thread can
// take milliseconds to pick a submit up, so a shorter timeout would call a healthy run stalled.
inline constexpr std::chrono::milliseconds kMinWaitTimeout{100};
// A timeout below the floor is raised to it, with one notice on stderr.
std::chrono::milliseconds flooredWaitTimeout(std::chrono::milliseconds requested);

} // namespace graphsim::app
