#include "app/video/video_recorder.h"

#include <cstdio>
#include <stdexcept>

#include "app/base/progress.h"

namespace graphsim::app {

VideoRecorder::VideoRecorder(const VideoSettings& settings, render::ParticleRenderer& renderer)
    : writer_(settings), renderer_(renderer) {}

void VideoRecorder::stepped(std::uint64_t k, const FrameTimes& /*times*/) {
  if (count_ == pending_.size())
    throw std::logic_error("VideoRecorder: more frames in flight than the protocol allows");
  pending_[(first_ + count_) % pending_.size()] = k;
  ++count_;
}

void VideoRecorder::completed(std::uint64_t k) {
  while (count_ > 0 && pending_[first_] <= k) {
    const std::uint64_t frame = pending_[first_];
    first_ = (first_ + 1) % pending_.size();
    --count_;
    collect(frame);
  }
}

void VideoRecorder::collectPending() {
  while (count_ > 0) {
    const std::uint64_t frame = pending_[first_];
    first_ = (first_ + 1) % pending_.size();
    --count_;
    collect(frame); // finishCapture waits (bounded) for the frame's render
  }
}

void VideoRecorder::collect(std::uint64_t k) {
  std::vector<std::uint8_t> pixels = writer_.takeBuffer();
  renderer_.finishCapture(k, pixels);
  const render::RendererConfig& size = renderer_.config();
  writer_.enqueue(std::move(pixels), size.width, size.height);
}

void VideoRecorder::finish() {
  collectPending(); // nothing left after a drain; a run that ended between a step and its completion, collected
  const VideoStats stats = writer_.finish();
  endProgressLine();
  std::fprintf(stderr, "graphsim: wrote video %s\n", describeVideo(writer_.settings(), stats).c_str());
}

} // namespace graphsim::app
