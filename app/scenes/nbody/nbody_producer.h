// The running n-body scene (SceneProducer): its engine (CPU or CUDA, app/run/nbody_engine.h), the NBodyController that
// applies the panel's edits, and the n-body panel section.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "app/scenes/scene.h"

namespace graphsim::app {

// capacity: the render buffers' size (the body-count control's bound), and the CUDA arrays'.
std::unique_ptr<SceneProducer> makeNBodyProducer(const SceneSettings& settings, const ProducerRequest& request,
                                                 std::int64_t capacity);
// SceneCapabilities::followRank0: the compute-only frame graph of this rank's share, following rank 0
// (NBodyCudaBackend::follow).
FollowedRun followNBodyRank0(const SceneSettings& settings, std::int64_t capacity, int device, const ProcessRank& rank,
                             std::chrono::milliseconds waitTimeout);

} // namespace graphsim::app
