// What the video tests share: decoding an mp4 back with FFmpeg's libraries, and looking for temporaries left behind.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace graphsim::test {

struct DecodedVideo {
  std::string error; // empty when the file opened and decoded
  std::string codec; // the decoder's name: "h264"
  int width = 0, height = 0;
  double fps = 0; // the stream's average frame rate
  int frames = 0; // frames decoded
  // The Y (luma) plane of the first and last frames, width x height bytes, top row first.
  std::vector<std::uint8_t> firstLuma, lastLuma;
};

DecodedVideo decodeVideo(const std::filesystem::path& path);

// Names in dir that start with ".gs": the output writers' temporaries.
std::vector<std::string> temporariesIn(const std::filesystem::path& dir);

// An empty directory under the test binary's tmp folder.
std::filesystem::path freshDir(const std::string& name);

void writeText(const std::filesystem::path& path, const std::string& text);
std::string readText(const std::filesystem::path& path);

// EXPECT_CONTAINS(text, part): gtest's own words for a missing substring, without gmock.
#define EXPECT_CONTAINS(text, part)                                                                                    \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "expected to contain: " << (part) << "\nin: " << (text)

// Mean absolute difference of two equally long planes (infinity when they differ in length or are empty).
double meanAbsDiff(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b);

} // namespace graphsim::test
