#include "app/cli/cli.h"

#include <unistd.h>

#include <iostream>

#include <CLI/CLI.hpp>

#include "app/bench/bench_cli.h"
#include "app/cli/errors.h"
#include "app/ui/keys.h"
#include "app/ui/resize_storm.h"
#include "app/version.h"

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;

const std::string kRunFooter = std::string(R"(
Order of settings: the scene's preset (assets/scenes/<scene>.json, embedded in the binary), then --config FILE
(same keys, all optional), then the flags above.

Backends: cuda is the product (one CUDA graph per frame, Vulkan<->CUDA shared memory and timeline semaphores);
cpu runs the same stages on the CPU (reference, and for machines without an NVIDIA GPU). auto picks cuda when a
CUDA device exists, else cpu, and says so.

Window: without --headless graphsim opens a window (GLFW + Vulkan swapchain) and runs until Esc or the window
closes, or for --frames N frames when given; --capture PATH then captures the last frame with the panel.
Keys and mouse:
)") + keys::kHelp + R"(

Exit codes: 0 success, 1 internal error, CUDA error or timeout, 2 bad usage or input, 3 the machine lacks what was asked
(no Vulkan device, no CUDA device, no matching device UUID, missing extension, no display).)";

// CLI11 2.1 converts "-1" for an unsigned option by wrapping it to 2^64-1: refuse the sign before conversion.
const CLI::Validator kNotNegative(
    [](std::string& value) {
      return value.find('-') == std::string::npos ? std::string() : "must be a non-negative integer, got " + value;
    },
    "");

BackendKind parseBackend(const std::string& name) {
  if (name == "auto") return BackendKind::Auto;
  if (name == "cpu") return BackendKind::Cpu;
  if (name == "cuda") return BackendKind::Cuda;
  throw UsageError("--backend: unknown backend '" + name + "' (allowed: auto, cpu, cuda)");
}

// A capture must be creatable now: checked before any GPU work so a typo fails in milliseconds, not after a run.
void checkCapturePath(const fs::path& path) {
  if (path.extension() != ".png") throw UsageError("--capture " + path.string() + ": must end in .png");
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UsageError("--capture " + path.string() + ": directory " + dir.string() + " does not exist");
  if (::access(dir.c_str(), W_OK) != 0) throw UsageError("--capture " + path.string() + ": directory " + dir.string() + " is not writable");
  if (fs::is_directory(path, ec)) throw UsageError("--capture " + path.string() + ": is a directory");
}

std::string expandStorm(const std::string& text) {
  const std::string spec = text.substr(6);
  const std::size_t colon = spec.find(':');
  const std::string count = spec.substr(0, colon), seed = colon == std::string::npos ? "1" : spec.substr(colon + 1);
  const auto isNumber = [](const std::string& s) {
    return !s.empty() && s.size() <= 6 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!isNumber(count) || !isNumber(seed) || std::stoi(count) < 1 || std::stoi(count) > 100000)
    throw UsageError("--window-script " + text + ": want storm=N[:SEED] with N in 1..100000");
  return resizeStormScript(std::stoi(count), std::stoull(seed));
}

render::PresentMode parsePresentMode(const std::string& name) {
  if (name == "fifo") return render::PresentMode::Fifo;
  if (name == "mailbox") return render::PresentMode::Mailbox;
  if (name == "immediate") return render::PresentMode::Immediate;
  throw UsageError("--present: unknown mode '" + name + "' (allowed: fifo, mailbox, immediate)");
}

// --window-script "TICK:resize=WxH,TICK:minimise,TICK:restore" (ticks ascending): scripted window changes for tests.
// "storm=N[:SEED]" stands for N rapid resizes (app/ui/resize_storm.h).
std::vector<WindowEvent> parseWindowScript(const std::string& script) {
  const std::string text = script.rfind("storm=", 0) == 0 ? expandStorm(script) : script;
  std::vector<WindowEvent> events;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, end - pos);
    pos = end + 1;
    const auto bad = [&] {
      return UsageError("--window-script: bad item '" + item + "' (want TICK:resize=WxH, TICK:minimise or TICK:restore)");
    };
    const std::size_t colon = item.find(':');
    if (colon == std::string::npos || colon == 0) throw bad();
    WindowEvent e;
    try {
      std::size_t used = 0;
      e.tick = std::stoull(item.substr(0, colon), &used);
      if (used != colon) throw bad();
      const std::string what = item.substr(colon + 1);
      if (what == "minimise") {
        e.kind = WindowEvent::Kind::Minimise;
      } else if (what == "restore") {
        e.kind = WindowEvent::Kind::Restore;
      } else if (what.rfind("resize=", 0) == 0) {
        const std::string size = what.substr(7);
        const std::size_t x = size.find('x');
        if (x == std::string::npos) throw bad();
        const unsigned long w = std::stoul(size.substr(0, x)), h = std::stoul(size.substr(x + 1));
        if (w < 1 || h < 1 || w > kMaxImageSize || h > kMaxImageSize) throw bad();
        e.kind = WindowEvent::Kind::Resize;
        e.width = static_cast<std::uint32_t>(w);
        e.height = static_cast<std::uint32_t>(h);
      } else {
        throw bad();
      }
    } catch (const std::logic_error&) { // stoull/stoul: not a number or out of range
      throw bad();
    }
    if (!events.empty() && e.tick < events.back().tick) throw bad();
    events.push_back(e);
  }
  return events;
}

} // namespace

Command parseCommandLine(int argc, char** argv) {
  CLI::App app{"graphsim — n-body simulation: CUDA graph per frame, Vulkan renderer, shared memory and semaphores.",
               "graphsim"};
  app.set_version_flag("--version", std::string("graphsim ") + kVersion);
  app.require_subcommand(0, 1);
  app.footer("Run 'graphsim run --help' for the simulation flags.");

  RunOptions options;
  std::string scene = "nbody", backend = "auto", config;
  std::int64_t bodies = 0, frames = options.frames, captureEvery = 0, waitTimeoutMs = options.waitTimeout.count();
  std::uint64_t seed = 0;
  std::string capture, dumpGraph;
  int gpu = -1;
  std::int64_t framesInFlight = options.framesInFlight;
  std::string present = "fifo", windowScript;
  bool panel = false;

  CLI::App* run = app.add_subcommand("run", "Run a scene in a window with the graph panel, or headless with captures.");
  run->add_option("--scene", scene, "Scene to run (nbody)")->capture_default_str();
  run->add_option("--bodies", bodies, "Number of bodies (default: the preset's; 1.." + std::to_string(kMaxBodies) + ")");
  run->add_option("--backend", backend, "auto | cpu | cuda")->capture_default_str();
  run->add_flag("--headless", options.headless, "Render offscreen, no window (no display needed)");
  run->add_option("--frames", frames, "Frames to simulate and render (default: 300 headless; windowed: until closed)");
  run->add_option("--capture", capture, "Write the last frame as PNG to PATH (with --capture-every: a pattern)");
  run->add_option("--capture-every", captureEvery, "Capture every K-th frame to <stem>_<frame>.png (needs --capture)");
  CLI::Option* seedOpt = run->add_option("--seed", seed, "Seed of the initial conditions (default: the preset's)")
                             ->check(kNotNegative);
  run->add_option("--config", config, "Scene file (JSON) overriding the preset");
  run->add_flag("--validation", options.validation, "Enable the Khronos validation layer; any message fails the run");
  run->add_option("--gpu", gpu, "cpu backend: Vulkan device index; cuda backend: CUDA device index (see list-gpus)");
  run->add_option("--frames-in-flight", framesInFlight, "Frames in flight F, 1..4 (render buffers in the ring)")
      ->capture_default_str();
  run->add_option("--dump-graph", dumpGraph, "cuda backend: write the frame's CUDA graph as DOT to FILE");
  run->add_option("--wait-timeout-ms", waitTimeoutMs, "Timeout of every host wait, in ms")->capture_default_str();
  run->add_flag("--quiet", options.quiet, "No progress lines");
  run->add_option("--present", present, "Window present mode: fifo | mailbox | immediate (falls back to fifo)")
      ->capture_default_str();
  run->add_flag("--profile", options.profile,
                "Per-node times in the panel (CUDA: GPU time between event-record nodes; CPU: wall time per stage)");
  run->add_flag("--panel,!--no-panel", panel, "Draw the ImGui panel (default: on in a window, off headless)");
  // Test hook (docs/TESTING-UI.md): scripted window resizes and minimise/restore at loop iterations.
  run->add_option("--window-script", windowScript, "")->group("");
  std::string inject; // test hook (docs/RELIABILITY.md): a fault to inject, FAULT[:STAGE][@FRAME]
  run->add_option("--inject", inject, "")->group("");
  run->footer(kRunFooter);

  CLI::App* listGpus = app.add_subcommand("list-gpus", "List Vulkan devices (with UUIDs) and CUDA devices.");
  const BenchCommandLine bench(app);

  // graphsim soak (app/reliability/soak.h, docs/RELIABILITY.md): headless, live graph edits, checked against a CPU replay.
  SoakOptions soak;
  std::string soakBackend = "auto";
  std::int64_t soakTimeoutMs = soak.waitTimeout.count();
  int soakGpu = -1;
  CLI::App* soakCmd = app.add_subcommand(
      "soak", "Headless soak: seeded random toggles, parameter moves and structural changes, checked against a CPU replay.");
  soakCmd->add_option("--backend", soakBackend, "auto | cpu | cuda")->capture_default_str();
  soakCmd->add_option("--frames", soak.frames, "Frames to run")->capture_default_str();
  soakCmd->add_option("--bodies", soak.bodies, "Bodies (the CPU replay runs the same N: keep it small)")->capture_default_str();
  soakCmd->add_option("--seed", soak.seed, "Seed of the initial conditions and of the change sequence")
      ->capture_default_str()
      ->check(kNotNegative);
  soakCmd->add_option("--checkpoint-every", soak.checkpointEvery, "Frames between comparisons with the replay")
      ->capture_default_str();
  soakCmd->add_flag("--validation", soak.validation, "Enable the Khronos validation layer; any message fails the soak");
  soakCmd->add_option("--gpu", soakGpu, "As for run");
  soakCmd->add_option("--wait-timeout-ms", soakTimeoutMs, "Timeout of every host wait, in ms")->capture_default_str();
  soakCmd->add_flag("--quiet", soak.quiet, "No progress lines");
  soakCmd->footer("Prints a report (frames, changes by kind, graph updates, checkpoint errors, validation messages).\n"
                  "Exit codes as for run, and 1 when a checkpoint or the validation fails. See docs/RELIABILITY.md.");

  if (argc <= 1) {
    std::cout << app.help();
    return ExitNow{kExitOk};
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << (run->parsed()        ? run->help()
                  : listGpus->parsed() ? listGpus->help()
                  : bench.parsed()     ? bench.subcommand()->help()
                  : soakCmd->parsed()  ? soakCmd->help()
                                       : app.help());
    return ExitNow{kExitOk};
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return ExitNow{kExitOk};
  } catch (const CLI::CallForVersion&) {
    std::cout << "graphsim " << kVersion << "\n";
    return ExitNow{kExitOk};
  } catch (const CLI::ParseError& e) {
    std::cerr << "graphsim: " << e.what() << " (see --help)\n";
    return ExitNow{kExitUsage};
  }
  if (listGpus->parsed()) return ListGpusCommand{};
  if (bench.parsed()) return bench.options(argc, argv);
  if (soakCmd->parsed()) {
    soak.backend = parseBackend(soakBackend);
    if (soak.frames < 1 || soak.frames > 1'000'000'000'000)
      throw UsageError("--frames: must be 1..1000000000000, got " + std::to_string(soak.frames));
    checkBodyCount(soak.bodies, soak.framesInFlight);
    if (soak.bodies < 2) throw UsageError("--bodies: the soak needs at least 2 bodies, got " + std::to_string(soak.bodies));
    if (soak.checkpointEvery < 2)
      throw UsageError("--checkpoint-every: must be >= 2, got " + std::to_string(soak.checkpointEvery));
    if (soakCmd->count("--gpu") > 0) {
      if (soakGpu < 0) throw UsageError("--gpu: must be >= 0, got " + std::to_string(soakGpu));
      soak.gpu = soakGpu;
    }
    if (soakTimeoutMs < 1 || soakTimeoutMs > 600000)
      throw UsageError("--wait-timeout-ms: must be 1..600000, got " + std::to_string(soakTimeoutMs));
    soak.waitTimeout = std::chrono::milliseconds(soakTimeoutMs);
    return soak;
  }
  if (!run->parsed()) {
    std::cout << app.help();
    return ExitNow{kExitUsage};
  }

  options.backend = parseBackend(backend);
  options.scene = loadPreset(scene);
  if (!config.empty()) applyConfigFile(options.scene, config);
  // CLI11 2.1 saturates an out-of-range integer to INT64_MAX: a bound turns that into an error too.
  constexpr std::int64_t kMaxFrames = 1'000'000'000'000;
  if (frames < 0 || frames > kMaxFrames)
    throw UsageError("--frames: must be 0.." + std::to_string(kMaxFrames) + ", got " + std::to_string(frames));
  options.frames = frames;
  options.untilClosed = !options.headless && run->count("--frames") == 0;
  options.presentMode = parsePresentMode(present);
  options.panel = run->count("--panel") + run->count("--no-panel") > 0 ? panel : !options.headless;
  options.windowScript = parseWindowScript(windowScript);
  if (run->count("--inject") > 0 && inject.empty()) throw UsageError("--inject: empty (want FAULT[:STAGE][@FRAME])");
  options.inject = parseFault(inject);
  if (!options.windowScript.empty() && options.headless)
    throw UsageError("--window-script: needs a window (drop --headless)");
  if (framesInFlight < 1 || framesInFlight > 4)
    throw UsageError("--frames-in-flight: must be 1..4, got " + std::to_string(framesInFlight));
  options.framesInFlight = static_cast<std::uint32_t>(framesInFlight);
  if (run->count("--bodies") > 0) options.scene.sim.bodies = bodies;
  checkBodyCount(options.scene.sim.bodies, options.framesInFlight);
  if (options.scene.sim.initial == "two-body" && options.scene.sim.bodies != 2)
    throw UsageError("--bodies: the two-body initial condition needs exactly 2 bodies");
  if (seedOpt->count() > 0) options.scene.sim.seed = seed;
  if (run->count("--gpu") > 0) {
    if (gpu < 0) throw UsageError("--gpu: must be >= 0, got " + std::to_string(gpu));
    options.gpu = gpu;
  }
  if (captureEvery < 0) throw UsageError("--capture-every: must be >= 0, got " + std::to_string(captureEvery));
  if (captureEvery > 0 && capture.empty()) throw UsageError("--capture-every: needs --capture PATH.png as the name pattern");
  options.captureEvery = captureEvery;
  if (run->count("--capture") > 0 && capture.empty()) throw UsageError("--capture: empty path");
  if (!capture.empty()) {
    checkCapturePath(capture);
    options.capture = fs::path(capture);
  }
  if (!dumpGraph.empty()) {
    if (options.backend == BackendKind::Cpu) throw UsageError("--dump-graph: only the cuda backend has a CUDA graph");
    const fs::path dir = fs::path(dumpGraph).has_parent_path() ? fs::path(dumpGraph).parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw UsageError("--dump-graph " + dumpGraph + ": directory " + dir.string() + " does not exist");
    if (fs::is_directory(dumpGraph, ec)) throw UsageError("--dump-graph " + dumpGraph + ": is a directory");
    options.dumpGraph = fs::path(dumpGraph);
  }
  if (waitTimeoutMs < 1 || waitTimeoutMs > 600000)
    throw UsageError("--wait-timeout-ms: must be 1..600000, got " + std::to_string(waitTimeoutMs));
  options.waitTimeout = std::chrono::milliseconds(waitTimeoutMs);
  return options;
}

fs::path capturePath(const RunOptions& options, std::uint64_t frame) {
  if (options.captureEvery <= 0) return *options.capture;
  char number[32];
  std::snprintf(number, sizeof number, "_%06llu", static_cast<unsigned long long>(frame + 1));
  fs::path p = *options.capture;
  return p.parent_path() / (p.stem().string() + number + p.extension().string());
}

bool shouldCapture(const RunOptions& options, std::uint64_t frame) {
  if (!options.capture) return false;
  if (options.captureEvery > 0) return (frame + 1) % static_cast<std::uint64_t>(options.captureEvery) == 0;
  return frame + 1 == static_cast<std::uint64_t>(options.frames);
}

} // namespace graphsim::app
