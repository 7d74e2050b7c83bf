// The one place where render/'s exports become compute/'s imports: plain data crosses, no API headers do.
#pragma once

#include "compute/cuda_backend.h"
#include "render/particle_renderer.h"

namespace graphsim::app {

// Exports every body buffer and both timeline semaphores of an Exported-mode renderer as fds for CudaBackend
// (which takes ownership of them on import).
InteropDesc exportForCuda(render::ParticleRenderer& renderer);

} // namespace graphsim::app
