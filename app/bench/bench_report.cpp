#include "app/bench/bench_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "app/version.h"
#include "compute/number_text.h"

namespace graphsim::app {
namespace {

using json = nlohmann::ordered_json;

json optionalNumber(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json counters(const UpdateCounters& c) {
  return {{"node_updates", c.nodeUpdates},
          {"enable_toggles", c.enableToggles},
          {"whole_graph_updates", c.wholeGraphUpdates},
          {"reinstantiations", c.reinstantiations}};
}

// The per-variant figures; the top level repeats the product path's.
void putFigures(json& j, const VariantResult& v) {
  j["frames_in_flight"] = v.framesInFlight;
  j["measured_seconds"] = v.measuredSeconds;
  j["frame_ms"] = {{"p50", v.frameMs.p50}, {"p95", v.frameMs.p95}, {"p99", v.frameMs.p99}, {"mean", v.frameMs.mean}};
  j["fps"] = v.fps;
  j["sim_gpu_ms"] = optionalNumber(v.simGpuMs);
  j["render_gpu_ms"] = optionalNumber(v.renderGpuMs);
  j["render_mode"] = render::renderModeName(v.renderMode);
  // Every key always, null when not measured (as render_gpu_ms).
  const std::optional<render::RenderPassTimes>& p = v.renderPassesMs;
  const auto pass = [&](double render::RenderPassTimes::*member) { return p ? json((*p).*member) : json(nullptr); };
  j["render_passes_ms"] = {{"scene", pass(&render::RenderPassTimes::scene)},
                           {"thickness", pass(&render::RenderPassTimes::thickness)},
                           {"depth", pass(&render::RenderPassTimes::depth)},
                           {"smoothing", pass(&render::RenderPassTimes::smoothing)},
                           {"shading", pass(&render::RenderPassTimes::shading)}};
  json host = {{"node_updates", v.host.nodeUpdates},
               {"graph_launch", v.host.graphLaunch},
               {"vk_submit", optionalNumber(v.host.vkSubmit)},
               {"total", v.host.total}};
  if (v.host.vkQueueSubmit) host["vk_queue_submit"] = *v.host.vkQueueSubmit;
  if (v.host.hostWait) host["host_wait"] = *v.host.hostWait;
  j["host_overhead_us"] = host;
  j["cpu_us_per_frame"] = v.cpu ? json{{"loop_thread", v.cpu->loopThread}, {"process", v.cpu->process}} : json(nullptr);
  j["interactions_per_second"] = v.interactionsPerSecond;
  j["gflops"] = v.gflops;
}

json sumsJson(const DiagnosticSums& s) {
  return {{"energy", s.total()},
          {"kinetic", s.kinetic},
          {"potential", s.potential},
          {"momentum", {s.momentum[0], s.momentum[1], s.momentum[2]}},
          {"angular_momentum", {s.angularMomentum[0], s.angularMomentum[1], s.angularMomentum[2]}}};
}

json driftJson(const DiagnosticsDrift& d) {
  return {{"energy", d.energy}, {"momentum", d.momentum}, {"angular_momentum", d.angularMomentum}};
}

// "diagnostics": the first and last sample and the drift (energy E/E0 - 1; momentum and angular momentum |X - X0|
// over their scales sum m|v| and sum m|x x v|).
json diagnosticsJson(const DiagnosticsFigures& d) {
  return {{"every", d.every},
          {"samples", d.samples},
          {"first_frame", d.firstFrame},
          {"last_frame", d.lastFrame},
          {"initial", sumsJson(d.first)},
          {"final", sumsJson(d.last)},
          {"drift", driftJson(d.drift)},
          {"drift_per_1000_frames", d.driftPer1000Frames ? driftJson(*d.driftPer1000Frames) : json(nullptr)}};
}

std::string fixed(double v, int decimals) { return fixedText(v, decimals); }
std::string fixed(const std::optional<double>& v, int decimals) { return v ? fixedText(*v, decimals) : "-"; }

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

} // namespace

Percentiles percentiles(std::vector<double> samples) {
  Percentiles p;
  if (samples.empty()) return p;
  std::sort(samples.begin(), samples.end());
  const auto rank = [&](double q) {
    // Nearest rank: the smallest sample with at least q of the samples at or below it.
    const auto index = static_cast<std::size_t>(std::ceil(q * static_cast<double>(samples.size())));
    return samples[std::clamp<std::size_t>(index, 1, samples.size()) - 1];
  };
  p.p50 = rank(0.50);
  p.p95 = rank(0.95);
  p.p99 = rank(0.99);
  double sum = 0;
  for (double s : samples) sum += s;
  p.mean = sum / static_cast<double>(samples.size());
  return p;
}

double median(std::vector<double> samples) { return percentiles(std::move(samples)).p50; }

std::optional<DiagnosticsFigures> diagnosticsFigures(const DiagnosticsTrack& track, int every) {
  if (!track.first() || !track.last()) return std::nullopt;
  DiagnosticsFigures d;
  d.every = every;
  d.samples = track.samples();
  d.firstFrame = track.first()->frame;
  d.lastFrame = track.last()->frame;
  d.first = track.first()->sums;
  d.last = track.last()->sums;
  d.drift = track.drift();
  d.driftPer1000Frames = track.driftPer1000Frames();
  return d;
}

nlohmann::ordered_json toJson(const BenchReport& r) {
  const auto orNull = [](const std::optional<std::string>& text) { return text ? json(*text) : json(nullptr); };
  const auto nonEmpty = [](const std::string& text) { return text.empty() ? std::nullopt : std::optional(text); };
  // What ran, on what (key order is the report's: ordered_json).
  json j = {{"tool", "graphsim bench"},
            {"version", kVersion},
            {"date", r.date},
            {"command", r.commandLine},
            {"scene", r.scene},
            {"initial", r.initial},
            {"backend", r.backend},
            {"gpu", r.gpu},
            {"driver", r.driver},
            {"cuda_version", orNull(r.cudaVersion)},
            {"cuda_runtime", orNull(r.cudaRuntime)},
            {"vulkan_device", orNull(nonEmpty(r.vulkanDevice))},
            {"data_path", orNull(nonEmpty(r.dataPath))}};
  if (!r.dataPathReason.empty()) j["data_path_reason"] = r.dataPathReason;
  // How long, and how the figures below were taken.
  j.update(json{{r.countNoun, r.bodies},
                {"substeps", r.stepsNote.empty() ? json(r.substeps) : json(nullptr)},
                {"seed", r.seed},
                {"frames", r.frames},
                {"warmup", r.warmup},
                {"sim_only", r.simOnly},
                {"throttle_wait", r.simOnly ? json(nullptr) : json(r.throttleWait)},
                {"interrupted", r.interrupted},
                {"render_size", r.simOnly ? json(nullptr) : json::array({r.width, r.height})},
                {"startup_seconds", r.startupSeconds},
                {"interactions_per_frame", r.interactionsPerFrame},
                {"flops_per_interaction", 20}});
  j["timers"] = {{"frame", "steady_clock: interval between consecutive frame completions seen by the host"},
                 {"sim", r.simTimer},
                 {"render", r.simOnly ? "none" : "vulkan-timestamps"},
                 {"host", "steady_clock, median per frame"},
                 {"cpu", "clock_gettime thread and process CPU time over the measured frames, mean per frame"}};
  if (!r.variants.empty()) putFigures(j, r.variants.front());
  if (!r.variants.empty() && r.variants.front().diagnostics)
    j["diagnostics"] = diagnosticsJson(*r.variants.front().diagnostics);
  if (!r.variants.empty() && r.variants.front().sceneDiagnostics)
    j["diagnostics"] = *r.variants.front().sceneDiagnostics;
  json variants = json::array();
  for (const VariantResult& v : r.variants) {
    json e;
    e["name"] = v.name;
    e["description"] = v.description;
    if (v.skipped) {
      e["status"] = "skipped";
      e["reason"] = *v.skipped;
    } else {
      e["status"] = "ok";
      putFigures(e, v);
      e["ratio_to_product"] = optionalNumber(v.ratioToProduct);
      e["counters"] = counters(v.counters);
      e["validation_messages"] = v.validationMessages;
      e["captures"] = v.captures;
      for (const auto& [key, value] : v.sceneFigures) e[key] = optionalNumber(value);
      for (const auto& [key, object] : v.sceneObjects) e[key] = *object;
      if (v.diagnostics) e["diagnostics"] = diagnosticsJson(*v.diagnostics);
      if (v.sceneDiagnostics) e["diagnostics"] = *v.sceneDiagnostics;
    }
    variants.push_back(std::move(e));
  }
  j["variants"] = std::move(variants);
  if (!r.multiGpu.is_null()) j["multi_gpu"] = r.multiGpu;
  return j;
}

std::string toCsv(const BenchReport& r) {
  std::string out =
      "variant,status,reason,bodies,frames,frames_in_flight,frame_ms_p50,frame_ms_p95,frame_ms_p99,"
      "fps,sim_gpu_ms,render_gpu_ms,host_node_updates_us,host_graph_launch_us,host_vk_submit_us,"
      "host_total_us,interactions_per_second,gflops,ratio_to_product\n";
  for (const VariantResult& v : r.variants) {
    const auto num = [](const std::optional<double>& x) { return x ? fixed(*x, 6) : std::string(); };
    out += csvField(v.name) + "," + (v.skipped ? "skipped," + csvField(*v.skipped) : std::string("ok,")) + "," +
           std::to_string(r.bodies) + "," + std::to_string(r.frames);
    if (v.skipped) {
      out += std::string(14, ',') + "\n"; // the 14 figure columns, empty
      continue;
    }
    out += "," + std::to_string(v.framesInFlight) + "," + fixed(v.frameMs.p50, 6) + "," + fixed(v.frameMs.p95, 6) +
           "," + fixed(v.frameMs.p99, 6) + "," + fixed(v.fps, 3) + "," + num(v.simGpuMs) + "," + num(v.renderGpuMs) +
           "," + fixed(v.host.nodeUpdates, 3) + "," + fixed(v.host.graphLaunch, 3) + "," + num(v.host.vkSubmit) + "," +
           fixed(v.host.total, 3) + "," + scientificText(v.interactionsPerSecond) + "," + fixed(v.gflops, 1) + "," +
           num(v.ratioToProduct) + "\n";
  }
  return out;
}

std::string toTable(const BenchReport& r) {
  std::string out;
  char line[512];
  const std::string steps = !r.stepsNote.empty()
                                ? ", " + r.stepsNote
                                : " x " + std::to_string(r.substeps) + (r.substeps == 1 ? " substep" : " substeps");
  std::snprintf(line, sizeof line, "graphsim bench: %s (%s), %lld %s%s, seed %llu, %llu frames after %llu warm-up%s\n",
                r.scene.c_str(), r.initial.c_str(), static_cast<long long>(r.bodies), r.countNoun.c_str(),
                steps.c_str(), static_cast<unsigned long long>(r.seed), static_cast<unsigned long long>(r.frames),
                static_cast<unsigned long long>(r.warmup), r.simOnly ? ", sim only (no rendering, no semaphores)" : "");
  out += line;
  std::snprintf(line, sizeof line, "backend %s on %s, driver %s%s%s; start-up %.3f s; %s\n", r.backend.c_str(),
                r.gpu.c_str(), r.driver.c_str(), r.cudaVersion ? (", CUDA " + *r.cudaVersion).c_str() : "",
                r.vulkanDevice.empty() ? "" : (", Vulkan device " + r.vulkanDevice).c_str(), r.startupSeconds,
                r.simOnly ? "frame = one simulation step, nothing rendered"
                          : ("render " + std::to_string(r.width) + "x" + std::to_string(r.height)).c_str());
  out += line;
  if (!r.dataPathReason.empty()) out += "frames reach the renderer by " + r.dataPath + ": " + r.dataPathReason + "\n";
  if (r.interrupted) out += "interrupted: the figures cover the frames measured before the signal\n";
  out += "\n";
  std::snprintf(line, sizeof line, "%-14s %2s %9s %9s %9s %9s %9s %9s %9s | %8s %8s %8s %8s %8s | %6s %10s %9s\n",
                "variant", "F", "mean ms", "p50 ms", "p95 ms", "p99 ms", "fps", "sim ms", "render ms", "upd us",
                "launch", "submit", "total us", "cpu us", "ratio", "inter/s", "GFLOP/s");
  out += line;
  for (const VariantResult& v : r.variants) {
    if (v.skipped) {
      std::snprintf(line, sizeof line, "%-14s skipped: %s\n", v.name.c_str(), v.skipped->c_str());
      out += line;
      continue;
    }
    std::snprintf(line, sizeof line,
                  "%-14s %2u %9.4f %9.4f %9.4f %9.4f %9.1f %9s %9s | %8.2f %8.2f %8s %8.2f %8s | %6s %10s %9.1f\n",
                  v.name.c_str(), v.framesInFlight, v.frameMs.mean, v.frameMs.p50, v.frameMs.p95, v.frameMs.p99, v.fps,
                  fixed(v.simGpuMs, 4).c_str(), fixed(v.renderGpuMs, 4).c_str(), v.host.nodeUpdates, v.host.graphLaunch,
                  fixed(v.host.vkSubmit, 2).c_str(), v.host.total,
                  fixed(v.cpu ? std::optional(v.cpu->loopThread) : std::nullopt, 1).c_str(),
                  fixed(v.ratioToProduct, 2).c_str(), scientificText(v.interactionsPerSecond).c_str(), v.gflops);
    out += line;
    if (!v.sceneFigures.empty()) {
      std::string figures = "               ";
      for (const auto& [key, value] : v.sceneFigures)
        figures += " " + key + " " + (value ? generalText(*value, 4) : std::string("-"));
      out += figures + "\n";
    }
    if (v.diagnostics) {
      const DiagnosticsFigures& d = *v.diagnostics;
      const DiagnosticsDrift drift = d.driftPer1000Frames.value_or(d.drift);
      std::snprintf(line, sizeof line,
                    "                diagnostics (%llu samples, frames %llu..%llu): E %.6g -> %.6g; drift%s: E %.2e, "
                    "P %.2e, L %.2e\n",
                    static_cast<unsigned long long>(d.samples), static_cast<unsigned long long>(d.firstFrame),
                    static_cast<unsigned long long>(d.lastFrame), d.first.total(), d.last.total(),
                    d.driftPer1000Frames ? " per 1000 frames" : "", drift.energy, drift.momentum,
                    drift.angularMomentum);
      out += line;
    }
    if (!v.sceneDiagnosticsLine.empty()) out += "                " + v.sceneDiagnosticsLine + "\n";
  }
  for (const std::string& note : r.notes) out += "note: " + note + "\n";
  out += "\nframe: interval between consecutive frame completions (host steady_clock); sim: " + r.simTimer +
         (r.simOnly ? "" : "; render: Vulkan timestamps") +
         "; host columns: medians per frame in microseconds; cpu us: the loop thread's CPU time per frame (mean; "
         "throttle wait: " +
         r.throttleWait + "); ratio: mean frame / product's; 20 flops/interaction\n";
  return out;
}

} // namespace graphsim::app
