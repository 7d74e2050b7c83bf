#include "app/bench/bench.h"

#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/bench/bench_capture.h"
#include "app/bench/bench_variants.h"
#include "app/cli/errors.h"
#include "app/io/output_file.h"
#include "app/run/open_devices.h"
#include "app/run/signals.h"
#include "compute/cuda_backend.h"
#include "compute/cuda_device.h"
#include "render/driver_info.h"
#include "render/vulkan_context.h"

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

VariantResult skipped(std::string name, std::string description, std::string reason) {
  VariantResult v;
  v.name = std::move(name);
  v.description = std::move(description);
  v.skipped = std::move(reason);
  return v;
}

std::string describe(BenchVariant v, std::uint32_t f) {
  switch (v) {
  case BenchVariant::Graph:
    return "product: one CUDA graph per frame (semaphore wait/signal nodes, individual node updates), F = " +
           std::to_string(f);
  case BenchVariant::EventSubmit:
    return "product graph; render k submitted once the host sees CUDA frame k complete (no Vulkan wait on an "
           "unsignalled simDone)";
  case BenchVariant::Stream: return "same kernels launched on a stream, cudaWait/SignalExternalSemaphoresAsync";
  case BenchVariant::WholeUpdate: return "graph rebuilt every frame and applied with cudaGraphExecUpdate";
  case BenchVariant::Reinstantiate: return "graph rebuilt and instantiated every frame";
  case BenchVariant::HostCopy:
    return "no interop: compute-only graph, device->host copy, Vulkan staging upload (vkCmdCopyBuffer)";
  case BenchVariant::Serial: return "product path with F = 1 (no pipelining)";
  }
  return {};
}

LaunchMode launchModeOf(BenchVariant v) {
  switch (v) {
  case BenchVariant::Stream: return LaunchMode::Stream;
  case BenchVariant::WholeUpdate: return LaunchMode::WholeUpdate;
  case BenchVariant::Reinstantiate: return LaunchMode::Reinstantiate;
  default: return LaunchMode::Graph;
  }
}

void fillRatios(BenchReport& report) {
  // Mean frame time (1 / fps): completions can come in bursts, so the median interval alone can mislead.
  const double product = report.variants.front().frameMs.mean;
  for (VariantResult& v : report.variants) {
    if (!v.skipped && product > 0) v.ratioToProduct = v.frameMs.mean / product;
  }
}

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

// Every variant but the product path (`product`), skipped for one reason (--sim-only).
void skipTheOthers(BenchReport& report, const BenchOptions& options, std::optional<BenchVariant> product,
                   const std::string& why) {
  for (BenchVariant v : kBenchVariants) {
    if (v == product) continue;
    report.variants.push_back(skipped(std::string(benchVariantName(v)), describe(v, options.framesInFlight), why));
  }
}

// Why a comparison variant does not run here, if it does not. cuda: the CUDA backend's data path (nullptr: cpu).
std::optional<std::string> whyNotRun(BenchVariant v, const BenchOptions& options, const DataPath* cuda) {
  if (interruptRequested()) return interruptedReason();
  if (cuda == nullptr && v != BenchVariant::Serial)
    return "needs --backend cuda (the CPU backend has no CUDA graph, stream or interop)";
  if (cuda != nullptr && !cuda->interop) {
    return v == BenchVariant::HostCopy ? "the product row above is already the host-copy path"
                                       : "needs Vulkan-CUDA interop, unavailable: " + cuda->fallbackReason;
  }
  if (v == BenchVariant::Serial && options.framesInFlight == 1)
    return "--frames-in-flight is 1: the product path is serial";
  if (v == BenchVariant::EventSubmit && options.framesInFlight == 1)
    return "needs --frames-in-flight >= 2 (the render is submitted one frame after its simulation is launched)";
  return std::nullopt;
}

// The product path with --capture-every's writer.
template <class Run>
LoopResult runProduct(const BenchOptions& options, const BenchReport& report, LoopSetup& setup, Run&& run) {
  std::optional<CaptureWriter> capture;
  if (options.captureEvery > 0) capture.emplace(*options.captureDir, report.width, report.height);
  setup.capture = capture ? &*capture : nullptr;
  LoopResult product = run();
  if (capture) capture->finish();
  setup.capture = nullptr;
  return product;
}

const CudaDeviceInfo& cudaDeviceFor(const BenchOptions& options, const CudaDeviceList& cuda) {
  const int device = options.gpu.value_or(0);
  if (cuda.devices.empty()) throw EnvironmentError("--backend cuda: " + describeCudaDevices(cuda));
  if (device >= static_cast<int>(cuda.devices.size()))
    throw EnvironmentError("--gpu " + std::to_string(device) +
                           ": no such CUDA device; have: " + describeCudaDevices(cuda));
  return cuda.devices[static_cast<std::size_t>(device)];
}

void runCuda(const BenchOptions& options, BenchReport& report) {
  const CudaDeviceList cuda = listCudaDevices();
  const CudaDeviceInfo& info = cudaDeviceFor(options, cuda);
  report.gpu = info.name;
  report.cudaVersion = cudaVersionText(cuda.driverVersion);
  report.cudaRuntime = cudaVersionText(cuda.runtimeVersion);
  report.simTimer = "cuda-events";
  report.driver = nvidiaModuleVersion().value_or("unknown");

  LoopSetup setup{&options, info.index, report.interactionsPerFrame, nullptr, "graph"};
  if (options.simOnly) {
    addRun(report, runCudaSimOnlyLoop(setup), "graph",
           "compute-only graph (no semaphore nodes, no rendering), launched back to back", 0);
    skipTheOthers(report, options, BenchVariant::Graph, "--sim-only measures the compute-only graph alone");
    return;
  }

  render::DeviceRequest request;
  request.validation = options.validation;
  std::optional<render::VulkanContext> opened;
  const DataPath path = openCudaRenderDevice(request, info, cuda, options.interop, FaultPlan{}, opened);
  report.dataPath = path.name();
  report.dataPathReason = path.fallbackReason;
  render::VulkanContext& context = *opened;
  const render::DriverInfo driver = render::describeDriver(context);
  report.vulkanDevice = driver.deviceName;
  if (!driver.driverInfo.empty()) report.driver = driver.driverInfo;

  // Without interop the product graph cannot hand frames to Vulkan: its host-copy twin stands in (and says so).
  addRun(report,
         runProduct(options, report, setup,
                    [&] {
                      return path.interop ? runInteropLoop(context, setup, LaunchMode::Graph, options.framesInFlight)
                                          : runHostCopyLoop(context, setup);
                    }),
         "graph",
         path.interop ? describe(BenchVariant::Graph, options.framesInFlight)
                      : "product graph with frames copied through the host (no interop: " + path.fallbackReason + ")",
         context.validationMessages());

  for (BenchVariant v : options.variants) {
    if (v == BenchVariant::Graph) continue; // the product path, already run
    const std::string name(benchVariantName(v));
    if (const std::optional<std::string> why = whyNotRun(v, options, &path)) {
      report.variants.push_back(skipped(name, describe(v, options.framesInFlight), *why));
      continue;
    }
    setup.variantName = name;
    const std::uint64_t messagesBefore = context.validationMessages();
    const std::uint32_t f = v == BenchVariant::Serial ? 1 : options.framesInFlight;
    LoopResult r = v == BenchVariant::HostCopy
                       ? runHostCopyLoop(context, setup)
                       : runInteropLoop(context, setup, launchModeOf(v), f, v == BenchVariant::EventSubmit);
    addRun(report, std::move(r), name, describe(v, options.framesInFlight),
           context.validationMessages() - messagesBefore);
  }
}

void runCpu(const BenchOptions& options, BenchReport& report) {
  report.simTimer = "cpu-wall";
  LoopSetup setup{&options, 0, report.interactionsPerFrame, nullptr, "cpu"};
  if (options.simOnly) {
    report.gpu = "none (cpu backend)";
    report.driver = "none";
    addRun(report, runCpuSimOnlyLoop(setup), "cpu", "the CPU backend's step, back to back (no rendering)", 0);
    skipTheOthers(report, options, std::nullopt, "--sim-only measures the simulation alone");
    return;
  }
  render::DeviceRequest request;
  request.index = options.gpu;
  request.validation = options.validation;
  render::VulkanContext context(request);
  const render::DriverInfo driver = render::describeDriver(context);
  report.gpu = driver.deviceName;
  report.vulkanDevice = driver.deviceName;
  report.driver = driver.driverName + (driver.driverInfo.empty() ? "" : " " + driver.driverInfo);
  report.dataPath = "cpu";

  addRun(report, runProduct(options, report, setup, [&] { return runCpuLoop(context, setup, options.framesInFlight); }),
         "cpu",
         "product path of the CPU backend: the stage list on the host, written to a mapped Vulkan buffer, F = " +
             std::to_string(options.framesInFlight),
         context.validationMessages());
  for (BenchVariant v : options.variants) {
    const std::string name(benchVariantName(v));
    if (const std::optional<std::string> why = whyNotRun(v, options, nullptr)) {
      report.variants.push_back(skipped(name, describe(v, options.framesInFlight), *why));
      continue;
    }
    setup.variantName = name;
    const std::uint64_t messagesBefore = context.validationMessages();
    addRun(report, runCpuLoop(context, setup, 1), name, "CPU backend's frame loop with F = 1 (no pipelining)",
           context.validationMessages() - messagesBefore);
  }
}

} // namespace

BenchReport runBench(const BenchOptions& options) {
  const SceneConfig& sim = options.scene.sim;
  BenchReport report{.date = utcNow(),
                     .commandLine = options.commandLine,
                     .scene = sim.scene,
                     .initial = sim.initial,
                     .backend = options.backend == BackendKind::Cuda ? "cuda" : "cpu",
                     .bodies = sim.bodies,
                     .substeps = sim.substeps,
                     .seed = sim.seed,
                     .frames = options.frames,
                     .warmup = options.warmup,
                     .framesInFlight = options.framesInFlight,
                     .width = options.scene.render.width,
                     .height = options.scene.render.height,
                     .simOnly = options.simOnly};
  // N^2 pairs per forces launch (the nbody sample's count: the self pair included), one launch per substep.
  const bool forces = sim.enabled[static_cast<int>(Stage::Forces)];
  report.interactionsPerFrame =
      forces ? static_cast<double>(sim.bodies) * static_cast<double>(sim.bodies) * sim.substeps : 0.0;
  if (options.backend == BackendKind::Cuda) {
    runCuda(options, report);
  } else {
    runCpu(options, report);
  }
  fillRatios(report);
  return report;
}

int runBenchCommand(const BenchOptions& options) {
  // Ctrl-C, SIGTERM, SIGHUP: the variant in progress stops after its frame in flight, both APIs drain, the later
  // variants are skipped, and the figures of the frames measured so far are printed and written ("interrupted").
  const InterruptGuard interrupts;
  BenchReport report = runBench(options);
  report.interrupted = interruptRequested();
  std::fputs(toTable(report).c_str(), stdout);
  std::fflush(stdout);
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
