#include "app/cli/video_flags.h"

#include <sys/stat.h>

#include <CLI/CLI.hpp>

#include "app/base/errors.h"
#include "app/base/output_paths.h"
#include "app/cli/cli.h"

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;

constexpr int kDefaultFps = 60;
constexpr double kPathFpsWithoutVideo = 60;

std::optional<std::string> typed(const CLI::App& command, const std::string& flag) {
  const CLI::Option* option = command.get_option_no_throw(flag);
  if (option == nullptr || option->count() == 0 || option->results().empty()) return std::nullopt;
  return option->results().back();
}

std::string qualityHelp() {
  std::string ranges;
  for (const VideoCodec& c : kVideoCodecs)
    ranges += (ranges.empty() ? "" : ", ") + std::string(c.name) + " 0.." + std::to_string(c.maxQuality) +
              " (default " + std::to_string(c.defaultQuality) + ")";
  return "Constant rate factor: 0 best, higher smaller; " + ranges;
}

fs::path checkVideoPath(const std::string& value) {
  fs::path path(value); // not const: returned by move
  const std::string shown = shownText(value, kShownPathLimit);
  if (!value.empty() && path.filename() == ".mp4")
    throw UsageError("--video " + shown + ": the file name needs a stem before .mp4 (e.g. " +
                     shownText((path.parent_path() / "run.mp4").string(), kShownPathLimit) + ")");
  if (!value.empty() && path.extension() != ".mp4") throw UsageError("--video " + shown + ": must end in .mp4");
  checkOutputPath("--video", value);
  // checkOutputPath accepts a FIFO or a device (written directly); an mp4 is not: its muxer seeks back.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw UsageError("--video " + shown +
                     ": is not a regular file (an mp4 needs a seekable file: its index is written last)");
  return path;
}

} // namespace

void addVideoFlags(CLI::App& command, const std::string& records) {
  command.add_option("--video", CLI::callback_t{}, "Write an mp4 of " + records + " (docs/VIDEO.md)")
      ->type_name("PATH");
  command.add_option("--video-codec", CLI::callback_t{}, "Video codec: " + videoCodecList())
      ->type_name("NAME")
      ->default_str(std::string(kVideoCodecs[0].name));
  command
      .add_option("--video-fps", CLI::callback_t{},
                  "Video frames per second of playback, 1.." + std::to_string(kMaxVideoFps) +
                      " (one video frame per rendered frame)")
      ->type_name("INT")
      ->default_str(std::to_string(kDefaultFps));
  command.add_option("--video-quality", CLI::callback_t{}, qualityHelp())->type_name("CRF");
}

std::optional<VideoSettings> parseVideoFlags(const CLI::App& command, std::uint32_t width, std::uint32_t height) {
  const std::optional<std::string> path = typed(command, "--video");
  if (!path) {
    for (const char* flag : {"--video-codec", "--video-fps", "--video-quality"})
      if (typed(command, flag)) throw UsageError(std::string(flag) + ": needs --video PATH.mp4");
    return std::nullopt;
  }
  VideoSettings video;
  video.path = checkVideoPath(*path);
  const std::string name = typed(command, "--video-codec").value_or(std::string(kVideoCodecs[0].name));
  video.codec = findVideoCodec(name);
  if (video.codec == nullptr)
    throw UsageError("--video-codec " + shownText(name) + ": unknown codec (supported: " + videoCodecList() + ")");
  if (!videoEncoderAvailable(*video.codec))
    throw UsageError("--video-codec " + name + ": this FFmpeg has no " + std::string(video.codec->encoder) +
                     " encoder (codecs: " + videoCodecList() + ")");
  if (const std::optional<std::string> fps = typed(command, "--video-fps"))
    video.fps = static_cast<int>(parseIntegerFlag("--video-fps", *fps, 1, kMaxVideoFps));
  video.quality = video.codec->defaultQuality;
  if (const std::optional<std::string> quality = typed(command, "--video-quality")) {
    try {
      video.quality = static_cast<int>(parseIntegerFlag("--video-quality", *quality, 0, video.codec->maxQuality));
    } catch (const UsageError& e) {
      throw UsageError(std::string(e.what()) + " (the CRF range of " + name + ")");
    }
  }
  // YUV 4:2:0 keeps one chroma sample per 2x2 pixels: the encoders refuse an odd width or height.
  if (width % 2 != 0 || height % 2 != 0)
    throw UsageError("--video: the frame size " + std::to_string(width) + "x" + std::to_string(height) +
                     " has an odd " + (width % 2 != 0 ? "width" : "height") + "; " + name +
                     " in YUV 4:2:0 needs an even width and height (render.width, render.height in the preset or "
                     "--config)");
  video.width = width;
  video.height = height;
  return video;
}

void addCameraPathFlag(CLI::App& command) {
  command
      .add_option(
          "--camera-path", CLI::callback_t{},
          "Drive the camera by orbit keyframes from a JSON file (time, yaw, pitch, distance, target; frame k at "
          "k / --video-fps s, k / 60 s without --video); the mouse no longer moves it (docs/VIDEO.md)")
      ->type_name("FILE");
}

std::optional<CameraPath> parseCameraPathFlag(const CLI::App& command, const std::optional<VideoSettings>& video) {
  const std::optional<std::string> file = typed(command, "--camera-path");
  if (!file) return std::nullopt;
  if (file->empty()) throw UsageError("--camera-path: empty path (name a JSON file, or leave --camera-path out)");
  return loadCameraPath(*file, video ? static_cast<double>(video->fps) : kPathFpsWithoutVideo);
}

} // namespace graphsim::app
