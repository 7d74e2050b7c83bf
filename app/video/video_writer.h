// A video encoded on a worker thread, so that the frame loop only pays for the readback copy it cannot avoid.
//
// The loop hands over frames it collected from the renderer's readback once they were complete (app/video/
// video_recorder.h for `run`, app/bench/bench_capture.h for `bench`), in frame order, into a bounded queue; one worker
// converts, encodes and writes them in that order (the encoder runs its own threads inside). The pixel buffers go
// round: takeBuffer() gives back one the worker has finished with, allocated and mapped up front, so the loop copies
// into warm memory instead of faulting in fresh pages. When the encoder falls behind, enqueue() waits for room: the
// loop slows down, no frame is dropped; stats() says how long it waited.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app/video/video_settings.h"

namespace graphsim::app {

class VideoEncoder;

struct VideoStats {
  std::uint64_t frames = 0;        // encoded
  double encodeSeconds = 0;        // the worker's time converting, encoding and writing them
  double blockedSeconds = 0;       // the loop's time waiting in enqueue() for room in the queue
  std::uint64_t blockedFrames = 0; // enqueue() calls that had to wait
  std::size_t queueCapacity = 0;
};

class VideoWriter {
public:
  // Opens the encoder and its temporary file (UsageError: the encoder refuses the settings; OutputError: the file)
  // and starts the worker.
  explicit VideoWriter(const VideoSettings& settings);
  // Without a successful finish(): the worker stops, queued frames are dropped, and nothing is left at the path or
  // beside it (an earlier file there stays as it was).
  ~VideoWriter();
  VideoWriter(const VideoWriter&) = delete;
  VideoWriter& operator=(const VideoWriter&) = delete;

  // A buffer for the next frame: one the worker has finished with when there is one, else an empty vector.
  std::vector<std::uint8_t> takeBuffer();
  // A taken buffer that will not be enqueued (bench's warm-up frames), back to the pool.
  void recycle(std::vector<std::uint8_t> buffer);
  // The next frame, width x height RGBA8, top row first. Blocks while the queue is full; rethrows the worker's first
  // error (OutputError).
  void enqueue(std::vector<std::uint8_t> rgba, std::uint32_t width, std::uint32_t height);
  // Waits for the queued frames, flushes the encoder and renames the file into place; rethrows the first error.
  VideoStats finish();
  VideoStats stats() const;
  const VideoSettings& settings() const { return settings_; }

private:
  struct Item {
    std::vector<std::uint8_t> rgba;
    std::uint32_t width = 0, height = 0;
  };
  void work();
  void push(Item item);
  Item pop();

  VideoSettings settings_;
  std::unique_ptr<VideoEncoder> encoder_;
  std::size_t capacity_ = 2; // frames the queue holds
  std::size_t maxSpare_ = 4; // buffers kept for takeBuffer(): as many as can be in use at once
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  // The queue: a ring of capacity_ slots allocated up front, so that handing over a frame allocates nothing.
  std::vector<Item> ring_;
  std::size_t first_ = 0, queued_ = 0;
  std::vector<std::vector<std::uint8_t>> spare_;
  bool busy_ = false, stopping_ = false;
  VideoStats stats_;
  std::exception_ptr error_;
  std::thread worker_; // last: started once everything it uses exists, joined first
};

// "PATH: 600 frames, 1920x1080 h264 (libx264) CRF 23 at 60 fps, 12.3 MB; encoder 4.1 ms/frame on its thread, the loop
// waited 0.0 s for it": what run and bench print once a video is written.
std::string describeVideo(const VideoSettings& settings, const VideoStats& stats);

} // namespace graphsim::app
