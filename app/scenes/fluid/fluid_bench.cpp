// The fluid scene's bench (graphsim bench --scene fluid): the product (WHILE graph, preallocated scratch) and its
// comparisons in one run, on the generic bench loop (app/bench/bench_variants.h: runVariant):
//   product         FluidLaunch::WhileGraph, FluidScratch::Preallocated: the GPU decides each frame's substeps
//   stream          FluidLaunch::HostDecided: the same kernels on a stream, the host reading back after each substep
//                   and (DFSPH) each solver iteration
//   fixed-substeps  FluidLaunch::FixedSubsteps with S = the product's median substep count and (DFSPH) each solve's
//                   median iterations per step (no conditional node)
//   memory-nodes    the product with FluidScratch::GraphMemoryNodes (scratch allocated and freed inside the graph)
//   wcsph           (a DFSPH scene) the product's graph with WCSPH at the scene's stiffness, substeps uncapped
//   wcsph-stiff     (a DFSPH scene) that, stiffened to the product's peak compression: equal accuracy
// Per variant, besides the common figures: particle_steps_per_second (particles x substeps / s),
// substeps_per_frame (mean), sort_share (the sort's GPU time over the frame's, from the passes' separate short run),
// gpu_bytes_per_particle (deviceBytes / particles); host_overhead_us.total is the host's median. The product also
// carries "passes": each node's GPU time on the stream-launched twin of its kernels (measurePasses).
// With --diagnostics-every K > 0 (bench's default is 0: a benchmark measures the frame alone), each variant also
// carries "diagnostics": the first and last sample of the live diagnostics, their peaks and the mass change
// (docs/DIAGNOSTICS.md).
// --variants (BenchOptions::fluidVariants) chooses among the comparisons; those not chosen are neither run nor
// listed. On the CPU backend only the CPU reference runs; the chosen CUDA variants are listed as not run, with the
// reason.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/bench/bench_options.h"
#include "app/bench/bench_producers.h"
#include "app/bench/bench_support.h"
#include "app/run/open_devices.h"
#include "app/run/signals.h"
#include "app/scenes/fluid/fluid_producer.h"
#include "app/scenes/fluid/fluid_scene.h"
#include "compute/fluid/fluid_cpu_backend.h"
#include "compute/number_text.h"
#include "render/particle_renderer.h"
#include "render/vulkan_context.h"

namespace graphsim::app {
namespace {

using Clock = std::chrono::steady_clock;

struct FluidVariant {
  std::string name, description;
  fluid::FluidCudaOptions options;
};

// What the backend reports of each measured frame (asynchronously on CUDA): substeps, the solver's iterations, the
// compression and the share of frameDt covered.
class SubstepLog {
public:
  void saw(const std::optional<fluid::FluidFrameInfo>& f, std::uint64_t warmup) {
    if (!f) return;
    runPeak_ = std::max(runPeak_, f->peakSinceReset);
    if (f->frame >= warmup) byFrame_[f->frame] = *f;
  }
  std::optional<double> mean() const {
    if (byFrame_.empty()) return std::nullopt;
    double sum = 0;
    for (const auto& [frame, f] : byFrame_) sum += f.substeps;
    return sum / static_cast<double>(byFrame_.size());
  }
  int median() const {
    std::vector<double> all;
    for (const auto& [frame, f] : byFrame_) all.push_back(f.substeps);
    return all.empty() ? 1 : std::max(1, static_cast<int>(app::median(all)));
  }
  // The median over frames of a solve's mean velocity updates per step, rounded (1 without DFSPH frames).
  int medianIterations(bool density) const {
    std::vector<double> all;
    for (const auto& [frame, f] : byFrame_) {
      const fluid::IterationSpan& s = density ? f.density : f.divergence;
      if (f.substeps > 0 && s.total > 0) all.push_back(static_cast<double>(s.total) / f.substeps);
    }
    return all.empty() ? 1 : std::max(1, static_cast<int>(std::lround(app::median(all))));
  }
  // The particle-wise peak compression of the whole run, warm-up included (the dam break's first impact can fall in
  // it) and the frames whose report the host did not see.
  double peakCompression() const { return runPeak_; }
  // "solver": per solve the fewest, mean and most iterations of a substep; the peak of the particle-wise compression
  // and of the density solve's average error; the least share of frameDt a frame covered and the simulated seconds
  // per measured second (the real-time factor).
  // The report of a frame reaches the host asynchronously and some frames' are overwritten before it looks, so the
  // factor is the mean covered time of the frames seen times the measured frame rate.
  nlohmann::ordered_json solverJson(const fluid::FluidConfig& c, double framesPerSecond) const {
    fluid::IterationSpan divergence, density;
    long long steps = 0;
    double error = 0, leastCovered = 1, simulated = 0;
    long long resorts = 0;
    for (const auto& [frame, f] : byFrame_) {
      steps += f.substeps;
      resorts += f.resorts;
      for (auto [span, from] : {std::pair{&divergence, &f.divergence}, std::pair{&density, &f.density}}) {
        if (from->total == 0) continue;
        span->min = std::min(span->min, from->min), span->max = std::max(span->max, from->max);
        span->total += from->total;
      }
      error = std::max(error, f.densityError);
      leastCovered = std::min(leastCovered, static_cast<double>(f.covered / c.frameDt));
      simulated += f.covered;
    }
    const auto span = [&](const fluid::IterationSpan& s) -> nlohmann::ordered_json {
      if (s.total == 0) return nullptr;
      return {{"min", s.min}, {"mean", static_cast<double>(s.total) / static_cast<double>(steps)}, {"max", s.max}};
    };
    return {{"name", fluid::kFluidSolverNames[static_cast<int>(c.solver)]},
            {"divergence_iterations", span(divergence)},
            {"density_iterations", span(density)},
            {"peak_compression", peakCompression()},
            {"peak_density_error", error},
            {"least_frame_covered", byFrame_.empty() ? 0.0 : leastCovered},
            {"resorts_per_frame",
             byFrame_.empty() ? 0.0 : static_cast<double>(resorts) / static_cast<double>(byFrame_.size())},
            {"real_time_factor",
             byFrame_.empty() ? 0.0 : simulated / static_cast<double>(byFrame_.size()) * framesPerSecond}};
  }

private:
  std::map<std::uint64_t, fluid::FluidFrameInfo> byFrame_;
  float runPeak_ = 0;
};

// A fluid engine as bench drives it: the substeps seen, the diagnostics, the render mapping.
class FluidBenchProducer final : public BenchProducer {
public:
  template <class Backend>
  FluidBenchProducer(std::unique_ptr<SceneEngine> engine, Backend& backend, render::ParticleRenderer* renderer,
                     std::uint64_t warmup)
      : BenchProducer(*engine, renderer), engine_(std::move(engine)), backend_(backend), warmup_(warmup) {
    if constexpr (std::is_same_v<Backend, fluid::FluidCudaBackend>) cuda_ = &backend;
  }

  std::optional<double> simGpuMs(std::uint64_t) const override {
    if (cuda_ == nullptr || cuda_->lastSimGpuMs() < 0) return std::nullopt;
    return cuda_->lastSimGpuMs(); // the last completed frame's: the backend keeps no per-frame history
  }
  void styleFrame(render::FrameSubmit& submit) const override { styleFluidFrame(backend_.config(), submit); }
  nlohmann::ordered_json captureSidecar(std::uint64_t frame, bool warmup, const std::string& variant) const override {
    const fluid::FluidConfig& c = backend_.config();
    nlohmann::ordered_json j = {{"frame", frame + 1},      {"frame_index", frame}, {"warmup", warmup},
                                {"variant", variant},      {"scene", "fluid"},     {"initial", c.initial},
                                {"particles", c.particles}};
    if (const auto f = backend_.lastFrame())
      j["last_known_frame"] = {{"frame", f->frame}, {"substeps", f->substeps}, {"dt", f->lastDt}};
    return j;
  }
  const SubstepLog& substeps() const { return substeps_; }
  const fluid::FluidConfig& config() const { return backend_.config(); }
  const fluid::FluidDiagnosticsTrack& fluidDiagnostics() const { return diagnostics_; }
  int diagnosticsEvery() const { return backend_.config().diagnosticsEvery; }
  std::size_t deviceBytes() const { return cuda_ != nullptr ? cuda_->deviceBytes() : 0; }
  std::string neighbourSearch() const {
    return cuda_ != nullptr ? cuda_->neighbourSearch() : "cells (the CPU reference walks its cells)";
  }

private:
  void observe() override {
    substeps_.saw(backend_.lastFrame(), warmup_);
    diagnostics_.update(backend_.diagnostics()); // a few loads of pinned memory on CUDA
  }

  std::unique_ptr<SceneEngine> engine_;
  fluid::FluidBackend& backend_;            // the engine's
  fluid::FluidCudaBackend* cuda_ = nullptr; // the engine's backend when CUDA
  std::uint64_t warmup_;
  SubstepLog substeps_;
  fluid::FluidDiagnosticsTrack diagnostics_;
};

nlohmann::ordered_json sumsJson(const fluid::FluidDiagnosticSums& s) {
  return {{"mass", s.mass},
          {"particles", s.particles},
          {"max_density_deviation", s.maxDensityDeviation},
          {"max_compression", s.maxCompression},
          {"max_speed", s.maxSpeed}};
}

// "diagnostics" (frames counted from the start of the variant, warm-up included) and the table's line; nothing
// without a sample.
void addDiagnostics(VariantResult& r, const FluidBenchProducer& p) {
  const fluid::FluidDiagnosticsTrack& t = p.fluidDiagnostics();
  if (!t.first() || !t.last()) return;
  const fluid::FluidDiagnosticSums& peak = t.peak();
  r.sceneDiagnostics = std::make_shared<const nlohmann::ordered_json>(
      nlohmann::ordered_json{{"every", p.diagnosticsEvery()},
                             {"samples", t.samples()},
                             {"first_frame", t.first()->frame},
                             {"last_frame", t.last()->frame},
                             {"initial", sumsJson(t.first()->sums)},
                             {"final", sumsJson(t.last()->sums)},
                             {"peak",
                              {{"max_density_deviation", peak.maxDensityDeviation},
                               {"max_compression", peak.maxCompression},
                               {"max_speed", peak.maxSpeed}}},
                             {"mass_change", t.massChange()}});
  r.sceneDiagnosticsLine = everyFrames(t.summary(), p.diagnosticsEvery());
}

void addFigures(VariantResult& r, const FluidBenchProducer& p, std::optional<double> sortShare) {
  const std::optional<double> substeps = p.substeps().mean();
  const auto particles = static_cast<double>(p.count());
  std::optional<double> rate;
  if (substeps && r.measuredSeconds > 0) rate = particles * *substeps * r.fps;
  r.sceneFigures = {
      {"particle_steps_per_second", rate},
      {"substeps_per_frame", substeps},
      {"sort_share", sortShare},
      {"gpu_bytes_per_particle",
       p.deviceBytes() > 0 ? std::optional(static_cast<double>(p.deviceBytes()) / particles) : std::nullopt},
      {"host_us_median", r.host.total}};
  nlohmann::ordered_json solver = p.substeps().solverJson(p.config(), r.fps);
  solver["neighbour_search"] = p.neighbourSearch();
  r.sceneObjects = {{"solver", std::make_shared<const nlohmann::ordered_json>(std::move(solver))}};
  r.interactionsPerSecond = 0;
  r.gflops = 0;
}

// The product's passes on their stream-launched twin (FluidCudaBackend::timePasses), apart from the measured runs: a
// compute-only backend runs 30 frames, then kPassSteps steps launched one node at a time between two events (a
// conditional body can hold no event nodes, and ncu does not profile kernels of a graph with conditional nodes).
struct PassFigures {
  std::optional<double> sortShare; // the sort's GPU time in a frame over the frame's (the last of the 30)
  std::shared_ptr<const nlohmann::ordered_json> json;
  std::string note; // the table's
};
constexpr int kPassSteps = 20;

PassFigures measurePasses(const BenchOptions& o, int device, const fluid::FluidCudaOptions& options) {
  fluid::FluidCudaBackend sim(fluidConfig(o.scene), device, nullptr, options);
  for (std::uint64_t k = 0; k < 30; ++k) sim.launchFrame(k);
  sim.synchronize();
  const double frame = sim.lastSimGpuMs();
  const std::optional<fluid::FluidFrameInfo> last = sim.lastFrame();
  const std::vector<fluid::FluidPassTime> passes = sim.timePasses(kPassSteps);
  PassFigures f;
  if (passes.empty()) return f;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  double stepMs = 0;
  f.note = "passes (stream-launched twin, " + std::to_string(kPassSteps) + " steps after frame 30; GPU ms per launch" +
           " x launches per step):";
  for (const fluid::FluidPassTime& p : passes) {
    stepMs += p.ms * p.perStep;
    rows.push_back({{"name", p.name}, {"ms", p.ms}, {"per_step", p.perStep}});
    f.note += " " + p.name + " " + fixedText(p.ms, 4) + (p.perStep != 1.0 ? " x " + fixedText(p.perStep, 2) : "") + ",";
    if (p.name == "sort" && frame > 0 && last) f.sortShare = p.ms * p.perStep * last->substeps / frame;
  }
  f.note += " step " + fixedText(stepMs, 4) + " ms";
  f.json = std::make_shared<const nlohmann::ordered_json>(
      nlohmann::ordered_json{{"launch", "stream (one node at a time between events)"},
                             {"steps", kPassSteps},
                             {"step_ms", stepMs},
                             {"rows", std::move(rows)}});
  return f;
}

// What the unrolled and the equal-accuracy variants take from an earlier run.
struct RunShape {
  int substeps = 1;           // median substeps per frame
  int iterations[2] = {1, 1}; // per solve (divergence, density), median of a frame's mean per step
  double peakCompression = 0; // particle-wise, over the whole run (SubstepLog::peakCompression)
};

// config: the scene's, or a variant's change of it; shape: the run's figures when non-null.
LoopResult runFluidVariant(const LoopSetup& setup, render::VulkanContext* context, const DataPath* path,
                           const fluid::FluidCudaOptions* options, std::optional<double> sortShare,
                           const fluid::FluidConfig& config, RunShape* shape = nullptr) {
  const BenchOptions& o = *setup.options;
  const auto mode = options == nullptr ? render::BodyBufferMode::HostVisible
                    : path->interop    ? render::BodyBufferMode::Exported
                                       : render::BodyBufferMode::Staged;
  std::optional<render::ParticleRenderer> renderer;
  if (context != nullptr) renderer.emplace(*context, rendererConfig(o, mode, o.framesInFlight));
  render::ParticleRenderer* r = renderer ? &*renderer : nullptr;
  const auto built = Clock::now();
  const std::unique_ptr<FluidBenchProducer> made =
      options != nullptr
          ? makeOver<FluidBenchProducer>(makeFluidCudaEngine(config, r, setup.cudaDevice, *options, {}), r, o.warmup)
          : makeOver<FluidBenchProducer>(std::make_unique<FluidCpuEngine>(config), r, o.warmup);
  FluidBenchProducer& producer = *made;
  Variant v{setup, r, producer, r != nullptr ? o.framesInFlight : 1};
  v.withSubmit = r != nullptr;
  v.withWait = mode == render::BodyBufferMode::Staged;
  v.capture = true;
  LoopResult result = runVariant(v, std::chrono::duration<double>(Clock::now() - built).count());
  addFigures(result.result, producer, sortShare);
  addDiagnostics(result.result, producer);
  if (shape != nullptr) {
    const SubstepLog& log = producer.substeps();
    *shape = {log.median(), {log.medianIterations(false), log.medianIterations(true)}, log.peakCompression()};
  }
  result.result.framesInFlight = v.framesInFlight;
  return result;
}

// Whether the scene has the comparison: cells compares DFSPH's neighbour lists with the cell walk, wcsph and
// wcsph-stiff compare WCSPH with a DFSPH product.
bool sceneHas(const fluid::FluidConfig& c, FluidBenchVariant v) {
  return c.solver == fluid::FluidSolver::Dfsph ||
         (v != FluidBenchVariant::Cells && v != FluidBenchVariant::Wcsph && v != FluidBenchVariant::WcsphStiff);
}

// The comparisons this run lists: those --variants named, or (all) every one the scene's solver has.
std::vector<FluidBenchVariant> chosenVariants(const BenchOptions& o, const fluid::FluidConfig& c) {
  if (o.fluidVariants) return *o.fluidVariants;
  std::vector<FluidBenchVariant> all;
  for (FluidBenchVariant v : kFluidBenchVariants)
    if (sceneHas(c, v)) all.push_back(v);
  return all;
}

std::string needsDfsph(FluidBenchVariant v) {
  return std::string("needs the dfsph solver (the scene file's \"solver\": \"dfsph\"): it compares ") +
         (v == FluidBenchVariant::Cells ? "DFSPH's neighbour lists with the cell walk"
                                        : "WCSPH with the DFSPH product");
}

void runFluidCpu(const BenchOptions& o, BenchReport& report) {
  report.simTimer = "cpu-wall";
  LoopSetup setup{&o, 0, 0, nullptr, "cpu", fluidScene().initialCamera(o.scene)};
  std::optional<render::VulkanContext> context;
  openCpuBenchDevice(o, report, context);
  LoopResult run = runProduct(o, report, setup, [&] {
    return runFluidVariant(setup, context ? &*context : nullptr, nullptr, nullptr, std::nullopt, fluidConfig(o.scene));
  });
  addRun(report, std::move(run), "cpu",
         "the fluid CPU reference: the stages on the host, F = " + std::to_string(o.framesInFlight),
         context ? context->validationMessages() : 0);
  const fluid::FluidConfig& config = fluidConfig(o.scene);
  const std::string why = "needs --backend cuda: the CPU reference has no CUDA graph, WHILE node or scratch modes";
  std::string listed;                                                          // those not run for want of CUDA
  const auto skip = [&](const std::string& name, const std::string* notHere) { // notHere: the scene lacks it
    report.variants.push_back(skippedVariant(name, "CUDA fluid variant", notHere != nullptr ? *notHere : why));
    if (notHere == nullptr) listed += (listed.empty() ? "" : ", ") + name;
  };
  if (!o.fluidVariants) skip("product", nullptr); // all: the CUDA product too
  for (FluidBenchVariant v : chosenVariants(o, config)) {
    const std::string lacks = needsDfsph(v);
    skip(std::string(fluidBenchVariantName(v)), sceneHas(config, v) ? nullptr : &lacks);
  }
  if (!listed.empty()) report.notes.push_back("the CUDA variants (" + listed + ") were not run: " + why);
}

// The comparison's WCSPH: the scene with the WCSPH solver and no substep cap short of kMaxFluidSubsteps, so that
// its frames cover frameDt as the product's do (else it runs in slow motion and its frame time compares nothing).
fluid::FluidConfig uncappedWcsph(fluid::FluidConfig c) {
  c.solver = fluid::FluidSolver::Wcsph;
  c.params.maxSubsteps = fluid::kMaxFluidSubsteps;
  return c;
}

// Equal accuracy (issue 28): WCSPH whose peak compression meets the product's. Its stiffness is c_s^2; the
// particle-wise peak fell as stiffness^-1/2 in the dam break (H200: twice the stiffness, 0.70x the peak at 65,536 and
// 0.63x at 262,144), not as the (v / c_s)^2 of the average, so the stiffness grows by the square of the peaks' ratio.
fluid::FluidConfig stiffenedWcsph(fluid::FluidConfig c, double wcsphPeak, double productPeak) {
  const double ratio = wcsphPeak / std::max(productPeak, 1e-6);
  const double factor = std::clamp(ratio * ratio, 1.0, 1000.0);
  c.params.stiffness = static_cast<float>(std::min(c.params.stiffness * factor, 0.999e6));
  return c;
}

// A comparison's variant and scene: from the product's options and figures and, for wcsph-stiff, wcsph's.
struct FluidComparison {
  FluidVariant variant;
  fluid::FluidConfig config;
};
FluidComparison comparison(FluidBenchVariant v, const fluid::FluidConfig& config,
                           const fluid::FluidCudaOptions& product, const RunShape& shape, const RunShape& wcsph) {
  const bool dfsph = config.solver == fluid::FluidSolver::Dfsph;
  FluidComparison c{{std::string(fluidBenchVariantName(v)), {}, product}, config};
  switch (v) {
  case FluidBenchVariant::Stream:
    c.variant.options.launch = fluid::FluidLaunch::HostDecided;
    c.variant.description =
        dfsph ? "host-decided: stream launches, the host reads back after each solver iteration and each step"
              : "host-decided: stream launches, the host reads back after each substep";
    break;
  case FluidBenchVariant::FixedSubsteps: {
    fluid::FluidCudaOptions& fixed = c.variant.options;
    fixed.launch = fluid::FluidLaunch::FixedSubsteps;
    fixed.fixedSubsteps = std::clamp(shape.substeps, 1, fluid::kMaxFluidSubsteps);
    std::copy(std::begin(shape.iterations), std::end(shape.iterations), std::begin(fixed.fixedIterations));
    c.variant.description =
        "graph unrolled S = " + std::to_string(fixed.fixedSubsteps) + " times (the product's substeps per frame)" +
        (dfsph ? ", each solve " + std::to_string(fixed.fixedIterations[0]) + " / " +
                     std::to_string(fixed.fixedIterations[1]) + " iterations (the product's medians)"
               : "") +
        ", no conditional node";
    break;
  }
  case FluidBenchVariant::MemoryNodes:
    c.variant.options.scratch = fluid::FluidScratch::GraphMemoryNodes;
    c.variant.description = "the product with scratch from graph memory nodes";
    break;
  case FluidBenchVariant::Cells:
    c.variant.options.neighbourLists = false;
    c.variant.description =
        "the product with every neighbour pass walking the 27 cells (no neighbour lists, a sort every step)";
    break;
  case FluidBenchVariant::Wcsph:
    c.config = uncappedWcsph(config);
    c.variant.description = "the product's graph with the WCSPH solver at the scene's stiffness, substeps uncapped";
    break;
  case FluidBenchVariant::WcsphStiff:
    c.config = stiffenedWcsph(uncappedWcsph(config), wcsph.peakCompression, shape.peakCompression);
    c.variant.description = "WCSPH at equal accuracy: stiffness " + fixedText(c.config.params.stiffness, 0) +
                            " m^2/s^2 (aimed at the product's peak compression), substeps uncapped";
    break;
  }
  return c;
}

// Why a chosen comparison does not run, if it does not. wcsphRan: wcsph has measured its peak (wcsph-stiff's aim).
std::optional<std::string> whyNotRun(FluidBenchVariant v, const fluid::FluidConfig& config, bool wcsphRan) {
  if (interruptRequested()) return interruptedReason();
  if (!sceneHas(config, v)) return needsDfsph(v);
  if (v == FluidBenchVariant::WcsphStiff && !wcsphRan)
    return "its stiffness is aimed with wcsph's measured peak compression, and wcsph did not run";
  return std::nullopt;
}

void runFluidCuda(const BenchOptions& o, BenchReport& report) {
  const CudaDeviceList cuda = listCudaDevices();
  const CudaDeviceInfo& info = cudaDeviceFor(o, cuda);
  describeCuda(report, info, cuda);
  fluidScene().checkCount(o.scene, o.framesInFlight, "--particles", info.totalMemory); // before any allocation
  LoopSetup setup{&o, info.index, 0, nullptr, "product", fluidScene().initialCamera(o.scene)};
  std::optional<render::VulkanContext> context;
  DataPath path;
  if (!o.simOnly) path = openCudaBenchDevice(o, info, cuda, report, context);
  const fluid::FluidConfig& config = fluidConfig(o.scene);
  fluid::FluidCudaOptions product;
  product.waitTimeout = o.waitTimeout;
  const PassFigures passes = measurePasses(o, info.index, product);
  const std::optional<double> share = passes.sortShare;
  render::VulkanContext* ctx = context ? &*context : nullptr;
  const auto messages = [&] { return ctx != nullptr ? ctx->validationMessages() : 0; };
  std::uint64_t before = messages();
  RunShape shape;
  LoopResult first =
      runProduct(o, report, setup, [&] { return runFluidVariant(setup, ctx, &path, &product, share, config, &shape); });
  if (passes.json) {
    first.result.sceneObjects.emplace_back("passes", passes.json);
    report.notes.push_back(passes.note);
  }
  addRun(report, std::move(first), "product",
         config.solver == fluid::FluidSolver::Dfsph
             ? "WHILE graph: the GPU decides each frame's steps and each solve's iterations (WHILE nodes nested in "
               "the step's WHILE); preallocated scratch"
             : "WHILE graph: the GPU decides each frame's substeps; preallocated scratch",
         messages() - before);
  RunShape wcsph; // wcsph's figures, which aim wcsph-stiff
  bool wcsphRan = false;
  for (FluidBenchVariant v : chosenVariants(o, config)) {
    const FluidComparison c = comparison(v, config, product, shape, wcsph);
    if (const std::optional<std::string> why = whyNotRun(v, config, wcsphRan)) {
      report.variants.push_back(skippedVariant(c.variant.name, c.variant.description, *why));
      continue;
    }
    setup.variantName = c.variant.name;
    before = messages();
    const bool isWcsph = v == FluidBenchVariant::Wcsph;
    addRun(report, runFluidVariant(setup, ctx, &path, &c.variant.options, share, c.config, isWcsph ? &wcsph : nullptr),
           c.variant.name, c.variant.description, messages() - before);
    wcsphRan = wcsphRan || isWcsph;
  }
}

} // namespace

void runFluidBench(const BenchOptions& options, BenchReport& report) {
  const fluid::FluidConfig& c = fluidConfig(options.scene);
  report.initial = c.initial;
  report.substeps = c.params.maxSubsteps;
  report.stepsNote = "substeps decided per frame (at most " + std::to_string(c.params.maxSubsteps) + ")";
  report.seed = 0;
  if (options.backend == BackendKind::Cuda) {
    runFluidCuda(options, report);
  } else {
    runFluidCpu(options, report);
  }
}

} // namespace graphsim::app
