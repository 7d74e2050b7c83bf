#include "app/ui/resize_storm.h"

namespace graphsim::app {

std::string resizeStormScript(int resizes, std::uint64_t seed) {
  std::uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  const auto next = [&](std::uint32_t bound) { // xorshift64*: small and the same everywhere
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return static_cast<std::uint32_t>(((state * 0x2545f4914f6cdd1dull) >> 33) % bound);
  };
  std::string script;
  std::uint64_t tick = 2; // the first iterations lay out the panel at the start size
  const auto add = [&](const std::string& what) {
    script += (script.empty() ? "" : ",") + std::to_string(tick++) + ":" + what;
  };
  const auto size = [](std::uint32_t w, std::uint32_t h) {
    return "resize=" + std::to_string(w) + "x" + std::to_string(h);
  };
  for (int i = 0; i < resizes; ++i) {
    switch (i % 10) {
    case 3: add(size(1, 1)); break;
    case 5: add(size(1, 1 + next(1000))); break;
    case 7: add(size(1 + next(1600), 1)); break;
    case 9: // zero-size framebuffer: minimised, resized while minimised, restored
      add("minimise");
      add(size(64 + next(1536), 64 + next(936)));
      add("restore");
      break;
    default: add(size(16 + next(1584), 16 + next(984))); break;
    }
  }
  return script;
}

} // namespace graphsim::app
