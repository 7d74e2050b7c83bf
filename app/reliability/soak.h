// graphsim soak: a long headless run with live graph edits, checked against a CPU replay. The loop and the report
// are here; what changes and what is checked is the scene's (SceneSoak, app/scenes/<scene>/). For n-body:
//
// Every few frames a seeded random change goes through the Session's NBodyController (the path the panel's clicks
// take): a stage toggle or a parameter move; every few hundred frames a structural change (body count, substeps).
// The same calls go, in the same frame, to a second NBodyController driving a NBodyCpuBackend (the replay), so both see
// the identical change sequence. At each checkpoint the run's state is downloaded and compared
// with the replay's:
//   cpu backend:  bit for bit (the CPU backend is deterministic: any difference is a bug);
//   cuda backend: within the GPU tests' tolerance (tests/gpu/reference_test.cpp: worst body 1e-5, 99th percentile
//                 1e-6 of the system's RMS radius). The replay then restarts from the CUDA state, so float noise
//                 is judged over one checkpoint interval and not amplified by chaos over thousands of frames.
// The report lists frames, changes by kind, the backend's node updates / toggles / whole-graph updates /
// re-instantiations, the checkpoint errors and the validation messages; any failure gives a non-zero exit.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "app/run/run_options.h"

namespace graphsim::app {

struct SoakOptions {
  std::string scene = defaultSceneName(); // --scene: which scene's soak (Scene::makeSoak)
  BackendKind backend = BackendKind::Auto;
  InteropMode interop = InteropMode::Auto; // cuda backend: as for run (--interop)
  std::int64_t frames = 10000;
  std::int64_t count = 1024; // bodies / particles (--bodies, --particles; the scene's soak default when not given)
  std::int64_t capacity = 0; // --max-bodies (scenes with a capacity, Scene::capacityHelp); 0: the scene's default
  std::uint64_t seed = 1;    // seeds both the initial conditions and the change sequence
  std::int64_t checkpointEvery = 10; // short: CUDA float noise is judged over one interval
  bool validation = false;
  bool quiet = false;
  std::optional<int> gpu;
  std::optional<GpuList> gpus;
  std::uint32_t framesInFlight = 3;
  std::chrono::milliseconds waitTimeout{5000};
  std::optional<NBodyForces> forces; // --forces (n-body): over the preset's
  std::optional<LaunchedRank> rank;  // --rendezvous: rank 0 soaks and checks, the others follow (docs/MULTI-GPU.md)
};

// Runs the soak, prints the report on stdout; returns the exit code (0 pass, 1 a failed checkpoint or validation
// messages, 128 + signal when interrupted). Throws what a run throws (device, usage, timeout errors).
int runSoak(const SoakOptions& options);
// The settings a soak of `scene` starts from: its preset with the options' count, capacity and seed.
SceneSettings soakSettings(const Scene& scene, const SoakOptions& options);

} // namespace graphsim::app
