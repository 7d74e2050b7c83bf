// PNG encoding of captured frames, in memory. Plain C++: no Vulkan header.
#pragma once

#include <cstdint>
#include <vector>

namespace graphsim::render {

// Encodes RGBA8 pixels (width x height, top row first) as a PNG file's bytes. Throws std::invalid_argument when
// rgba is not width * height * 4 bytes. Writing them is the caller's (graphsim: app/io/output_file.h).
std::vector<std::uint8_t> encodePng(const std::vector<std::uint8_t>& rgba, std::uint32_t width, std::uint32_t height);

} // namespace graphsim::render
