#include "tests/video/video_test_support.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;

struct InputClose {
  void operator()(AVFormatContext* f) const { avformat_close_input(&f); }
};
struct CodecFree {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct FrameFree {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct PacketFree {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};

std::vector<std::uint8_t> lumaOf(const AVFrame& frame) {
  std::vector<std::uint8_t> luma(static_cast<std::size_t>(frame.width) * static_cast<std::size_t>(frame.height));
  for (int y = 0; y < frame.height; ++y)
    std::copy_n(frame.data[0] + static_cast<std::ptrdiff_t>(y) * frame.linesize[0], frame.width,
                luma.begin() + static_cast<std::ptrdiff_t>(y) * frame.width);
  return luma;
}

} // namespace

DecodedVideo decodeVideo(const fs::path& path) {
  DecodedVideo v;
  AVFormatContext* raw = nullptr;
  if (avformat_open_input(&raw, path.c_str(), nullptr, nullptr) < 0) {
    v.error = "cannot open " + path.string();
    return v;
  }
  const std::unique_ptr<AVFormatContext, InputClose> input(raw);
  if (avformat_find_stream_info(input.get(), nullptr) < 0) {
    v.error = "no stream info";
    return v;
  }
  const AVCodec* decoder = nullptr;
  const int index = av_find_best_stream(input.get(), AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
  if (index < 0 || decoder == nullptr) {
    v.error = "no video stream";
    return v;
  }
  const AVStream* stream = input->streams[index];
  const std::unique_ptr<AVCodecContext, CodecFree> codec(avcodec_alloc_context3(decoder));
  avcodec_parameters_to_context(codec.get(), stream->codecpar);
  if (avcodec_open2(codec.get(), decoder, nullptr) < 0) {
    v.error = "cannot open the decoder";
    return v;
  }
  v.codec = decoder->name;
  v.width = stream->codecpar->width;
  v.height = stream->codecpar->height;
  v.fps = av_q2d(stream->avg_frame_rate);
  const std::unique_ptr<AVFrame, FrameFree> frame(av_frame_alloc());
  const std::unique_ptr<AVPacket, PacketFree> packet(av_packet_alloc());
  const auto receive = [&] {
    while (avcodec_receive_frame(codec.get(), frame.get()) == 0) {
      if (v.frames == 0) v.firstLuma = lumaOf(*frame);
      v.lastLuma = lumaOf(*frame);
      ++v.frames;
    }
  };
  while (av_read_frame(input.get(), packet.get()) >= 0) {
    if (packet->stream_index == index && avcodec_send_packet(codec.get(), packet.get()) < 0) v.error = "bad packet";
    av_packet_unref(packet.get());
    receive();
  }
  avcodec_send_packet(codec.get(), nullptr); // drain
  receive();
  return v;
}

std::vector<std::string> temporariesIn(const fs::path& dir) {
  std::vector<std::string> found;
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind(".gs", 0) == 0) found.push_back(e.path().filename().string());
  return found;
}

fs::path freshDir(const std::string& name) {
  fs::path d = fs::path(GRAPHSIM_TEST_TMP) / name; // not const: returned by move
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void writeText(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

double meanAbsDiff(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  if (a.size() != b.size() || a.empty()) return std::numeric_limits<double>::infinity();
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += std::abs(static_cast<int>(a[i]) - static_cast<int>(b[i]));
  return sum / static_cast<double>(a.size());
}

} // namespace graphsim::test
