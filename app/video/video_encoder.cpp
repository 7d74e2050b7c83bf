#include "app/video/video_encoder.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include "app/base/errors.h"
#include "app/video/video_file.h"

namespace graphsim::app {
namespace {

// libav logs through one process-wide callback. Ours prints nothing and keeps the last error-level line, which the
// failure it explains then quotes ("... (libx264: width not divisible by 2 (33x32))"): one message, ours, per failure.
std::mutex logMutex;
std::string lastLibavError;

void logCallback(void* object, int level, const char* format, va_list args) {
  if (level > AV_LOG_ERROR) return;
  char line[512];
  int printPrefix = 1;
  av_log_format_line2(object, level, format, args, line, sizeof line, &printPrefix);
  std::string text(line);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  // "[libx264 @ 0x55d0c8a1c500] width not divisible by 2" -> "libx264: width not divisible by 2"
  if (const std::size_t close = text.find("] "); !text.empty() && text[0] == '[' && close != std::string::npos)
    text = text.substr(1, std::min(text.find(" @ "), close) - 1) + ": " + text.substr(close + 2);
  const std::lock_guard lock(logMutex);
  lastLibavError = std::move(text);
}

void installLogCallback() {
  static std::once_flag once;
  std::call_once(once, [] { av_log_set_callback(logCallback); });
}

std::string takeLibavError() {
  const std::lock_guard lock(logMutex);
  std::string text = std::move(lastLibavError);
  lastLibavError.clear();
  return text;
}

// "Invalid argument (libx264 @ 0x..: width not divisible by 2)": the code's text and what libav logged about it.
std::string libavError(int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, text, sizeof text);
  const std::string detail = takeLibavError();
  return std::string(text) + (detail.empty() ? "" : " (" + detail + ")");
}

// One owner per libav object, freed by its own function.
struct CodecContextFree {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct FormatContextFree {
  void operator()(AVFormatContext* f) const { avformat_free_context(f); } // the custom I/O context is ours
};
struct IoContextFree {
  void operator()(AVIOContext* io) const {
    av_freep(&io->buffer); // may have been reallocated by libavformat: free what it holds now
    avio_context_free(&io);
  }
};
struct FrameFree {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct PacketFree {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct ScalerFree {
  void operator()(SwsContext* s) const { sws_freeContext(s); }
};

// libavformat's I/O callbacks onto the VideoFile (FFmpeg 6.1 made the written buffer const).
#if LIBAVFORMAT_VERSION_MAJOR >= 61
int writePacket(void* file, const std::uint8_t* data, int size) {
  return static_cast<VideoFile*>(file)->write(data, size);
}
#else
int writePacket(void* file, std::uint8_t* data, int size) { return static_cast<VideoFile*>(file)->write(data, size); }
#endif
std::int64_t seekFile(void* file, std::int64_t offset, int whence) {
  return static_cast<VideoFile*>(file)->seek(offset, whence);
}

constexpr int kIoBufferBytes = 1 << 18;

} // namespace

struct VideoEncoder::Impl {
  explicit Impl(const VideoSettings& settings);

  void openEncoder();
  void openMuxer();
  void send(const AVFrame* frame); // nullptr: flush
  [[noreturn]] void failWrite(const std::string& what, int code);

  VideoSettings settings;
  // Declaration order is creation order; the file (and its temporary) goes last.
  VideoFile file;
  std::unique_ptr<AVIOContext, IoContextFree> io;
  std::unique_ptr<AVFormatContext, FormatContextFree> format;
  std::unique_ptr<AVCodecContext, CodecContextFree> codec;
  AVStream* stream = nullptr; // owned by format
  std::unique_ptr<SwsContext, ScalerFree> scaler;
  std::unique_ptr<AVFrame, FrameFree> frame;
  std::unique_ptr<AVPacket, PacketFree> packet;
  std::uint32_t sourceWidth = 0, sourceHeight = 0; // the scaler's input size
  std::uint64_t frames = 0;
  bool finished = false;
};

VideoEncoder::Impl::Impl(const VideoSettings& s) : settings(s), file(s.path) {
  installLogCallback();
  openEncoder();
  openMuxer();
  frame.reset(av_frame_alloc());
  packet.reset(av_packet_alloc());
  if (!frame || !packet) throw std::bad_alloc();
  frame->format = AV_PIX_FMT_YUV420P;
  frame->width = static_cast<int>(settings.width);
  frame->height = static_cast<int>(settings.height);
  if (const int error = av_frame_get_buffer(frame.get(), 0); error < 0)
    throw OutputError(file.path(), "allocating a video frame: " + libavError(error));
}

void VideoEncoder::Impl::openEncoder() {
  const VideoCodec& c = *settings.codec;
  const std::string flag = "--video-codec " + std::string(c.name);
  const AVCodec* encoder = avcodec_find_encoder_by_name(std::string(c.encoder).c_str());
  if (encoder == nullptr)
    throw UsageError(flag + ": this FFmpeg has no " + std::string(c.encoder) + " encoder (codecs: " + videoCodecList() +
                     ")");
  codec.reset(avcodec_alloc_context3(encoder));
  if (!codec) throw std::bad_alloc();
  codec->width = static_cast<int>(settings.width);
  codec->height = static_cast<int>(settings.height);
  codec->time_base = AVRational{1, settings.fps};
  codec->framerate = AVRational{settings.fps, 1};
  codec->pix_fmt = AV_PIX_FMT_YUV420P;
  codec->gop_size = 2 * settings.fps; // a keyframe every 2 s: seeking in a player stays quick
  codec->bit_rate = 0;                // constant quality (CRF), no bitrate target
  codec->thread_count = 0;            // the encoder's own choice (x264: 1.5 threads per core)
  // What libswscale produces (encode()): BT.709 coefficients, limited range. Players then show the rendered colours.
  codec->colorspace = AVCOL_SPC_BT709;
  codec->color_primaries = AVCOL_PRI_BT709;
  codec->color_trc = AVCOL_TRC_BT709;
  codec->color_range = AVCOL_RANGE_MPEG;
  if (av_guess_format("mp4", nullptr, nullptr)->flags & AVFMT_GLOBALHEADER) codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;

  AVDictionary* options = nullptr;
  av_dict_set(&options, "crf", std::to_string(settings.quality).c_str(), 0);
  for (const auto& [key, value] : c.options)
    if (!key.empty()) av_dict_set(&options, std::string(key).c_str(), std::string(value).c_str(), 0);
  // SVT-AV1 prints its whole configuration, and its errors, to stderr itself unless its own log level says otherwise
  // (fatal only: 0; its errors reach the refusal below through libav); a level the user set stays.
  if (c.encoder == "libsvtav1") ::setenv("SVT_LOG", "0", 0);
  takeLibavError();
  const int error = avcodec_open2(codec.get(), encoder, &options);
  const int unused = av_dict_count(options);
  av_dict_free(&options);
  if (error < 0)
    throw UsageError(flag + ": " + std::string(c.encoder) + " refused " + std::to_string(settings.width) + "x" +
                     std::to_string(settings.height) + " at " + std::to_string(settings.fps) + " fps, quality " +
                     std::to_string(settings.quality) + ": " + libavError(error));
  if (unused > 0) // an option the encoder does not know: a mistake in kVideoCodecs, not the user's
    throw std::logic_error(std::string(c.encoder) + " ignored " + std::to_string(unused) + " of graphsim's options");
}

void VideoEncoder::Impl::openMuxer() {
  AVFormatContext* raw = nullptr;
  if (const int error = avformat_alloc_output_context2(&raw, nullptr, "mp4", nullptr); error < 0)
    throw OutputError(file.path(), "the mp4 muxer: " + libavError(error));
  format.reset(raw);
  stream = avformat_new_stream(format.get(), nullptr);
  if (stream == nullptr) throw std::bad_alloc();
  if (const int error = avcodec_parameters_from_context(stream->codecpar, codec.get()); error < 0)
    throw OutputError(file.path(), "the stream's parameters: " + libavError(error));
  stream->time_base = codec->time_base;
  stream->avg_frame_rate = codec->framerate;
  // HEVC in mp4 as 'hvc1' (parameter sets in the header), the tag Apple's players require.
  if (codec->codec_id == AV_CODEC_ID_HEVC) stream->codecpar->codec_tag = MKTAG('h', 'v', 'c', '1');

  auto* buffer = static_cast<unsigned char*>(av_malloc(kIoBufferBytes));
  if (buffer == nullptr) throw std::bad_alloc();
  io.reset(avio_alloc_context(buffer, kIoBufferBytes, 1, &file, nullptr, writePacket, seekFile));
  if (!io) {
    av_free(buffer);
    throw std::bad_alloc();
  }
  format->pb = io.get();
  format->flags |= AVFMT_FLAG_CUSTOM_IO;
  if (const int error = avformat_write_header(format.get(), nullptr); error < 0) failWrite("writing the header", error);
}

void VideoEncoder::Impl::failWrite(const std::string& what, int code) {
  // A failed write says the system's reason; anything else libav's.
  throw OutputError(file.path(), file.firstError().empty() ? what + ": " + libavError(code) : file.firstError());
}

void VideoEncoder::Impl::send(const AVFrame* input) {
  if (const int error = avcodec_send_frame(codec.get(), input); error < 0)
    failWrite("encoding frame " + std::to_string(frames), error);
  for (;;) {
    const int received = avcodec_receive_packet(codec.get(), packet.get());
    if (received == AVERROR(EAGAIN) || received == AVERROR_EOF) return;
    if (received < 0) failWrite("encoding frame " + std::to_string(frames), received);
    av_packet_rescale_ts(packet.get(), codec->time_base, stream->time_base);
    packet->stream_index = stream->index;
    // Takes the packet's reference, also on failure.
    if (const int error = av_interleaved_write_frame(format.get(), packet.get()); error < 0)
      failWrite("writing frame " + std::to_string(frames), error);
  }
}

VideoEncoder::VideoEncoder(const VideoSettings& settings) : impl_(std::make_unique<Impl>(settings)) {}

VideoEncoder::~VideoEncoder() = default;

void VideoEncoder::encode(std::span<const std::uint8_t> rgba, std::uint32_t width, std::uint32_t height) {
  Impl& e = *impl_;
  if (rgba.size() != std::size_t{width} * height * 4)
    throw std::logic_error("VideoEncoder::encode: " + std::to_string(rgba.size()) + " bytes for a " +
                           std::to_string(width) + "x" + std::to_string(height) + " RGBA frame");
  if (width != e.sourceWidth || height != e.sourceHeight || !e.scaler) {
    e.scaler.reset(sws_getContext(static_cast<int>(width), static_cast<int>(height), AV_PIX_FMT_RGBA, e.frame->width,
                                  e.frame->height, AV_PIX_FMT_YUV420P, SWS_BILINEAR, nullptr, nullptr, nullptr));
    if (!e.scaler)
      throw OutputError(e.file.path(), "cannot convert " + std::to_string(width) + "x" + std::to_string(height) +
                                           " RGBA frames to " + std::to_string(e.settings.width) + "x" +
                                           std::to_string(e.settings.height) + " YUV 4:2:0: " + takeLibavError());
    // Full-range RGB in, BT.709 limited-range YUV out (as the stream's colour tags say).
    const int* bt709 = sws_getCoefficients(SWS_CS_ITU709);
    sws_setColorspaceDetails(e.scaler.get(), bt709, 1, bt709, 0, 0, 1 << 16, 1 << 16);
    e.sourceWidth = width;
    e.sourceHeight = height;
  }
  // The encoder may still hold the previous frame's buffers (lookahead): write into fresh ones when it does.
  if (const int error = av_frame_make_writable(e.frame.get()); error < 0) e.failWrite("a writable video frame", error);
  const std::uint8_t* source[1] = {rgba.data()};
  const int stride[1] = {static_cast<int>(width * 4)};
  const int rows =
      sws_scale(e.scaler.get(), source, stride, 0, static_cast<int>(height), e.frame->data, e.frame->linesize);
  if (rows != e.frame->height)
    throw OutputError(e.file.path(),
                      "converting frame " + std::to_string(e.frames) + " to YUV 4:2:0 failed " + takeLibavError());
  e.frame->pts = static_cast<std::int64_t>(e.frames);
  e.send(e.frame.get());
  ++e.frames;
}

void VideoEncoder::finish() {
  Impl& e = *impl_;
  if (e.finished) throw std::logic_error("VideoEncoder::finish: called twice");
  e.finished = true;
  e.send(nullptr); // drain the encoder's lookahead
  if (const int error = av_write_trailer(e.format.get()); error < 0) e.failWrite("writing the index", error);
  avio_flush(e.io.get());
  if (e.io->error < 0) e.failWrite("writing", e.io->error);
  e.file.commit();
}

std::uint64_t VideoEncoder::frames() const { return impl_->frames; }

} // namespace graphsim::app
