// One video file encoded with FFmpeg's libraries, synchronously: RGBA frames in, an .mp4 out (libswscale converts to
// YUV 4:2:0 with BT.709 coefficients, libavcodec encodes, libavformat muxes into a VideoFile, which renames the
// finished file into place). VideoWriter (video_writer.h) runs it on a worker thread.
//
// Every libav call is checked. Opening fails with UsageError when the encoder refuses the settings (exit 2), and with
// OutputError "PATH: REASON" when the file cannot be created; encode() and finish() fail with OutputError (a failed
// write says the system's reason, "No space left on device", "File too large"). Destroyed before finish() returned,
// nothing is left at the target or beside it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "app/video/video_settings.h"

namespace graphsim::app {

class VideoEncoder {
public:
  explicit VideoEncoder(const VideoSettings& settings); // opens the encoder, creates the temporary, writes the header
  ~VideoEncoder();
  VideoEncoder(const VideoEncoder&) = delete;
  VideoEncoder& operator=(const VideoEncoder&) = delete;

  // One frame, width x height RGBA8, top row first; scaled to the video's size when it differs (a resized window).
  void encode(std::span<const std::uint8_t> rgba, std::uint32_t width, std::uint32_t height);
  // Flushes the encoder, writes the index and renames the file into place. Once.
  void finish();
  std::uint64_t frames() const; // encoded so far

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace graphsim::app
