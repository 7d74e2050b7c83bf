// Captures for benchmarks: numbered PNGs plus a JSON sidecar per frame, encoded and written on worker threads so
// that the frame loop only pays for the readback it cannot avoid (docs/PERFORMANCE.md, "Capture").
//
// The loop submits frame k with capture = true and collects its pixels F frames later, right after the throttle
// says that slot is free again (the frame is complete by then, so finishCapture does not wait); the pixels and the
// sidecar go to a bounded queue. Every file goes through the output writer (app/io/output_file.h: a temporary
// beside it, fsync, rename), the PNG before its sidecar: a sidecar that exists names a complete PNG.
// With --video the same frames go, in order, to one mp4 instead (app/video/video_writer.h: one encoder thread, its
// own buffer pool and bounded queue); the warm-up's frames are read back but not encoded.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/video/video_settings.h"
#include "compute/nbody/nbody.h"
#include "compute/nbody/nbody_backend.h"

namespace graphsim::app {

struct CapturedFrame {            // NOLINT(bugprone-exception-escape): only json's own destructor can throw
  std::uint64_t frame = 0;        // 0-based index; files are numbered frame + 1, as `run --capture-every` does
  std::vector<std::uint8_t> rgba; // width x height, top row first
  nlohmann::ordered_json sidecar;
};

// The sidecar of frame k: index, simulated time and steps, scene, parameters and the enabled state of every node.
nlohmann::ordered_json captureSidecar(std::uint64_t frame, bool warmup, const std::string& variant,
                                      const NBodyConfig& scene, const std::vector<NodeInfo>& nodes);

class VideoWriter;

class CaptureWriter {
public:
  CaptureWriter(std::filesystem::path dir, std::uint32_t width, std::uint32_t height);
  // --video: frames from `warmup` on into one video (UsageError/OutputError when it cannot be opened). Destroyed
  // without a successful finish() (the bench failed), nothing is left at the video's path.
  CaptureWriter(const VideoSettings& video, std::uint64_t warmup, std::uint32_t width, std::uint32_t height);
  ~CaptureWriter(); // finishes the queue; errors are printed (call finish() to have them thrown)
  CaptureWriter(const CaptureWriter&) = delete;
  CaptureWriter& operator=(const CaptureWriter&) = delete;

  // Blocks while kMaxQueued frames are waiting: a capture rate faster than the encoders slows the loop down
  // instead of filling memory.
  void enqueue(CapturedFrame frame);
  // A pixel buffer for the next capture: an already mapped one (allocated up front, or one a worker has finished
  // with) when there is one, so that the loop copies instead of faulting in fresh pages; else an empty vector.
  std::vector<std::uint8_t> takeBuffer();
  // Waits until everything queued is written; rethrows the first write error.
  void finish();
  std::uint64_t written() const;

  static std::filesystem::path pngPath(const std::filesystem::path& dir, std::uint64_t frame);

private:
  static constexpr std::size_t kMaxQueued = 8;
  static constexpr unsigned kMaxWorkers = 4;
  void work();
  void write(const CapturedFrame& frame) const;
  std::vector<std::vector<std::uint8_t>> spare_; // written frames' pixel buffers, for takeBuffer()
  std::size_t maxSpare_ = kMaxQueued;            // as many as can be in use at once: the queue and the workers

  std::filesystem::path dir_;
  std::uint32_t width_, height_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<CapturedFrame> queue_;
  std::size_t busy_ = 0;
  bool stopping_ = false;
  std::uint64_t written_ = 0;
  std::exception_ptr error_;
  std::unique_ptr<VideoWriter> video_; // --video instead of PNGs
  std::uint64_t videoFrom_ = 0;        // the first frame encoded: the warm-up's are not
  std::uint64_t videoFrames_ = 0;      // frames given to the encoder
  std::vector<std::thread> workers_;   // last: started after everything they use exists, joined first
};

} // namespace graphsim::app
