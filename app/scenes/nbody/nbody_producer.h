// The running n-body scene (SceneProducer): its engine (CPU or CUDA, app/run/nbody_engine.h), the NBodyController that
// applies the panel's edits, and the n-body panel section.
#pragma once

#include <memory>

#include "app/scenes/scene.h"

namespace graphsim::app {

// capacity: the render buffers' size (the body-count control's bound), and the CUDA arrays'.
std::unique_ptr<SceneProducer> makeNBodyProducer(const SceneSettings& settings, const ProducerRequest& request,
                                                 std::int64_t capacity);

} // namespace graphsim::app
