// The file a video is encoded into: a temporary beside the target, written as the encoder goes (the muxer seeks back
// to fill in sizes), then fsynced, closed and renamed over the target. The target holds its old content or the
// complete new video, never a partial one; the temporary is removed on any failure and when this is destroyed
// without commit().
//
// The rules are the output writer's (app/io/output_file.h), which writes a whole buffer at once: the temporary is
// ".gs" and random letters, as long as the target's name within 6..12 characters (never longer-named than the
// target from 6 characters up), created with O_EXCL relative to the directory's descriptor, and a symlink to a file
// replaces the file and keeps the link. Unlike that writer, a video needs a seekable regular file: a FIFO or a device
// is refused.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace graphsim::app {

class VideoFile {
public:
  explicit VideoFile(std::filesystem::path path); // creates the temporary; OutputError "PATH: REASON"
  ~VideoFile();                                   // removes the temporary unless committed
  VideoFile(const VideoFile&) = delete;
  VideoFile& operator=(const VideoFile&) = delete;

  // For libavformat's I/O callbacks: bytes written or a negative AVERROR; the new offset or a negative AVERROR.
  // A failure's reason is kept for the message (firstError()).
  int write(const std::uint8_t* data, int size) noexcept;
  std::int64_t seek(std::int64_t offset, int whence) noexcept;
  // strerror of the first failed write or seek; empty while none failed.
  const std::string& firstError() const { return firstError_; }

  // fsync, close, rename over the target, then (best effort) sync the directory. OutputError on failure.
  void commit();
  const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_; // as the user named it, for messages
  std::string targetName_;     // the name renamed over (a symlink's file)
  std::string temporaryName_;  // empty once renamed
  int dirFd_ = -1;
  int fd_ = -1;
  std::string firstError_;
};

} // namespace graphsim::app
