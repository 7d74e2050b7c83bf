// The resize storm of the reliability tests: `--window-script storm=N[:SEED]` expands to N scripted window resizes,
// one per loop iteration, with seeded random sizes that include the degenerate ones (1x1, 1xH, Wx1); every tenth
// resize arrives while the window is minimised (a zero-size framebuffer): minimise, resize, restore.
#pragma once

#include <cstdint>
#include <string>

namespace graphsim::app {

// The --window-script text of a storm: "2:resize=WxH,3:minimise,4:resize=WxH,5:restore,...".
std::string resizeStormScript(int resizes, std::uint64_t seed);

} // namespace graphsim::app
