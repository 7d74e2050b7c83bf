// The video writer in-process: frames of any size in, the video's size out; its temporary named by the output
// writer's rule; a write that fails mid-video (a file-size limit: EFBIG) is an OutputError naming the file and the
// reason, and neither a failed nor an abandoned video leaves anything behind or touches the earlier file.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <random>
#include <vector>

#include "app/base/errors.h"
#include "app/io/output_file.h"
#include "app/video/video_writer.h"
#include "tests/video/video_test_support.h"

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;
using app::VideoSettings;
using app::VideoWriter;

VideoSettings settingsFor(const fs::path& path, std::uint32_t width, std::uint32_t height) {
  VideoSettings s;
  s.path = path;
  s.width = width;
  s.height = height;
  return s;
}

std::vector<std::uint8_t> gradient(std::uint32_t width, std::uint32_t height, int shift) {
  std::vector<std::uint8_t> rgba(std::size_t{width} * height * 4);
  for (std::uint32_t y = 0; y < height; ++y)
    for (std::uint32_t x = 0; x < width; ++x) {
      std::uint8_t* p = &rgba[4 * (std::size_t{y} * width + x)];
      p[0] = static_cast<std::uint8_t>(x + static_cast<std::uint32_t>(shift));
      p[1] = static_cast<std::uint8_t>(y);
      p[2] = 128;
      p[3] = 255;
    }
  return rgba;
}

std::vector<std::uint8_t> noise(std::uint32_t width, std::uint32_t height, std::mt19937& random) {
  std::vector<std::uint8_t> rgba(std::size_t{width} * height * 4);
  for (std::uint8_t& b : rgba) b = static_cast<std::uint8_t>(random());
  return rgba;
}

TEST(VideoWriter, ScalesFramesOfAnotherSizeToTheVideos) {
  const fs::path dir = freshDir("writer-scales");
  VideoWriter writer(settingsFor(dir / "v.mp4", 128, 96));
  for (int i = 0; i < 5; ++i) writer.enqueue(gradient(128, 96, i), 128, 96);
  for (int i = 0; i < 5; ++i) writer.enqueue(gradient(64, 40, i), 64, 40); // a resized window
  const app::VideoStats stats = writer.finish();
  EXPECT_EQ(stats.frames, 10u);
  const DecodedVideo v = decodeVideo(dir / "v.mp4");
  ASSERT_EQ(v.error, "");
  EXPECT_EQ(v.frames, 10);
  EXPECT_EQ(v.width, 128);
  EXPECT_EQ(v.height, 96);
  EXPECT_TRUE(temporariesIn(dir).empty());
}

TEST(VideoWriter, BuffersGoRound) {
  const fs::path dir = freshDir("writer-buffers");
  VideoWriter writer(settingsFor(dir / "v.mp4", 64, 64));
  for (int i = 0; i < 40; ++i) {
    std::vector<std::uint8_t> buffer = writer.takeBuffer();
    EXPECT_EQ(buffer.size(), 64u * 64 * 4) << "frame " << i << ": no buffer from the pool";
    buffer = gradient(64, 64, i);
    writer.enqueue(std::move(buffer), 64, 64);
  }
  EXPECT_EQ(writer.finish().frames, 40u);
}

// Beside the target while it is written: ".gs" and random characters, as long as the target's name within 6..12.
TEST(VideoWriter, TemporaryIsNeverLongerNamedThanTheTarget) {
  const fs::path dir = freshDir("writer-temporary");
  for (const std::string name : {"a.mp4", "abcdefgh.mp4", "a-long-video-name.mp4"}) {
    VideoWriter writer(settingsFor(dir / name, 32, 32));
    const std::vector<std::string> temporaries = temporariesIn(dir);
    ASSERT_EQ(temporaries.size(), 1u) << name;
    EXPECT_EQ(temporaries[0].size(), std::clamp<std::size_t>(name.size(), 6, 12)) << temporaries[0];
    EXPECT_FALSE(fs::exists(dir / name)) << "the target appears only once complete";
    writer.enqueue(gradient(32, 32, 0), 32, 32);
    writer.finish();
    EXPECT_TRUE(temporariesIn(dir).empty());
    EXPECT_TRUE(fs::exists(dir / name));
  }
}

TEST(VideoWriter, AbandonedVideoLeavesNothingAndTheEarlierFileIntact) {
  const fs::path dir = freshDir("writer-abandoned");
  writeText(dir / "v.mp4", "the earlier video");
  {
    VideoWriter writer(settingsFor(dir / "v.mp4", 64, 64));
    for (int i = 0; i < 6; ++i) writer.enqueue(gradient(64, 64, i), 64, 64);
  } // no finish(): the run failed
  EXPECT_EQ(readText(dir / "v.mp4"), "the earlier video");
  EXPECT_TRUE(temporariesIn(dir).empty());
}

// RLIMIT_FSIZE with SIGXFSZ ignored (graphsim's signal policy): writes past the limit fail with EFBIG, as a full disk
// fails with ENOSPC.
class FileSizeLimit {
public:
  explicit FileSizeLimit(rlim_t bytes) {
    previousHandler_ = std::signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &previous_);
    rlimit limit = previous_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &previous_);
    std::signal(SIGXFSZ, previousHandler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

private:
  rlimit previous_{};
  void (*previousHandler_)(int) = nullptr;
};

TEST(VideoWriter, FailedWriteIsAnOutputErrorAndLeavesNothing) {
  const fs::path dir = freshDir("writer-efbig");
  const fs::path path = dir / "v.mp4";
  writeText(path, "the earlier video");
  std::string message;
  {
    const FileSizeLimit limit(rlim_t{64} * 1024);
    std::mt19937 random(7);
    VideoSettings settings = settingsFor(path, 256, 256);
    settings.quality = 0; // noise at the best quality: about 100 kB a frame, past the limit within a few frames
    try {
      VideoWriter writer(settings);
      for (int i = 0; i < 60; ++i) writer.enqueue(noise(256, 256, random), 256, 256);
      writer.finish();
    } catch (const app::OutputError& e) {
      message = e.what();
    }
  }
  EXPECT_EQ(message, path.string() + ": File too large");
  EXPECT_EQ(readText(path), "the earlier video");
  EXPECT_TRUE(temporariesIn(dir).empty());
}

TEST(VideoWriter, EveryCodecOfThisFFmpegDecodesBack) {
  const fs::path dir = freshDir("writer-codecs");
  for (const app::VideoCodec& codec : app::kVideoCodecs) {
    if (!app::videoEncoderAvailable(codec)) continue;
    VideoSettings settings = settingsFor(dir / (std::string(codec.name) + ".mp4"), 96, 64);
    settings.codec = &codec;
    settings.quality = codec.defaultQuality;
    VideoWriter writer(settings);
    for (int i = 0; i < 8; ++i) writer.enqueue(gradient(96, 64, 4 * i), 96, 64);
    writer.finish();
    const DecodedVideo v = decodeVideo(settings.path);
    EXPECT_EQ(v.error, "") << codec.name;
    EXPECT_EQ(v.frames, 8) << codec.name;
    EXPECT_EQ(v.width, 96) << codec.name;
    EXPECT_EQ(v.height, 64) << codec.name;
  }
  EXPECT_TRUE(temporariesIn(dir).empty());
}

// The command line refuses odd sizes before the run; the encoder's own refusal, should one come, is a UsageError
// that quotes libav's reason, and the temporary created before it goes.
TEST(VideoWriter, EncoderRefusalIsAUsageErrorAndLeavesNothing) {
  const fs::path dir = freshDir("writer-refused");
  try {
    VideoWriter writer(settingsFor(dir / "v.mp4", 33, 32));
    FAIL() << "libx264 took an odd width in YUV 4:2:0";
  } catch (const app::UsageError& e) {
    EXPECT_CONTAINS(e.what(), "--video-codec h264: libx264 refused 33x32 at 60 fps, quality 23: ");
    EXPECT_CONTAINS(e.what(), "(libx264: width not divisible by 2 (33x32))");
  }
  EXPECT_TRUE(fs::is_empty(dir));
}

TEST(VideoWriter, MissingDirectoryIsAnOutputError) {
  const fs::path dir = freshDir("writer-no-dir");
  try {
    VideoWriter writer(settingsFor(dir / "no" / "v.mp4", 32, 32));
    FAIL() << "opened a video in a missing directory";
  } catch (const app::OutputError& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir / "no" / "v.mp4").string() + ": directory " + (dir / "no").string() + " does not exist");
  }
}

} // namespace
} // namespace graphsim::test
