// The frame's work as the panel, bench and the tests see it, for every scene and backend: one NodeInfo a node (CUDA)
// or stage instance (CPU), and the counters of how changes reached the graph.
#pragma once

#include <cstdint>
#include <string>

namespace graphsim {

// One entry of the frame's work as the panel and the tests see it, in execution order.
struct NodeInfo {
  std::string name; // stage name ("forces"), with "#k" for substep k > 0; semaphore nodes "wait_render_done"...
  std::string type; // "kernel", "semaphore wait", "semaphore signal", "memcpy", "memset", "cpu"
  // The row of the scene's step table this node is an instance of (n-body: the NBodyStage's value); -1 for nodes that
  // are no step (semaphore, report and timing nodes).
  int step = -1;
  int substep = 0; // which substep's instance (0 for once-per-frame steps and non-step nodes)
  bool togglable = false;
  bool enabled = true;
  std::string whyNotTogglable; // empty when togglable
  double ms = -1;              // with profiling on: the node's time in the last measured frame (CUDA: GPU time
                               // between event-record nodes; CPU: wall time); negative when not measured
  bool diagnostics = false;    // the diagnostics node (kDiagnosticsNodeName): no step; toggled by the backend's
                               // setDiagnosticsEnabled; `enabled` is that setting, not this frame's
};

// Counters of how parameter and structure changes were applied (all zero on the CPU backend's graph fields).
struct UpdateCounters {
  std::uint64_t nodeUpdates = 0;       // individual node parameter updates
  std::uint64_t enableToggles = 0;     // node enable/disable calls
  std::uint64_t wholeGraphUpdates = 0; // cudaGraphExecUpdate successes
  std::uint64_t reinstantiations = 0;  // fallbacks to a fresh instantiation
  std::string lastFallbackReason;
};

} // namespace graphsim
