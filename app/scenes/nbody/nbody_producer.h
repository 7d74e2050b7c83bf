// The running n-body scene (SceneProducer): the product producer (CPU or CUDA, app/run/frame_producer.h) plus the
// SimController that applies the panel's edits, and the n-body panel section.
#pragma once

#include <memory>

#include "app/run/frame_producer.h"
#include "app/scenes/scene.h"

namespace graphsim::app {

// sim: the product producer; capacity: the render buffers' size (the body-count control's bound).
std::unique_ptr<SceneProducer> makeNBodyProducer(std::unique_ptr<SimProducer> sim, const SceneSettings& settings,
                                                 std::int64_t capacity, const FaultPlan& inject);

} // namespace graphsim::app
