// `graphsim run --video` and `graphsim bench --video` as a user runs them (headless, CPU backend: lavapipe in CI), the
// mp4 decoded back with FFmpeg's libraries; and every refusal (exit 2) before the run starts, leaving nothing behind.
#include <gtest/gtest.h>

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_PNG
#include <stb/stb_image.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/cli/run_graphsim.h"
#include "tests/video/video_test_support.h"

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;

// A small render size keeps the runs quick on lavapipe; 64 bodies keep the CPU backend's step short.
fs::path smallConfig(const fs::path& dir, int width = 320, int height = 240) {
  const fs::path config = dir / "small.json";
  writeText(config,
            "{\"render\": {\"width\": " + std::to_string(width) + ", \"height\": " + std::to_string(height) + "}}");
  return config;
}

std::vector<std::string> headlessRun(const fs::path& dir, const std::string& frames, const std::string& bodies = "64") {
  return {"run",    "--headless", "--backend", "cpu",      "--bodies",
          bodies,   "--frames",   frames,      "--config", (dir / "small.json").string(),
          "--quiet"};
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// The luma plane a BT.709 limited-range encoder makes of an RGBA PNG (what app/video/video_encoder.cpp asks of
// libswscale).
std::vector<std::uint8_t> lumaOfPng(const fs::path& png, int& width, int& height) {
  int channels = 0;
  stbi_uc* rgba = stbi_load(png.c_str(), &width, &height, &channels, 4);
  std::vector<std::uint8_t> luma;
  if (rgba == nullptr) return luma;
  luma.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
  for (std::size_t i = 0; i < luma.size(); ++i) {
    const stbi_uc* p = rgba + 4 * i;
    const double y = 16 + 219 * (0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]) / 255;
    luma[i] = static_cast<std::uint8_t>(y + 0.5);
  }
  stbi_image_free(rgba);
  return luma;
}

// Pixels whose luma differs by more than the encoder's noise.
int changedPixels(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  if (a.size() != b.size()) return -1;
  int changed = 0;
  for (std::size_t i = 0; i < a.size(); ++i) changed += std::abs(int{a[i]} - int{b[i]}) > 24 ? 1 : 0;
  return changed;
}

TEST(VideoRun, HeadlessRunWritesEveryFrameAtTheRenderSize) {
  const fs::path dir = freshDir("every-frame");
  smallConfig(dir);
  const fs::path video = dir / "run.mp4";
  const ProcessResult r = runGraphsim(with(headlessRun(dir, "30"), {"--video", video.string()}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_CONTAINS(r.err, "graphsim: wrote video " + video.string() + ": 30 frames, 320x240 h264 (libx264)");
  const DecodedVideo v = decodeVideo(video);
  ASSERT_EQ(v.error, "");
  EXPECT_EQ(v.codec, "h264");
  EXPECT_EQ(v.frames, 30);
  EXPECT_EQ(v.width, 320);
  EXPECT_EQ(v.height, 240);
  EXPECT_DOUBLE_EQ(v.fps, 60);
  EXPECT_TRUE(temporariesIn(dir).empty());
}

TEST(VideoRun, RateAndQualityAreTheFlags) {
  const fs::path dir = freshDir("rate-quality");
  smallConfig(dir);
  const fs::path video = dir / "run.mp4";
  const ProcessResult r = runGraphsim(
      with(headlessRun(dir, "8"), {"--video", video.string(), "--video-fps", "24", "--video-quality", "40"}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_CONTAINS(r.err, "quality 40 at 24 fps");
  const DecodedVideo v = decodeVideo(video);
  ASSERT_EQ(v.error, "");
  EXPECT_EQ(v.frames, 8);
  EXPECT_DOUBLE_EQ(v.fps, 24);
}

// The video's last frame is the frame --capture writes: same orientation, same colours (CRF 0: only the RGB -> YUV
// conversion and its rounding differ).
TEST(VideoRun, FramesAreWhatTheCaptureShows) {
  const fs::path dir = freshDir("matches-capture");
  smallConfig(dir);
  const fs::path video = dir / "run.mp4", png = dir / "last.png";
  const ProcessResult r = runGraphsim(
      with(headlessRun(dir, "10"), {"--video", video.string(), "--video-quality", "0", "--capture", png.string()}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const DecodedVideo v = decodeVideo(video);
  ASSERT_EQ(v.error, "");
  ASSERT_EQ(v.frames, 10);
  int width = 0, height = 0;
  const std::vector<std::uint8_t> expected = lumaOfPng(png, width, height);
  ASSERT_EQ(width, v.width);
  ASSERT_EQ(height, v.height);
  EXPECT_LT(meanAbsDiff(v.lastLuma, expected), 1.0);
  // And the picture is not blank: the bodies stand out from the background.
  const auto [lo, hi] = std::minmax_element(expected.begin(), expected.end());
  EXPECT_GT(*hi - *lo, 50);
}

// Headless with --panel the panel is drawn over the particles, and the video shows it (as the window would).
TEST(VideoRun, RecordsThePanelWhenItIsShown) {
  const fs::path dir = freshDir("panel");
  smallConfig(dir, 640, 480);
  const fs::path plain = dir / "plain.mp4", panel = dir / "panel.mp4";
  const ProcessResult a = runGraphsim(with(headlessRun(dir, "4"), {"--video", plain.string()}));
  const ProcessResult b = runGraphsim(with(headlessRun(dir, "4"), {"--video", panel.string(), "--panel"}));
  ASSERT_EQ(a.exitCode, 0) << a.err;
  ASSERT_EQ(b.exitCode, 0) << b.err;
  const DecodedVideo va = decodeVideo(plain), vb = decodeVideo(panel);
  ASSERT_EQ(va.frames, 4);
  ASSERT_EQ(vb.frames, 4);
  EXPECT_GT(meanAbsDiff(va.lastLuma, vb.lastLuma), 2.0);
}

TEST(VideoRun, CameraPathMovesTheCamera) {
  const fs::path dir = freshDir("camera-path");
  smallConfig(dir);
  const fs::path path = dir / "orbit.json";
  // 30 frames at 30 fps: one second, from the preset's camera (yaw -20, pitch 30, distance 11) a third of a turn
  // round and closer.
  writeText(path, R"([{"time": 0, "yaw": -20, "pitch": 30, "distance": 11, "target": [0, 0, 0]},
                      {"time": 0.5, "yaw": 40, "pitch": 20, "distance": 8, "target": [0, 0.2, 0]},
                      {"time": 1, "yaw": 100, "pitch": 5, "distance": 6, "target": [0, 0, 0]}])");
  const fs::path still = dir / "still.mp4", moving = dir / "moving.mp4";
  const ProcessResult a = runGraphsim(
      with(headlessRun(dir, "30", "1024"), {"--video", still.string(), "--video-fps", "30", "--video-quality", "0"}));
  const ProcessResult b =
      runGraphsim(with(headlessRun(dir, "30", "1024"), {"--video", moving.string(), "--video-fps", "30",
                                                        "--video-quality", "0", "--camera-path", path.string()}));
  ASSERT_EQ(a.exitCode, 0) << a.err;
  ASSERT_EQ(b.exitCode, 0) << b.err;
  const DecodedVideo va = decodeVideo(still), vb = decodeVideo(moving);
  ASSERT_EQ(vb.error, "");
  EXPECT_EQ(vb.frames, 30);
  EXPECT_EQ(vb.width, 320);
  // The same camera at time 0, another one by the end: the same bodies seen from elsewhere (CRF 0: no encoder noise).
  EXPECT_LT(changedPixels(va.firstLuma, vb.firstLuma), 20);
  EXPECT_GT(changedPixels(va.lastLuma, vb.lastLuma), 2000);
}

TEST(VideoRun, CameraPathWithoutVideoRuns) {
  const fs::path dir = freshDir("camera-path-alone");
  smallConfig(dir);
  writeText(dir / "p.json", R"([{"time": 0, "yaw": 0, "pitch": 0, "distance": 5, "target": [0, 0, 0]}])");
  const ProcessResult r = runGraphsim(with(headlessRun(dir, "3"), {"--camera-path", (dir / "p.json").string()}));
  EXPECT_EQ(r.exitCode, 0) << r.err;
}

// A run that fails (here a blow-up, exit 1) leaves the earlier file as it was and no temporary beside it.
TEST(VideoRun, FailedRunLeavesTheEarlierFileAndNoTemporary) {
  const fs::path dir = freshDir("failed");
  smallConfig(dir);
  const fs::path video = dir / "run.mp4";
  writeText(video, "the earlier video");
  const ProcessResult r =
      runGraphsim(with(headlessRun(dir, "30"), {"--video", video.string(), "--inject", "non-finite@20"}));
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_EQ(readText(video), "the earlier video");
  EXPECT_TRUE(temporariesIn(dir).empty());
  EXPECT_EQ(r.err.find("wrote video"), std::string::npos) << r.err;
}

// In a window (Xvfb + lavapipe in CI; skipped without a display): the frames in flight are collected before a resize,
// frames of the new size are scaled to the video's, and a minimised window adds none.
TEST(VideoWindow, RecordsThroughAResizeAndAMinimise) {
  GRAPHSIM_REQUIRE_DISPLAY();
  const fs::path dir = freshDir("window");
  smallConfig(dir);
  const fs::path video = dir / "window.mp4";
  const ProcessResult r = runGraphsim({"run", "--backend", "cpu", "--bodies", "64", "--frames", "30", "--config",
                                       (dir / "small.json").string(), "--video", video.string(), "--window-script",
                                       "10:resize=400x300,20:minimise,22:restore", "--quiet"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const DecodedVideo v = decodeVideo(video);
  ASSERT_EQ(v.error, "");
  EXPECT_EQ(v.frames, 30);
  EXPECT_EQ(v.width, 320);
  EXPECT_EQ(v.height, 240);
  EXPECT_TRUE(temporariesIn(dir).empty());
}

TEST(VideoBench, WritesTheMeasuredFramesAsOneVideo) {
  const fs::path dir = freshDir("bench");
  smallConfig(dir);
  const fs::path video = dir / "bench.mp4";
  const ProcessResult r = runGraphsim({"bench", "--backend", "cpu", "--bodies", "64", "--frames", "12", "--warmup", "5",
                                       "--variants", "none", "--video", video.string(), "--quiet"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_CONTAINS(r.err, "graphsim bench: wrote video " + video.string() + ": 12 frames");
  const DecodedVideo v = decodeVideo(video);
  ASSERT_EQ(v.error, "");
  EXPECT_EQ(v.frames, 12); // the warm-up's 5 are not in it
  EXPECT_EQ(v.width, 1280);
  EXPECT_EQ(v.height, 720);
  EXPECT_TRUE(temporariesIn(dir).empty());
}

// Refusals: exit 2 before any work, one line naming the flag, nothing written.
struct Refusal {
  std::vector<std::string> args;
  std::string message;
};

void expectRefused(const fs::path& dir, const Refusal& refusal) {
  const ProcessResult r = runGraphsim(refusal.args, 30);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(r.err.rfind("graphsim: error: ", 0), 0u) << r.err;
  EXPECT_CONTAINS(r.err, refusal.message);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    EXPECT_TRUE(e.path().extension() == ".json") << "left behind: " << e.path();
}

TEST(VideoRefusal, UnknownCodecListsTheSupportedOnes) {
  const fs::path dir = freshDir("unknown-codec");
  smallConfig(dir);
  expectRefused(dir, {with(headlessRun(dir, "5"), {"--video", (dir / "a.mp4").string(), "--video-codec", "mpeg2"}),
                      "--video-codec mpeg2: unknown codec (supported: h264 (libx264), hevc (libx265), vp9 "
                      "(libvpx-vp9), av1 (libsvtav1"});
}

// Issue 31: SVT-AV1 printed its own "Svt[error]: ... must be at least 64" lines before graphsim's refusal.
TEST(VideoRefusal, AnEncodersRefusalIsGraphsimsLineAlone) {
  const fs::path dir = freshDir("av1-small");
  smallConfig(dir, 66, 34);
  const ProcessResult r =
      runGraphsim(with(headlessRun(dir, "5"), {"--video", (dir / "a.mp4").string(), "--video-codec", "av1"}), 30);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_CONTAINS(r.err, "graphsim: error: --video-codec av1: libsvtav1 refused 66x34");
  EXPECT_EQ(r.err.find("Svt["), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "a.mp4"));
}

TEST(VideoRefusal, OddSizeIsNamed) {
  const fs::path dir = freshDir("odd-size");
  smallConfig(dir, 321, 240);
  expectRefused(dir, {with(headlessRun(dir, "5"), {"--video", (dir / "a.mp4").string()}),
                      "--video: the frame size 321x240 has an odd width; h264 in YUV 4:2:0 needs an even width and "
                      "height"});
  smallConfig(dir, 320, 239);
  expectRefused(dir, {with(headlessRun(dir, "5"), {"--video", (dir / "a.mp4").string()}),
                      "--video: the frame size 320x239 has an odd height"});
}

TEST(VideoRefusal, MissingDirectory) {
  const fs::path dir = freshDir("missing-dir");
  smallConfig(dir);
  const std::string path = (dir / "no" / "a.mp4").string();
  expectRefused(dir, {with(headlessRun(dir, "5"), {"--video", path}),
                      "--video " + path + ": directory " + (dir / "no").string() + " does not exist"});
}

TEST(VideoRefusal, PathIsADirectory) {
  const fs::path dir = freshDir("is-dir");
  smallConfig(dir);
  fs::create_directory(dir / "d.mp4");
  const std::string path = (dir / "d.mp4").string();
  const ProcessResult r = runGraphsim(with(headlessRun(dir, "5"), {"--video", path}), 30);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_CONTAINS(r.err, "graphsim: error: --video " + path + ": is a directory");
  EXPECT_TRUE(fs::is_empty(dir / "d.mp4"));
}

TEST(VideoRefusal, NameTooLong) {
  const fs::path dir = freshDir("long-name");
  smallConfig(dir);
  const std::string name = std::string(300, 'v') + ".mp4";
  expectRefused(dir, {with(headlessRun(dir, "5"), {"--video", (dir / name).string()}),
                      "the file name is 304 characters, over this file system's limit of 255"});
}

TEST(VideoRefusal, NotAnMp4) {
  const fs::path dir = freshDir("not-mp4");
  smallConfig(dir);
  const std::string path = (dir / "a.avi").string();
  expectRefused(dir, {with(headlessRun(dir, "5"), {"--video", path}), "--video " + path + ": must end in .mp4"});
  expectRefused(dir, {with(headlessRun(dir, "5"), {"--video", (dir / ".mp4").string()}),
                      "the file name needs a stem before .mp4"});
}

TEST(VideoRefusal, VideoFlagsNeedVideo) {
  const fs::path dir = freshDir("needs-video");
  smallConfig(dir);
  expectRefused(dir, {with(headlessRun(dir, "5"), {"--video-fps", "30"}), "--video-fps: needs --video PATH.mp4"});
  expectRefused(dir, {with(headlessRun(dir, "5"), {"--video-codec", "hevc"}), "--video-codec: needs --video"});
}

TEST(VideoRefusal, QualityAndRateOutOfRange) {
  const fs::path dir = freshDir("ranges");
  smallConfig(dir);
  const std::string path = (dir / "a.mp4").string();
  expectRefused(dir, {with(headlessRun(dir, "5"), {"--video", path, "--video-quality", "52"}),
                      "--video-quality: must be 0..51, got 52 (the CRF range of h264)"});
  expectRefused(
      dir, {with(headlessRun(dir, "5"), {"--video", path, "--video-fps", "0"}), "--video-fps: must be 1..240, got 0"});
  expectRefused(dir, {with(headlessRun(dir, "5"), {"--video", path, "--video-fps", "sixty"}),
                      "--video-fps: must be a whole number 1..240, got sixty"});
}

TEST(VideoRefusal, NothingToRecord) {
  const fs::path dir = freshDir("nothing");
  smallConfig(dir);
  expectRefused(dir, {with(headlessRun(dir, "0"), {"--video", (dir / "a.mp4").string()}),
                      "--video: --frames 0 renders nothing to record"});
}

TEST(VideoRefusal, BenchSimOnlyAndCaptures) {
  const fs::path dir = freshDir("bench-refusals");
  const std::string path = (dir / "b.mp4").string();
  expectRefused(dir, {{"bench", "--backend", "cpu", "--sim-only", "--video", path},
                      "--video: --sim-only renders nothing to record"});
  expectRefused(dir, {{"bench", "--backend", "cpu", "--video", path, "--capture-every", "2", "--capture-dir",
                       (dir / "png").string()},
                      "--video: records every measured frame itself; give --video or --capture-every, not both"});
}

TEST(VideoHelp, SaysWhatIsRecordedAndTheQualityScale) {
  const ProcessResult run = runGraphsim({"run", "--help"});
  EXPECT_EQ(run.exitCode, 0);
  EXPECT_CONTAINS(run.out, "the panel too while it is visible");
  EXPECT_CONTAINS(run.out, "Constant rate factor: 0 best, higher smaller; h264 0..51 (default 23)");
  EXPECT_CONTAINS(run.out, "--camera-path");
  const ProcessResult bench = runGraphsim({"bench", "--help"});
  EXPECT_CONTAINS(bench.out, "the product path's measured frames");
}

TEST(CameraPathRefusal, FilesThatAreNotAPath) {
  const fs::path dir = freshDir("camera-refusals");
  smallConfig(dir);
  const auto refused = [&](const std::string& name, const std::string& text, const std::string& message) {
    const fs::path file = dir / (name + ".json");
    writeText(file, text);
    expectRefused(dir, {with(headlessRun(dir, "5"), {"--camera-path", file.string()}),
                        "--camera-path " + file.string() + ": " + message});
  };
  refused("bad-json", "[{\"time\": 0,", "not valid JSON");
  refused("object", R"({"time": 0})", "top level must be a non-empty array of keyframes");
  refused("empty", "[]", "top level must be a non-empty array of keyframes");
  refused("missing", R"([{"time": 0, "yaw": 0, "pitch": 0, "target": [0, 0, 0]}])",
          "[0].distance is missing (a keyframe is {\"time\": s, \"yaw\": deg, \"pitch\": deg, \"distance\": d, "
          "\"target\": [x, y, z]})");
  refused("order",
          R"([{"time": 1, "yaw": 0, "pitch": 0, "distance": 5, "target": [0, 0, 0]},
              {"time": 1, "yaw": 9, "pitch": 0, "distance": 5, "target": [0, 0, 0]}])",
          "[1].time 1 must be greater than [0].time 1 (times increase strictly)");
  refused("pitch", R"([{"time": 0, "yaw": 0, "pitch": 95, "distance": 5, "target": [0, 0, 0]}])",
          "[0].pitch must be in [-89, 89], got 95");
  refused("distance", R"([{"time": 0, "yaw": 0, "pitch": 0, "distance": -1, "target": [0, 0, 0]}])",
          "[0].distance must be in [0.001, 1e+06], got -1");
  refused("target", R"([{"time": 0, "yaw": 0, "pitch": 0, "distance": 5, "target": [0, 0]}])",
          "[0].target must be an array of 3 numbers, got an array of 2");
  refused("unknown", R"([{"time": 0, "yaw": 0, "pitch": 0, "distance": 5, "target": [0, 0, 0], "roll": 3}])",
          "[0].roll is not a known key (allowed: time, yaw, pitch, distance, target)");
  refused("twice", R"([{"time": 0, "time": 1, "yaw": 0, "pitch": 0, "distance": 5, "target": [0, 0, 0]}])",
          "key \"time\" appears twice in one object");
  const std::string missingFile = (dir / "none.json").string();
  expectRefused(dir, {with(headlessRun(dir, "5"), {"--camera-path", missingFile}),
                      "--camera-path " + missingFile + ": no such file"});
  expectRefused(dir, {with(headlessRun(dir, "5"), {"--camera-path", dir.string()}),
                      "--camera-path " + dir.string() + ": is a directory, expected a JSON file"});
}

} // namespace
} // namespace graphsim::test
