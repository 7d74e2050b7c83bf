#include "app/bench/bench.h"

#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/base/errors.h"
#include "app/base/standard_streams.h"
#include "app/bench/bench_support.h"
#include "app/io/output_file.h"
#include "app/run/open_devices.h"
#include "app/run/signals.h"
#include "app/run/slow_config.h"
#include "app/scenes/scene.h"

namespace graphsim::app {
namespace {

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

} // namespace

std::string cudaVersionText(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

// The NVIDIA kernel module's version ("580.95.05") when no Vulkan device is open (--sim-only).
std::optional<std::string> nvidiaModuleVersion() {
  std::ifstream file("/proc/driver/nvidia/version");
  std::string line;
  if (!file || !std::getline(file, line)) return std::nullopt;
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  ...": the first word
  // after "Kernel Module" that starts with a digit.
  const std::string marker = "Kernel Module";
  const std::size_t at = line.find(marker);
  if (at == std::string::npos) return std::nullopt;
  std::istringstream rest(line.substr(at + marker.size()));
  for (std::string word; rest >> word;) {
    if (!word.empty() && word[0] >= '0' && word[0] <= '9') return word;
  }
  return std::nullopt;
}

std::string interruptedReason() { return "interrupted by " + signalName(interruptSignal()); }

VariantResult skippedVariant(std::string name, std::string description, std::string reason) {
  VariantResult v;
  v.name = std::move(name);
  v.description = std::move(description);
  v.skipped = std::move(reason);
  return v;
}

namespace {

void fillRatios(BenchReport& report) {
  if (report.variants.empty()) return; // a rank other than 0 of --rendezvous: it followed, rank 0 measured
  // Mean frame time (1 / fps): completions can come in bursts, so the median interval alone can mislead.
  const double product = report.variants.front().frameMs.mean;
  for (VariantResult& v : report.variants) {
    if (!v.skipped && product > 0) v.ratioToProduct = v.frameMs.mean / product;
  }
}

} // namespace

// Adds a run to the report with its per-frame rows; the first one added is the product path.
void addRun(BenchReport& report, LoopResult run, std::string name, std::string description,
            std::uint64_t validationMessages) {
  report.frameLogCsv += run.frameCsv;
  run.result.name = std::move(name);
  run.result.description = std::move(description);
  run.result.validationMessages = validationMessages;
  if (report.variants.empty()) report.startupSeconds = run.startupSeconds;
  report.variants.push_back(std::move(run.result));
}

const CudaDeviceInfo& cudaDeviceFor(const BenchOptions& options, const CudaDeviceList& cuda) {
  const int device = options.gpu.value_or(0);
  if (cuda.devices.empty()) throw EnvironmentError("--backend cuda: " + describeCudaDevices(cuda));
  if (device >= static_cast<int>(cuda.devices.size()))
    throw EnvironmentError("--gpu " + std::to_string(device) +
                           ": no such CUDA device; have: " + describeCudaDevices(cuda));
  return cuda.devices[static_cast<std::size_t>(device)];
}

void describeCuda(BenchReport& report, const CudaDeviceInfo& info, const CudaDeviceList& cuda) {
  report.gpu = info.name;
  report.cudaVersion = cudaVersionText(cuda.driverVersion);
  report.cudaRuntime = cudaVersionText(cuda.runtimeVersion);
  report.simTimer = "cuda-events";
  report.driver = nvidiaModuleVersion().value_or("unknown");
}

BenchReport runBench(const BenchOptions& options) {
  const Scene& scene = findScene(options.scene.scene);
  BenchReport report{.date = utcNow(),
                     .commandLine = options.commandLine,
                     .scene = std::string(scene.name()),
                     .backend = options.backend == BackendKind::Cuda ? "cuda" : "cpu",
                     .bodies = scene.count(options.scene),
                     .frames = options.frames,
                     .warmup = options.warmup,
                     .framesInFlight = options.framesInFlight,
                     .width = options.scene.render.width,
                     .height = options.scene.render.height,
                     .simOnly = options.simOnly,
                     .throttleWait = std::string(render::throttleWaitName(options.throttleWait))};
  report.countNoun = std::string(scene.countNoun());
  scene.runBench(options, report); // the scene's variants, and its own header figures
  fillRatios(report);
  return report;
}
int runBenchCommand(const BenchOptions& requested) {
  BenchOptions options = requested;
  options.waitTimeout = flooredWaitTimeout(options.waitTimeout);
  // Ctrl-C, SIGTERM, SIGHUP: the variant in progress stops after its frame in flight, both APIs drain, the later
  // variants are skipped, and the figures of the frames measured so far are printed and written ("interrupted").
  warnIfSlow(options.scene, options.backend); // minutes per frame: said before any work
  BenchReport report = runBench(options);
  report.interrupted = interruptRequested();
  if (options.rank && options.rank->place.rank != 0) // one report for the job: rank 0's
    return report.interrupted ? interruptExitCode() : kExitOk;
  std::fputs(toTable(report).c_str(), stdout);
  flushStandardOutput();
  if (options.json) {
    writeOutput(*options.json, toJson(report).dump(2) + "\n");
    std::fprintf(stderr, "graphsim bench: wrote %s\n", options.json->c_str());
  }
  if (options.csv) {
    writeOutput(*options.csv, toCsv(report));
    std::fprintf(stderr, "graphsim bench: wrote %s\n", options.csv->c_str());
  }
  if (options.frameLog) {
    writeOutput(*options.frameLog, FrameLog::kCsvHeader + report.frameLogCsv);
    std::fprintf(stderr, "graphsim bench: wrote %s\n", options.frameLog->c_str());
  }
  std::uint64_t messages = 0;
  for (const VariantResult& v : report.variants) messages += v.validationMessages;
  if (options.validation) {
    std::fprintf(stderr, "graphsim bench: validation messages: %llu\n", static_cast<unsigned long long>(messages));
    if (messages > 0) return kExitInternal;
  }
  if (report.interrupted) {
    std::fprintf(stderr, "graphsim bench: %s; both APIs drained and released\n", interruptedReason().c_str());
    return interruptExitCode();
  }
  return kExitOk;
}

} // namespace graphsim::app
