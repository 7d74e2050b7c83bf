#include "app/video/video_writer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "app/video/video_encoder.h"

namespace graphsim::app {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// Frames queued, and buffers allocated up front, within these budgets: 16 frames of 720p or 1080p, 4 of 4K.
constexpr std::size_t kQueueBytes = std::size_t{128} << 20;
constexpr std::size_t kMaxQueued = 16;
constexpr std::size_t kUpFrontBytes = std::size_t{160} << 20;

} // namespace

VideoWriter::VideoWriter(const VideoSettings& settings)
    : settings_(settings), encoder_(std::make_unique<VideoEncoder>(settings)) {
  const std::size_t frameBytes = std::max<std::size_t>(std::size_t{settings.width} * settings.height * 4, 1);
  capacity_ = std::clamp<std::size_t>(kQueueBytes / frameBytes, 2, kMaxQueued);
  stats_.queueCapacity = capacity_;
  ring_.resize(capacity_);
  // In use at once: the queue, the worker's frame and the one the loop is filling.
  maxSpare_ = capacity_ + 2;
  // Zero-filled here, so that their pages are mapped before the loop copies into them (a fresh 8 MB buffer costs
  // the loop milliseconds in page faults; see app/bench/bench_capture.cpp). Beyond the budget, takeBuffer() is empty
  // and the loop allocates.
  spare_.reserve(maxSpare_); // recycling never allocates
  const std::size_t upFront = std::clamp<std::size_t>(kUpFrontBytes / frameBytes, 1, maxSpare_);
  for (std::size_t i = 0; i < upFront; ++i) spare_.emplace_back(frameBytes);
  worker_ = std::thread([this] { work(); });
}

VideoWriter::~VideoWriter() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    while (queued_ > 0) pop(); // dropped
  }
  changed_.notify_all();
  worker_.join();
  encoder_.reset(); // unless finished: its temporary goes, the target stays as it was
}

std::vector<std::uint8_t> VideoWriter::takeBuffer() {
  const std::lock_guard lock(mutex_);
  if (spare_.empty()) return {};
  std::vector<std::uint8_t> buffer = std::move(spare_.back());
  spare_.pop_back();
  return buffer;
}

void VideoWriter::recycle(std::vector<std::uint8_t> buffer) {
  const std::lock_guard lock(mutex_);
  if (spare_.size() < maxSpare_) spare_.push_back(std::move(buffer));
}

void VideoWriter::enqueue(std::vector<std::uint8_t> rgba, std::uint32_t width, std::uint32_t height) {
  std::unique_lock lock(mutex_);
  if (queued_ >= capacity_ && !error_) {
    const auto start = Clock::now();
    changed_.wait(lock, [&] { return queued_ < capacity_ || error_; });
    stats_.blockedSeconds += seconds(start, Clock::now());
    ++stats_.blockedFrames;
  }
  if (error_) std::rethrow_exception(error_);
  push({std::move(rgba), width, height});
  changed_.notify_all();
}

VideoStats VideoWriter::finish() {
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return (queued_ == 0 && !busy_) || error_; });
    if (error_) std::rethrow_exception(error_);
  }
  // The worker is idle and nothing more is queued: the encoder is this thread's until the end.
  const auto start = Clock::now();
  encoder_->finish();
  const std::lock_guard lock(mutex_);
  stats_.encodeSeconds += seconds(start, Clock::now());
  return stats_;
}

VideoStats VideoWriter::stats() const {
  const std::lock_guard lock(mutex_);
  return stats_;
}

void VideoWriter::push(Item item) {
  ring_[(first_ + queued_) % ring_.size()] = std::move(item);
  ++queued_;
}

VideoWriter::Item VideoWriter::pop() {
  Item item = std::move(ring_[first_]);
  first_ = (first_ + 1) % ring_.size();
  --queued_;
  return item;
}

void VideoWriter::work() {
  for (;;) {
    Item item;
    bool encode = false;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return queued_ > 0 || stopping_; });
      if (stopping_) return;
      item = pop();
      encode = !error_; // after an error, frames are only recycled
      busy_ = true;
    }
    changed_.notify_all(); // room in the queue
    std::exception_ptr failed;
    double spent = 0;
    if (encode) {
      const auto start = Clock::now();
      try {
        encoder_->encode(item.rgba, item.width, item.height);
      } catch (...) {
        failed = std::current_exception();
      }
      spent = seconds(start, Clock::now());
    }
    {
      const std::lock_guard lock(mutex_);
      if (failed && !error_) error_ = failed;
      if (encode && !failed) {
        ++stats_.frames;
        stats_.encodeSeconds += spent;
      }
      busy_ = false;
      if (spare_.size() < maxSpare_) spare_.push_back(std::move(item.rgba));
    }
    changed_.notify_all();
  }
}

std::string describeVideo(const VideoSettings& settings, const VideoStats& stats) {
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(settings.path, ec);
  const double perFrameMs = stats.frames > 0 ? 1e3 * stats.encodeSeconds / static_cast<double>(stats.frames) : 0;
  char size[32] = "size unknown";
  if (!ec)
    std::snprintf(size, sizeof size, "%.1f %s", static_cast<double>(bytes) / (bytes < 1000000 ? 1e3 : 1e6),
                  bytes < 1000000 ? "kB" : "MB");
  char text[320];
  std::snprintf(text, sizeof text,
                "%llu frames, %ux%u %s (%s) quality %d at %d fps, %s; encoder %.2f ms/frame on its thread, the loop "
                "waited %.3f s for it (%llu of %llu frames, queue of %zu)",
                static_cast<unsigned long long>(stats.frames), settings.width, settings.height,
                std::string(settings.codec->name).c_str(), std::string(settings.codec->encoder).c_str(),
                settings.quality, settings.fps, size, perFrameMs, stats.blockedSeconds,
                static_cast<unsigned long long>(stats.blockedFrames), static_cast<unsigned long long>(stats.frames),
                stats.queueCapacity);
  return settings.path.string() + ": " + text;
}

} // namespace graphsim::app
