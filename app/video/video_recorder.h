// `graphsim run --video`: the frame loop's observer that feeds the video (app/frame/frame_driver.h).
//
// Every frame the session submits asks for a capture (FrameSubmit::capture), so it is what the window shows: the
// particles and, while it is visible, the panel. Frame k's pixels are collected when the driver says k completed,
// which is right after the throttle for frame k + F: the readback is done by then and finishCapture() does not wait.
// The copy goes into a buffer from the writer's pool and onto its queue; the worker encodes (video_writer.h).
#pragma once

#include <array>
#include <cstdint>

#include "app/frame/frame_driver.h"
#include "app/video/video_writer.h"

namespace graphsim::app {

class VideoRecorder final : public FrameObserver {
public:
  // Opens the video (UsageError, OutputError) before the first frame.
  VideoRecorder(const VideoSettings& settings, render::ParticleRenderer& renderer);

  void stepped(std::uint64_t k, const FrameTimes& times) override; // frame k was submitted, with capture = true
  void completed(std::uint64_t k) override;                        // its pixels are ready: collected
  // Before the renderer resizes (its readback buffers go with the old size): waits for the frames still in flight
  // and collects them. Only on a resize, never per frame.
  void collectPending();
  // After the driver drained: the last frames are queued; waits for the encoder, writes the file and says so.
  void finish();

private:
  void collect(std::uint64_t k);

  VideoWriter writer_;
  render::ParticleRenderer& renderer_;
  // Frames submitted and not yet collected, oldest first: at most F, so a ring without allocation.
  std::array<std::uint64_t, kMaxFramesInFlight + 1> pending_{};
  std::size_t first_ = 0, count_ = 0;
};

} // namespace graphsim::app
