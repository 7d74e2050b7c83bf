// What `graphsim run` was asked to do, after parsing and validation.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/base/output_paths.h"
#include "app/faults/fault_injection.h"
#include "app/run/ranks.h"
#include "app/scenes/scene_config.h"
#include "app/video/camera_path.h"
#include "app/video/video_settings.h"
#include "render/render_types.h"
#include "render/swapchain.h"

namespace graphsim::app {

struct SessionRecording; // app/record/session_record.h

enum class BackendKind { Auto, Cpu, Cuda };

// --interop: how the CUDA backend's frames reach the renderer (app/run/open_devices.h).
enum class InteropMode {
  Auto, // shared memory and semaphores when the devices allow it, else copy through the host and say why
  On,   // shared memory and semaphores, or exit 3
  Off,  // always copy through the host
};

// A scripted window change at loop iteration `tick` (hidden --window-script, for the windowed tests).
struct WindowEvent {
  enum class Kind { Resize, Minimise, Restore } kind = Kind::Resize;
  std::uint64_t tick = 0;
  std::uint32_t width = 0, height = 0;
};

// --gpus LIST (docs/MULTI-GPU.md): CUDA device indices, the first one shared with the renderer, or every device.
struct GpuList {
  bool all = false;
  std::vector<int> indices; // in the order given; empty with `all`
};

struct RunOptions {
  SceneSettings scene;
  BackendKind backend = BackendKind::Auto;
  bool headless = false;
  std::int64_t frames = 300;                    // frames to render; 0 renders nothing but still starts up
  bool untilClosed = false;                     // windowed without --frames: run until Esc or the window closes
  std::optional<std::filesystem::path> capture; // PNG of the last frame, or the pattern for --capture-every
  std::int64_t captureEvery = 0;                // > 0: capture frames K, 2K, ... to <stem>_<frame><ext>; 0: not given
  bool validation = false;
  std::optional<int> gpu;      // CPU backend: Vulkan device index; CUDA backend: CUDA device index
  std::optional<GpuList> gpus; // --gpus: the n-body frame on several GPUs (CUDA backend)
  std::uint32_t framesInFlight = 3;
  std::optional<std::filesystem::path> dumpGraph; // CUDA backend: the frame graph as DOT
  std::chrono::milliseconds waitTimeout{5000};
  render::ThrottleWait throttleWait = render::RendererConfig{}.throttleWait;
  bool quiet = false; // no progress lines
  render::PresentMode presentMode = render::PresentMode::Fifo;
  bool profile = false; // per-node times in the panel's Graph section
  bool panel = true;    // draw the ImGui panel (windowed default; headless: --panel)
  std::vector<WindowEvent> windowScript;
  FaultPlan inject; // hidden --inject FAULT[@FRAME] (docs/RELIABILITY.md)
  InteropMode interop = InteropMode::Auto;
  // --video: every frame rendered, as the window shows it (app/video, docs/VIDEO.md); --camera-path: the camera of
  // every frame.
  std::optional<VideoSettings> video;
  std::optional<CameraPath> cameraPath;
  // Snapshots (app/snapshot, docs/SNAPSHOTS.md): --load-state's file, read and checked by the command line (the
  // scene settings above came from it), and --save-state's path (written after the last frame).
  std::shared_ptr<const SceneState> loadState;
  std::optional<std::filesystem::path> saveState;
  // Session recording (app/record, docs/RECORDING.md): --record's file and its checkpoint period; `graphsim replay`:
  // the recording this run reproduces, and the tolerance of its checkpoints when their hashes differ.
  std::optional<std::filesystem::path> record;
  std::uint64_t recordCheckpointEvery = 100;
  std::shared_ptr<const SessionRecording> replay;
  double replayTolerance = 1e-5;
  // --rendezvous: one rank of a job of one process per GPU (docs/MULTI-GPU.md, "Roles"). Rank 0 runs this session
  // with the job's frame graph; every other rank follows it headless (app/run/rank_roles.h).
  std::optional<LaunchedRank> rank;
};

// The file a capture of frame k (0-based) goes to: the --capture path itself, or with --capture-every K the
// path with "_<k+1, 6 digits>" before the extension (app/run/run_outputs.cpp).
std::filesystem::path capturePath(const RunOptions& options, std::uint64_t frame);
bool shouldCapture(const RunOptions& options, std::uint64_t frame);

// The window's own numbered outputs (F12, F5, the panel's graph dump): DIR/graphsim_frame.png and so on, DIR the
// captures' directory or the working directory; frame k's file is numberedPath(pattern, k + 1).
enum class WindowOutput { SceneCapture, Snapshot, GraphDump };
std::filesystem::path windowOutputPattern(const RunOptions& options, WindowOutput output);
// Every output the run will write (captures and their numbered names, video, the window's numbered files when a
// window or a replay can write them); the caller adds its own and calls check() before any work.
OutputRegistry registerOutputs(const RunOptions& options);

} // namespace graphsim::app
