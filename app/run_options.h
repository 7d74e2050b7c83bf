// What `graphsim run` was asked to do, after parsing and validation.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "app/scene_config.h"

namespace graphsim::app {

enum class BackendKind { Auto, Cpu, Cuda };

struct RunOptions {
  SceneSettings scene;
  BackendKind backend = BackendKind::Auto;
  bool headless = false;
  std::int64_t frames = 300;                     // frames to run (headless); 0 renders nothing but still starts up
  std::optional<std::filesystem::path> capture;  // PNG of the last frame, or the pattern for --capture-every
  std::int64_t captureEvery = 0;                 // > 0: capture frames K, 2K, ... to <stem>_<frame><ext>
  bool validation = false;
  std::optional<int> gpu;                        // CPU backend: Vulkan device index; CUDA backend: CUDA device index
  std::uint32_t framesInFlight = 3;
  std::optional<std::filesystem::path> dumpGraph; // CUDA backend: the frame graph as DOT
  std::chrono::milliseconds waitTimeout{5000};
  bool quiet = false;                            // no progress lines
};

// The file a capture of frame k (0-based) goes to: the --capture path itself, or with --capture-every K the
// path with "_<k+1, 6 digits>" before the extension.
std::filesystem::path capturePath(const RunOptions& options, std::uint64_t frame);
bool shouldCapture(const RunOptions& options, std::uint64_t frame);

} // namespace graphsim::app
