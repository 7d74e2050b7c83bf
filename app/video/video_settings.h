// What a video is asked to be (--video, --video-codec, --video-fps, --video-quality), and the codecs graphsim knows.
//
// Every codec is a software encoder from Debian's FFmpeg (libavcodec): no GPU, no licence key, the same output on a
// workstation and a display-less server. Quality is the encoder's constant rate factor (CRF): 0 is the best (x264,
// x265: lossless in YUV 4:2:0), higher is smaller; each codec has its own range and default (docs/VIDEO.md).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace graphsim::app {

struct VideoCodec {
  std::string_view name;    // --video-codec
  std::string_view encoder; // libavcodec's encoder
  int maxQuality = 51;      // CRF range 0..maxQuality
  int defaultQuality = 23;
  // Private options of the encoder (av_opt_set on its context): speed presets chosen so that 1080p keeps up with a
  // fast frame loop on a 16-core host, and the encoders' own console logging silenced (errors still reach us).
  std::array<std::pair<std::string_view, std::string_view>, 4> options{};
};

inline constexpr std::array<VideoCodec, 4> kVideoCodecs = {{
    {"h264", "libx264", 51, 23, {{{"preset", "veryfast"}}}},
    {"hevc", "libx265", 51, 28, {{{"preset", "veryfast"}, {"x265-params", "log-level=error"}}}},
    {"vp9", "libvpx-vp9", 63, 31, {{{"deadline", "realtime"}, {"cpu-used", "8"}, {"row-mt", "1"}}}},
    {"av1", "libsvtav1", 63, 35, {{{"preset", "10"}}}},
}};

struct VideoSettings {
  std::filesystem::path path; // .mp4
  const VideoCodec* codec = &kVideoCodecs[0];
  int fps = 60;                                 // frames per second of playback: one video frame per rendered frame
  int quality = kVideoCodecs[0].defaultQuality; // CRF, 0..codec->maxQuality
  std::uint32_t width = 0, height = 0;          // the video's size; frames of another size are scaled to it
};

inline constexpr int kMaxVideoFps = 240;

// The codec called `name`, or nullptr.
const VideoCodec* findVideoCodec(std::string_view name);
// Whether this build of libavcodec has the codec's encoder.
bool videoEncoderAvailable(const VideoCodec& codec);
// "h264 (libx264), hevc (libx265), vp9 (libvpx-vp9), av1 (libsvtav1, not in this FFmpeg)": for --help and refusals.
std::string videoCodecList();

} // namespace graphsim::app
