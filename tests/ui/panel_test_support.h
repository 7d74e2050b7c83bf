// Helpers of the scripted panel tests (fluid_panel_test.cpp, ballistic_panel_test.cpp): a headless run with the
// panel, ticks, and mouse events injected into ImGui on the headless twin.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "app/run/session.h"
#include "app/scenes/scene_config.h"
#include "app/ui/window.h"

namespace graphsim::app {

// `scene`'s preset (a scene without one: its defaults) with `count` elements, headless, the panel drawn, validation
// on; 1000 frames is an upper bound: the tests stop ticking earlier.
inline RunOptions panelOptions(const std::string& scene, std::int64_t count) {
  RunOptions options;
  options.scene = loadPreset(scene);
  findScene(scene).setCount(options.scene, count);
  options.headless = true;
  options.panel = true;
  options.validation = true;
  options.frames = 1000;
  return options;
}

inline void tick(Session& session, int n = 1) {
  for (int i = 0; i < n; ++i) ASSERT_TRUE(session.tick());
}

inline void click(HeadlessWindow& window, const WidgetRect& r) {
  window.inject({r.cx(), r.cy(), {false, false, false}, 0, {}});
  window.inject({r.cx(), r.cy(), {true, false, false}, 0, {}});
  window.inject({r.cx(), r.cy(), {false, false, false}, 0, {}});
}

inline void dragAcross(HeadlessWindow& window, const WidgetRect& r) {
  window.inject({r.x0 + 4, r.cy(), {false, false, false}, 0, {}});
  window.inject({r.x0 + 4, r.cy(), {true, false, false}, 0, {}});
  window.inject({r.cx(), r.cy(), {true, false, false}, 0, {}});
  window.inject({r.x1 - 4, r.cy(), {true, false, false}, 0, {}});
  window.inject({r.x1 - 4, r.cy(), {false, false, false}, 0, {}});
}

} // namespace graphsim::app
