#include "app/bench/bench_capture.h"

#include <algorithm>
#include <cstdio>
#include <span>

#include "app/base/output_paths.h"
#include "app/base/progress.h"
#include "app/bench/bench_options.h"
#include "app/io/output_file.h"
#include "app/video/video_writer.h"
#include "render/particle_renderer.h"

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;

std::string numbered(std::uint64_t frame, const char* extension) {
  return numberedName(kBenchCaptureStem, frame + 1, extension);
}

nlohmann::ordered_json paramsJson(const NBodyParams& p) {
  return {{"dt", p.dt},
          {"G", p.G},
          {"softening", p.softening},
          {"damping", p.damping},
          {"attractor_strength", p.attractorStrength},
          {"attractor_pos", {p.attractorPos[0], p.attractorPos[1], p.attractorPos[2]}},
          {"boundary_radius", p.boundaryRadius},
          {"colour_scale", p.colourScale}};
}

} // namespace

nlohmann::ordered_json captureSidecar(std::uint64_t frame, bool warmup, const std::string& variant,
                                      const NBodyConfig& scene, const std::vector<NodeInfo>& nodes) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const NodeInfo& n : nodes) {
    list.push_back({{"name", n.name}, {"type", n.type}, {"enabled", n.enabled}, {"togglable", n.togglable}});
  }
  const std::uint64_t steps = (frame + 1) * static_cast<std::uint64_t>(scene.substeps);
  return {{"frame", frame + 1},
          {"frame_index", frame},
          {"image", numbered(frame, ".png")},
          {"warmup", warmup},
          {"variant", variant},
          {"steps", steps},
          // dt is constant during a bench run, so the simulated time is steps x dt.
          {"sim_time", static_cast<double>(steps) * static_cast<double>(scene.params.dt)},
          {"scene", scene.scene},
          {"initial", scene.initial},
          {"bodies", scene.bodies},
          {"seed", scene.seed},
          {"substeps", scene.substeps},
          {"params", paramsJson(scene.params)},
          {"nodes", std::move(list)}};
}

CaptureWriter::CaptureWriter(fs::path dir, std::uint32_t width, std::uint32_t height)
    : dir_(std::move(dir)), width_(width), height_(height) {
  // PNG encoding (stb, zlib level 8) of a 1280x720 frame takes tens of milliseconds: a few encoders keep up with a
  // capture every few frames of a fast scene, and leave the frame loop's own core alone on small machines.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const unsigned threads = std::clamp(cores / 2, 1u, kMaxWorkers);
  // Pixel buffers for the captures in flight, allocated and zero-filled (so their pages are mapped) here rather
  // than in the frame loop: a fresh 3.7 MB buffer cost the loop ~3 ms in page faults on the H200 host, the copy into
  // a mapped one ~0.5 ms. As many as can be in use at once (the queue and one per worker), within 64 MB; beyond
  // that takeBuffer() allocates.
  const std::size_t frameBytes = std::size_t{width} * height * 4;
  maxSpare_ = kMaxQueued + threads;
  const std::size_t upFront =
      std::clamp<std::size_t>((std::size_t{64} << 20) / std::max<std::size_t>(frameBytes, 1), 1, maxSpare_);
  for (std::size_t i = 0; i < upFront; ++i) spare_.emplace_back(frameBytes);
  for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

CaptureWriter::CaptureWriter(const VideoSettings& video, std::uint64_t warmup, std::uint32_t width,
                             std::uint32_t height)
    : dir_(video.path.parent_path()), width_(width), height_(height), video_(std::make_unique<VideoWriter>(video)),
      videoFrom_(warmup) {}

CaptureWriter::~CaptureWriter() {
  video_.reset(); // finished, or abandoned by a failed bench: its temporary goes
  try {
    finish();
  } catch (const std::exception& e) {
    endProgressLine();
    std::fprintf(stderr, "graphsim: capture: %s\n", e.what());
  }
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void CaptureWriter::enqueue(CapturedFrame frame) {
  if (video_) { // the warm-up's frames were read back (every frame is), but only the measured ones are encoded
    if (frame.frame < videoFrom_) {
      video_->recycle(std::move(frame.rgba));
    } else {
      video_->enqueue(std::move(frame.rgba), width_, height_);
      ++videoFrames_;
    }
    return;
  }
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queue_.size() < kMaxQueued || error_; });
  if (error_) std::rethrow_exception(error_);
  queue_.push_back(std::move(frame));
  changed_.notify_all();
}

std::vector<std::uint8_t> CaptureWriter::takeBuffer() {
  if (video_) return video_->takeBuffer();
  std::lock_guard lock(mutex_);
  if (spare_.empty()) return {};
  std::vector<std::uint8_t> buffer = std::move(spare_.back());
  spare_.pop_back();
  return buffer;
}

void CaptureWriter::finish() {
  if (video_ && videoFrames_ == 0) { // interrupted in the warm-up: an mp4 of no frame is no video
    video_.reset();                  // abandoned: nothing is left at the path
    endProgressLine();
    std::fprintf(stderr, "graphsim bench: --video: not written: the run ended before its first measured frame\n");
    return;
  }
  if (video_) {
    const VideoStats stats = video_->finish();
    endProgressLine();
    std::fprintf(stderr, "graphsim bench: wrote video %s\n", describeVideo(video_->settings(), stats).c_str());
    video_.reset();
    std::lock_guard lock(mutex_);
    written_ = stats.frames;
    return;
  }
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return (queue_.empty() && busy_ == 0) || error_; });
  if (error_) std::rethrow_exception(error_);
}

std::uint64_t CaptureWriter::written() const {
  std::lock_guard lock(mutex_);
  return written_;
}

fs::path CaptureWriter::pngPath(const fs::path& dir, std::uint64_t frame) { return dir / numbered(frame, ".png"); }

void CaptureWriter::work() {
  for (;;) {
    CapturedFrame frame;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return !queue_.empty() || stopping_; });
      if (queue_.empty()) return; // stopping, and nothing left
      frame = std::move(queue_.front());
      queue_.pop_front();
      ++busy_;
    }
    std::exception_ptr failed;
    try {
      write(frame);
    } catch (...) {
      failed = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      --busy_;
      if (failed && !error_) error_ = failed;
      if (!failed) ++written_;
      if (spare_.size() < maxSpare_) spare_.push_back(std::move(frame.rgba));
    }
    changed_.notify_all();
  }
}

// The PNG before its sidecar, each replaced atomically by the writer: a sidecar that exists names a complete PNG.
void CaptureWriter::write(const CapturedFrame& frame) const {
  const std::vector<std::uint8_t> png = render::encodePng(frame.rgba, width_, height_);
  writeOutput(pngPath(dir_, frame.frame), std::as_bytes(std::span(png)));
  writeOutput(dir_ / numbered(frame.frame, ".json"), frame.sidecar.dump(2) + "\n");
}

} // namespace graphsim::app
