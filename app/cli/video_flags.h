// The video flags of `graphsim run` and `graphsim bench` (--video, --video-codec, --video-fps, --video-quality) and
// run's --camera-path: registered on a subcommand without a variable (CLI11 keeps what was typed) and checked after
// the parse, before any GPU work, so that a bad value fails in milliseconds with exit 2, not after a run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "app/video/camera_path.h"
#include "app/video/video_settings.h"

namespace CLI {
class App;
}

namespace graphsim::app {

// `records`: what --video records, said in its help ("Write an mp4 of <records> (docs/VIDEO.md)").
void addVideoFlags(CLI::App& command, const std::string& records);
// nullopt without --video. UsageError (exit 2): a video flag without --video, an unknown or missing codec (naming
// the ones there are), a rate or quality out of range, a width or height that is odd (YUV 4:2:0 needs even ones:
// "1279x720"), a path that cannot be written or is not a regular file.
std::optional<VideoSettings> parseVideoFlags(const CLI::App& command, std::uint32_t width, std::uint32_t height);

void addCameraPathFlag(CLI::App& command);
// nullopt without --camera-path; the path's clock is the video's rate, or 60 frames per second without a video.
std::optional<CameraPath> parseCameraPathFlag(const CLI::App& command, const std::optional<VideoSettings>& video);

} // namespace graphsim::app
