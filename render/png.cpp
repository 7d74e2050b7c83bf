// PNG encoding (png.h) through stb_image_write.
#include "render/png.h"

#include <stdexcept>
#include <string>

// The one translation unit that compiles stb_image_write. Header-only use: libstb-dev also ships libstb.a and
// libstb.so, but linking them adds a runtime dependency for one function. STATIC keeps the stb symbols private to
// this file, so a target that links libstb as well gets no duplicate definitions.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#include <stb/stb_image_write.h>

namespace graphsim::render {

namespace {

void appendBytes(void* context, void* data, int size) {
  auto* out = static_cast<std::vector<std::uint8_t>*>(context);
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  out->insert(out->end(), bytes, bytes + size);
}

} // namespace

// In memory only: writing the file (atomically, every step checked) is the application's output writer's job
// (app/io/output_file.h), and render/ must not depend on app/.
std::vector<std::uint8_t> encodePng(const std::vector<std::uint8_t>& rgba, std::uint32_t width, std::uint32_t height) {
  if (width == 0 || height == 0 || rgba.size() != std::size_t{width} * height * 4) {
    throw std::invalid_argument("encodePng: expected " + std::to_string(width) + "x" + std::to_string(height) +
                                " RGBA8 pixels, got " + std::to_string(rgba.size()) + " bytes");
  }
  std::vector<std::uint8_t> png;
  const int stride = static_cast<int>(width * 4);
  if (stbi_write_png_to_func(appendBytes, &png, static_cast<int>(width), static_cast<int>(height), 4, rgba.data(),
                             stride) == 0) {
    throw std::runtime_error("cannot encode a " + std::to_string(width) + "x" + std::to_string(height) + " PNG");
  }
  return png;
}

} // namespace graphsim::render
