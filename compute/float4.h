// The 16-byte element both scenes' state arrays and the render buffer are made of.
#pragma once

namespace graphsim {

// 16-byte aligned so that a std::vector<Float4> has the layout of a CUDA float4 array and of the render buffer.
struct alignas(16) Float4 {
  float x = 0, y = 0, z = 0, w = 0;
  friend bool operator==(const Float4&, const Float4&) = default;
};

} // namespace graphsim
