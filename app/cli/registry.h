// The registry's hook for scenes that exist only for the tests (tests/scenes/, docs/SCENES.md): a test scene's
// folder calls it from a static initialiser, so only the binaries that link that folder (graphsim_test_scenes and
// the scene's tests) have the scene. The product never calls it; scenes() (app/scenes/scene.h) lists them last.
#pragma once

#include "app/scenes/scene.h"

namespace graphsim::app {

void registerTestScene(const Scene& scene);

} // namespace graphsim::app
