// Key codes the app reacts to, as indices into ImGui's io.KeysDown[] (ImGui 1.86). They are GLFW's key codes, which
// the GLFW platform backend writes there; the headless twin and the scripted UI tests write the same codes.
// glfw_window.cpp static_asserts that they match GLFW's.
#pragma once

namespace graphsim::app::keys {

inline constexpr int kSpace = 32;   // pause / resume
inline constexpr int kA = 65;       // hold: the attractor follows the mouse
inline constexpr int kR = 82;       // reset the scene
inline constexpr int kS = 83;       // single step while paused
inline constexpr int kEscape = 256; // quit
inline constexpr int kF1 = 290;     // hide / show the panel
inline constexpr int kF5 = 294;     // save a snapshot of the state
inline constexpr int kF12 = 301;    // capture a PNG without the panel

// One line per binding, for --help and the panel.
inline constexpr const char* kHelp =
    "left-drag orbit | right-drag or scroll zoom | middle-drag pan | Space pause | S step (paused) | R reset\n"
    "A (hold) attractor / obstacle follows the mouse | F1 panel | F5 save state | F12 capture PNG (no panel)\n"
    "Esc quit";

} // namespace graphsim::app::keys
