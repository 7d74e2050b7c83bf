#include "app/video/video_settings.h"

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace graphsim::app {

const VideoCodec* findVideoCodec(std::string_view name) {
  for (const VideoCodec& codec : kVideoCodecs)
    if (codec.name == name) return &codec;
  return nullptr;
}

bool videoEncoderAvailable(const VideoCodec& codec) {
  return avcodec_find_encoder_by_name(std::string(codec.encoder).c_str()) != nullptr;
}

std::string videoCodecList() {
  std::string list;
  for (const VideoCodec& codec : kVideoCodecs) {
    list += (list.empty() ? "" : ", ") + std::string(codec.name) + " (" + std::string(codec.encoder);
    list += videoEncoderAvailable(codec) ? ")" : ", not in this FFmpeg)";
  }
  return list;
}

} // namespace graphsim::app
