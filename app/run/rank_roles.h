// The ranks other than 0 of `graphsim run` and `graphsim soak --rendezvous` (docs/MULTI-GPU.md, "Roles"): no window,
// no renderer, no panel and no outputs. Each runs the compute-only frame graph of its share of the scene, built from
// the same settings as rank 0's, and applies rank 0's edits, frames and gathers in rank 0's order until rank 0 ends
// the run (SceneCapabilities::followRank0).
#pragma once

#include <chrono>

#include "app/run/ranks.h"
#include "app/scenes/scene.h"

namespace graphsim::app {

// Joins the job, picks the GPU of this rank's local rank and follows rank 0; prints one line on stderr ("rank 2 of 4
// on GPU 2: followed rank 0 for 300 frames ..."). Returns the exit code: 0, or 1 when rank 0 ended the run with an
// error. Throws what joining and following throw (TimeoutError when rank 0 stops sending, EnvironmentError without a
// CUDA device or NCCL, std::invalid_argument for a rank started with another configuration than rank 0).
int followRank0(const SceneSettings& settings, const LaunchedRank& launched, std::chrono::milliseconds waitTimeout);

} // namespace graphsim::app
