// Screen rectangles of the panel's widgets in the last frame, by id ("node:integrate", "param:dt", "action:pause",
// "toggle:viscosity"): the scripted UI tests click where a user would.
#pragma once

#include <functional>
#include <map>
#include <string>

namespace graphsim::app {

struct WidgetRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  float cx() const { return 0.5f * (x0 + x1); }
  float cy() const { return 0.5f * (y0 + y1); }
};
using PanelLayout = std::map<std::string, WidgetRect, std::less<>>; // std::less<>: looked up by string_view

} // namespace graphsim::app
