// Helpers of the windowed UI tests (graphsim run in a window under a display; GRAPHSIM_REQUIRE_DISPLAY is in
// tests/cli/run_graphsim.h).
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <filesystem>

namespace graphsim::test {

// The image size a PNG file declares (its IHDR chunk: bytes 16..23, big-endian), read without decoding the image.
// Fails the calling test (fatally: wrap the call in ASSERT_NO_FATAL_FAILURE) when the file cannot be read.
inline void readPngSize(const std::filesystem::path& png, unsigned& width, unsigned& height) {
  std::FILE* f = std::fopen(png.c_str(), "rb");
  ASSERT_NE(f, nullptr) << png;
  unsigned char header[24] = {};
  const std::size_t read = std::fread(header, 1, sizeof header, f);
  std::fclose(f);
  ASSERT_EQ(read, sizeof header) << png;
  const auto be32 = [&](int at) {
    return (unsigned(header[at]) << 24) | (unsigned(header[at + 1]) << 16) | (unsigned(header[at + 2]) << 8) |
           header[at + 3];
  };
  width = be32(16);
  height = be32(20);
}

} // namespace graphsim::test
