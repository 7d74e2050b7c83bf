// The results of `graphsim bench` and their three renderings: the human table (stdout), JSON and CSV. The field
// names are the JSON's; docs/PERFORMANCE.md says how each is measured.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compute/nbody/nbody_backend.h"
#include "render/render_types.h"

namespace graphsim::app {

struct Percentiles {
  double p50 = 0, p95 = 0, p99 = 0, mean = 0;
};
// Nearest-rank percentiles (p50 <= p95 <= p99 by construction); all zero for no samples.
Percentiles percentiles(std::vector<double> samples);
double median(std::vector<double> samples);

// Medians over the measured frames, in microseconds of host (CPU) time per frame.
struct HostOverheadUs {
  double nodeUpdates = 0;              // semaphore values + changed kernel nodes (graph); the variant's set-up
  double graphLaunch = 0;              // cudaGraphLaunch, or the stream's launches
  std::optional<double> vkSubmit;      // record + vkQueueSubmit; none in --sim-only
  std::optional<double> vkQueueSubmit; // of which vkQueueSubmit itself
  double total = 0;                    // the host's whole per-frame work outside its waits
  std::optional<double> hostWait;      // host-copy: the frame and its copy to host memory; event-submit: the
                                       // previous frame's CUDA end event. Not part of total.
};

// CPU time per measured frame, mean (clock_gettime thread and process CPU clocks over the measured frames): what
// the frame loop burns, waits included (a spinning wait shows here, a sleeping one does not).
struct CpuPerFrameUs {
  double loopThread = 0; // the thread that runs the frame loop
  double process = 0;    // every thread of the process (CUDA's and the Vulkan driver's included)
};

// The live diagnostics over a variant's run (issue 15, docs/DIAGNOSTICS.md): the first and the last sample of the
// series (frames counted from the start of the variant, warm-up included) and their drift. JSON "diagnostics"; a
// line under the variant's row in the table.
struct DiagnosticsFigures {
  int every = 0;
  std::uint64_t samples = 0, firstFrame = 0, lastFrame = 0;
  DiagnosticSums first{}, last{};
  DiagnosticsDrift drift;
  std::optional<DiagnosticsDrift> driftPer1000Frames; // none before two samples
};
// The figures of a track (none without a sample).
std::optional<DiagnosticsFigures> diagnosticsFigures(const DiagnosticsTrack& track, int every);

struct VariantResult {
  std::string name;
  std::string description;
  std::optional<std::string> skipped; // why it did not run
  std::uint32_t framesInFlight = 0;
  double measuredSeconds = 0; // first to last measured frame completion
  Percentiles frameMs;        // interval between consecutive frame completions
  double fps = 0;
  std::optional<double> simGpuMs;    // mean per frame (CUDA events; the CPU backend: wall time of its step)
  std::optional<double> renderGpuMs; // mean per frame (Vulkan timestamps around the frame's commands)
  // Its means by pass (render_types.h), and the render mode they were drawn in; none: not measured.
  std::optional<render::RenderPassTimes> renderPassesMs;
  render::RenderMode renderMode = render::RenderMode::Particles;
  HostOverheadUs host;
  std::optional<CpuPerFrameUs> cpu;
  double interactionsPerSecond = 0;     // N^2 x substeps per frame, over measuredSeconds
  double gflops = 0;                    // 20 flops per interaction
  std::optional<double> ratioToProduct; // mean frame time of this variant / of the product path
  UpdateCounters counters;
  std::uint64_t validationMessages = 0;
  std::uint64_t captures = 0;
  // A scene's own per-variant figures (JSON keys, e.g. the fluid's particle_steps_per_second, substeps_per_frame,
  // sort_share, gpu_bytes_per_particle), in order; a null value is written as null ("not measured").
  std::vector<std::pair<std::string, std::optional<double>>> sceneFigures;
  std::optional<DiagnosticsFigures> diagnostics; // none: the scene has none, they were off, or no sample came
  // A scene's own live diagnostics in place of n-body's (the fluid's, app/scenes/fluid/fluid_bench.cpp): the JSON
  // "diagnostics" object and the table's line under the row; null / empty: none.
  std::shared_ptr<const nlohmann::ordered_json> sceneDiagnostics;
  std::string sceneDiagnosticsLine;
  // A scene's own JSON objects of the variant, by key (the fluid's "solver"); written after the figures.
  std::vector<std::pair<std::string, std::shared_ptr<const nlohmann::ordered_json>>> sceneObjects;
};

struct BenchReport {
  std::string date; // UTC, ISO 8601
  std::string commandLine;
  std::string scene, initial, backend;
  std::string gpu, driver, vulkanDevice;
  std::optional<std::string> cudaVersion; // driver API version, "13.0"; none on the CPU backend
  std::optional<std::string> cudaRuntime;
  std::string simTimer;       // "cuda-events" or "cpu-wall"
  std::string dataPath;       // how the product's frames reach the renderer: "cuda interop", "cuda host copy", "cpu"
                              // (empty in --sim-only); JSON "data_path"
  std::string dataPathReason; // host copy: why (--interop off, or what failed under --interop auto)
  std::int64_t bodies = 0;    // the scene's count (JSON "bodies" for n-body, "particles" for a scene counting those)
  std::string countNoun = "bodies";
  int substeps = 1;               // n-body: fixed per frame; a scene deciding them per frame says so in stepsNote
  std::string stepsNote;          // the table's "x N substeps" replaced by this when set ("substeps decided per frame")
  std::vector<std::string> notes; // lines printed under the table (e.g. why the CUDA variants did not run)
  std::uint64_t seed = 0;
  std::uint64_t frames = 0, warmup = 0;
  std::uint32_t framesInFlight = 0;
  std::uint32_t width = 0, height = 0;
  bool simOnly = false;
  std::string throttleWait;  // the frames-in-flight throttle's host wait (render/throttle_wait.h)
  bool interrupted = false;  // SIGINT/SIGTERM/SIGHUP: the figures cover the frames measured before it
  double startupSeconds = 0; // product path's backend construction (initial conditions + a(0) + graph)
  double interactionsPerFrame = 0;
  std::vector<VariantResult> variants; // [0] is the product path; the top-level figures are its
  std::string frameLogCsv;             // --frame-log: every frame of every variant (not part of the JSON)
  nlohmann::ordered_json multiGpu;     // --gpus: the scaling table (JSON "multi_gpu"); null otherwise
};

nlohmann::ordered_json toJson(const BenchReport& report);
std::string toCsv(const BenchReport& report);
std::string toTable(const BenchReport& report);

} // namespace graphsim::app
