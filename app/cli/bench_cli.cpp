#include "app/cli/bench_cli.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include <CLI/CLI.hpp>

#include "app/base/errors.h"
#include "app/cli/video_flags.h"
#include "app/io/user_text.h"
#include "app/scenes/fluid/fluid_scene.h"
#include "app/scenes/scene_config.h"
#include "compute/protocol.h"

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kMaxMeasuredFrames = 10'000'000, kMaxWarmup = 1'000'000;

constexpr const char* kBenchFooter = R"(
Runs headless with the scene preset's fixed seed. The product path runs first; every variant listed runs after it
on the same scene and seed for the same frames, and the ones this backend cannot run are listed as skipped, with
the reason. Prints a table; --json / --csv write the same figures (docs/PERFORMANCE.md explains each).

Variants (n-body; the fluid's are below): graph (CUDA graph, node updates, F frames in flight: the product),
event-submit (the same graph; each render submitted once the host sees its CUDA frame complete), launch-early (the
same graph; frame k launched right after frame k-1's submit, before the frames-in-flight wait, its wait node
ordering it on the GPU), pdl (the same graph with programmatic dependent launch between consecutive kernels),
stream (same kernels on a stream, semaphores through cudaWait/SignalExternalSemaphoresAsync), whole-update
(cudaGraphExecUpdate of a rebuilt graph every frame), reinstantiate (a new instantiation every frame), host-copy
(no interop: device->host copy, Vulkan staging upload), serial (F = 1). LIST is comma-separated, or all (the
default), or none, of these names only (--scene nbody).

Fluid variants (--scene fluid; LIST of stream, fixed-substeps, memory-nodes, cells, wcsph, wcsph-stiff only, or all (the
default), or none): product (always runs first, not a LIST name: WHILE graph: the GPU decides each frame's substeps
and, with the dfsph solver, each solve's iterations in WHILE nodes nested in it; preallocated scratch), stream (the
same kernels on a stream, the host reading the state back after every substep and every solver iteration to decide
on the next), fixed-substeps (the body unrolled S times, S = the product's median substeps, and each dfsph solve
unrolled its median iterations; no conditional node), memory-nodes (scratch from graph memory alloc/free nodes);
with dfsph also cells (every neighbour pass walks the 27 cells: no neighbour lists), wcsph (the same graph with the WCSPH solver, substeps uncapped so that frames cover frameDt) and
wcsph-stiff (that, stiffened to the product's peak compression: equal accuracy). Variants not chosen are neither
run nor reported. all leaves cells, wcsph and wcsph-stiff out of a scene with the wcsph solver; named for one, they are
listed as skipped, with the reason. wcsph-stiff's stiffness is aimed with wcsph's measured peak, so a LIST with
wcsph-stiff must name wcsph too. --variants applies with --sim-only as well. On the CPU backend the chosen variants
(with all, the CUDA product too) are listed as skipped. Each row adds particle_steps_per_second,
substeps_per_frame, sort_share, gpu_bytes_per_particle and the "solver" object (iterations, peak compression,
covered share, real-time factor, re-sorts per frame, neighbour search); on CUDA the product row also carries
"passes", each node's GPU time on the stream-launched twin of its kernels (also in the table's notes).

Without interop (--interop off, or auto when the devices cannot share memory) the product row is the host-copy
path and the variants that need interop are skipped, with the reason in the table and the JSON ("data_path").

Ctrl-C, SIGTERM and SIGHUP stop the variant in progress after its frame in flight, drain both APIs, skip the later
variants and write the table, JSON and CSV of the frames measured so far ("interrupted": true); exit 130, 143, 129.

Exit codes: 0 success, 1 internal error, CUDA error, timeout, validation messages or an output that cannot be
written, 2 bad usage, 3 no CUDA/Vulkan device (with --interop on: no interop), 129/130/143 interrupted.)";

// An output file must be creatable now, so that a typo fails before minutes of benchmarking.
fs::path checkOutputFile(const std::string& flag, const std::string& value) {
  fs::path path(value); // not const: returned by move
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  const std::string what = flag + " " + value + ": directory " + dir.string();
  if (!fs::is_directory(dir, ec)) throw UsageError(what + " does not exist");
  if (::access(dir.c_str(), W_OK) != 0) throw UsageError(what + " is not writable");
  if (fs::is_directory(path, ec)) throw UsageError(flag + " " + value + ": is a directory");
  return path;
}

// The names --variants takes with one scene's table: "all, none, a, b, ...".
template <class Variant, std::size_t N>
std::string allowedVariants(const std::array<Variant, N>& table, std::string_view (*nameOf)(Variant)) {
  std::string allowed = "all, none";
  for (Variant v : table) allowed += ", " + std::string(nameOf(v));
  return allowed;
}

// --variants LIST|all|none with one scene's table: nullopt for all, else the variants named, each once, in the
// table's order (the report's). An unknown name is refused, `allowed` in the message's parentheses.
template <class Variant, std::size_t N>
std::optional<std::vector<Variant>> parseVariants(const std::string& list, const std::array<Variant, N>& table,
                                                  std::string_view (*nameOf)(Variant), const std::string& allowed) {
  if (list == "all") return std::nullopt;
  std::vector<Variant> chosen;
  if (list == "none") return chosen;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = list.find(',', start);
    const std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto known = std::find_if(table.begin(), table.end(), [&](Variant v) { return nameOf(v) == name; });
    if (known == table.end()) throw UsageError("--variants: unknown variant '" + name + "' (" + allowed + ")");
    if (std::find(chosen.begin(), chosen.end(), *known) == chosen.end()) chosen.push_back(*known);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::sort(chosen.begin(), chosen.end()); // the table's order
  return chosen;
}

// The n-body's (and any scene's but the fluid's): all is every variant.
std::vector<BenchVariant> parseNBodyVariants(const std::string& list) {
  const std::string allowed = "allowed: " + allowedVariants(kBenchVariants, benchVariantName);
  return parseVariants(list, kBenchVariants, benchVariantName, allowed)
      .value_or(std::vector<BenchVariant>(kBenchVariants.begin(), kBenchVariants.end()));
}

// The fluid's: all stays nullopt (every comparison the scene's solver has: app/scenes/fluid/fluid_bench.cpp).
std::optional<std::vector<FluidBenchVariant>> parseFluidVariants(const std::string& list) {
  const std::string allowed =
      "allowed with --scene fluid: " + allowedVariants(kFluidBenchVariants, fluidBenchVariantName) +
      "; the fluid's product always runs first";
  std::optional<std::vector<FluidBenchVariant>> chosen =
      parseVariants(list, kFluidBenchVariants, fluidBenchVariantName, allowed);
  const auto has = [&](FluidBenchVariant v) { return std::find(chosen->begin(), chosen->end(), v) != chosen->end(); };
  if (chosen && has(FluidBenchVariant::WcsphStiff) && !has(FluidBenchVariant::Wcsph))
    throw UsageError(
        "--variants: wcsph-stiff's stiffness is aimed with wcsph's measured peak compression; name "
        "wcsph too (--variants wcsph,wcsph-stiff)");
  return chosen;
}

} // namespace

std::string_view benchVariantName(BenchVariant variant) {
  constexpr std::string_view kNames[] = {"graph",        "event-submit",  "launch-early", "pdl",   "stream",
                                         "whole-update", "reinstantiate", "host-copy",    "serial"}; // enum order
  static_assert(std::size(kNames) == kBenchVariants.size());
  const auto i = static_cast<std::size_t>(variant);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

std::string_view fluidBenchVariantName(FluidBenchVariant variant) {
  constexpr std::string_view kNames[] = {"stream", "fixed-substeps", "memory-nodes",
                                         "cells",  "wcsph",          "wcsph-stiff"}; // enum order
  static_assert(std::size(kNames) == kFluidBenchVariants.size());
  const auto i = static_cast<std::size_t>(variant);
  return i < std::size(kNames) ? kNames[i] : "unknown";
}

std::optional<BenchVariant> benchVariantFromName(std::string_view name) {
  for (BenchVariant v : kBenchVariants)
    if (benchVariantName(v) == name) return v;
  return std::nullopt;
}

BenchCommandLine::BenchCommandLine(CLI::App& app) {
  bench_ = app.add_subcommand("bench",
                              "Benchmark the frame (headless, fixed seed): the product path and the "
                              "variants it is compared with; table, JSON, CSV, captures.");
  bench_->add_option("--scene", scene_, "Scene to run: " + sceneChoices() + " (each has its own variants, below)")
      ->capture_default_str();
  counts_.add(*bench_, "default: the preset's; ");
  bench_->add_option("--config", config_, "Scene file (JSON) overriding the preset, as run's (e.g. the render size)");
  addIntegerOption(*bench_, "--frames", frames_, "Measured frames per variant (after the warm-up), 1..10000000")
      ->capture_default_str();
  addIntegerOption(*bench_, "--warmup", warmup_,
                   "Frames run before measuring, 0..1000000 (default: frames/10, 10..200)");
  shared_.addBackend(*bench_);
  shared_.addInterop(*bench_);
  bench_->add_option("--json", json_, "Write the results as JSON to PATH");
  bench_->add_option("--csv", csv_, "Write one row per variant as CSV to PATH");
  bench_->add_option("--frame-log", frameLog_, "Write every frame of every variant as CSV to PATH (timings)");
  bench_
      ->add_option("--variants", variants_,
                   "Variants to compare with the product path: LIST, all or none (each scene's own names, below)")
      ->capture_default_str();
  bench_->add_flag("--sim-only", simOnly_,
                   "Compute-only graph stepped back to back: no rendering, no semaphores "
                   "(compare with nbody -benchmark -numbodies=N)");
  addIntegerOption(*bench_, "--frames-in-flight", framesInFlight_,
                   "Frames in flight F, 1.." + std::to_string(kMaxFramesInFlight))
      ->capture_default_str();
  addIntegerOption(*bench_, "--capture-every", captureEvery_,
                   "Capture frames K, 2K, ... of the product path (PNG + JSON), K >= 1");
  bench_->add_option("--capture-dir", captureDir_, "Directory for --capture-every (created if missing)");
  addDiagnosticsEveryOption(*bench_, diagnosticsEvery_, 0);
  addVideoFlags(*bench_,
                "the product path's measured frames (instead of --capture-every's PNGs; compare its frame "
                "times with a run without --video)");
  shared_.addValidation(*bench_, "run");
  shared_.addGpu(*bench_, "cpu backend: Vulkan device index; cuda backend: CUDA device index");
  shared_.addGpus(*bench_);
  shared_.addForces(*bench_);
  shared_.addRendezvous(*bench_, "n-body, --sim-only: rank 0 measures and reports; the others follow it.");
  shared_.addWaitTimeout(*bench_);
  shared_.addThrottleWait(*bench_);
  shared_.addRenderMode(*bench_);
  shared_.addQuiet(*bench_, "No progress lines on stderr");
  bench_->footer(kBenchFooter);
}

bool BenchCommandLine::parsed() const { return bench_->parsed(); }

BenchOptions BenchCommandLine::options(int argc, char** argv) const {
  BenchOptions o;
  for (int i = 0; i < argc; ++i) o.commandLine += (i > 0 ? " " : "") + std::string(argv[i]);

  o.backend = shared_.backend();
  o.interop = shared_.interop();
  o.scene = loadPreset(scene_);
  if (bench_->count("--config") > 0 && config_.empty()) throw UsageError("--config: empty path");
  if (!config_.empty()) applyConfigFile(o.scene, config_);
  applyDiagnosticsEvery(*bench_, diagnosticsEvery_, o.scene);
  o.framesInFlight = parseCountAndFramesInFlight(o.scene, counts_, framesInFlight_,
                                                 config_.empty() ? std::string() : fileNamedBy("--config", config_));
  o.frames = static_cast<std::uint64_t>(parseIntegerFlag("--frames", frames_, 1, kMaxMeasuredFrames));
  if (bench_->count("--warmup") > 0) {
    o.warmup = static_cast<std::uint64_t>(parseIntegerFlag("--warmup", warmup_, 0, kMaxWarmup));
  } else {
    o.warmup = std::clamp<std::uint64_t>(o.frames / 10, 10, 200);
  }

  o.simOnly = simOnly_;
  // The fluid's bench has variants of its own, and runs them with --sim-only too.
  if (&findScene(o.scene.scene) == &fluidScene()) {
    o.fluidVariants = parseFluidVariants(variants_);
  } else {
    if (bench_->count("--variants") > 0 && o.simOnly)
      throw UsageError("--variants: --sim-only measures the compute-only graph alone; drop one of the two");
    o.variants = parseNBodyVariants(variants_);
  }

  std::uint64_t captureEvery = 0;
  if (bench_->count("--capture-every") > 0)
    captureEvery = static_cast<std::uint64_t>(
        parseIntegerFlag("--capture-every", captureEvery_, 1, kMaxMeasuredFrames + kMaxWarmup));
  if (captureEvery > 0 && captureDir_.empty()) throw UsageError("--capture-every: needs --capture-dir DIR");
  if (!captureDir_.empty() && captureEvery == 0) throw UsageError("--capture-dir: needs --capture-every K");
  if (captureEvery > 0 && o.simOnly) throw UsageError("--capture-every: --sim-only renders nothing to capture");
  o.video = parseVideoFlags(*bench_, o.scene.render.width, o.scene.render.height);
  if (o.video && o.simOnly) throw UsageError("--video: --sim-only renders nothing to record");
  if (o.video && captureEvery > 0)
    throw UsageError("--video: records every measured frame itself; give --video or --capture-every, not both");
  if (o.video) o.captureEvery = 1; // every frame read back; app/bench/bench_capture.cpp encodes the measured ones
  if (captureEvery > 0) {
    const fs::path dir(captureDir_);
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
      throw UsageError("--capture-dir " + captureDir_ + ": exists and is not a directory");
    if (!fs::exists(dir, ec) && !fs::create_directories(dir, ec))
      throw UsageError("--capture-dir " + captureDir_ + ": cannot be created (" + ec.message() + ")");
    if (::access(dir.c_str(), W_OK) != 0) throw UsageError("--capture-dir " + captureDir_ + ": is not writable");
    o.captureEvery = captureEvery;
    o.captureDir = dir;
  }
  if (!json_.empty()) o.json = checkOutputFile("--json", json_);
  if (!csv_.empty()) o.csv = checkOutputFile("--csv", csv_);
  if (!frameLog_.empty()) o.frameLog = checkOutputFile("--frame-log", frameLog_);

  o.validation = shared_.validation();
  if (o.validation && o.simOnly) throw UsageError("--validation: --sim-only uses no Vulkan");
  o.gpu = shared_.gpu();
  o.gpus = shared_.gpus();
  if (o.gpus) checkSeveralGpus(findScene(o.scene.scene));
  o.rank = shared_.rendezvous(findScene(o.scene.scene));
  shared_.applyForces(o.scene);
  if (o.rank && !o.simOnly) {
    throw UsageError(
        "--rendezvous: bench runs ranks with --sim-only (the compute-only graph on every rank); graphsim run "
        "--rendezvous renders on rank 0");
  }
  o.waitTimeout = shared_.waitTimeout();
  o.throttleWait = shared_.throttleWait();
  shared_.applyRenderMode(o.scene.render);
  o.quiet = shared_.quiet();
  return o;
}

} // namespace graphsim::app
