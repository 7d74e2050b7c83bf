#pragma once

namespace graphsim::app {

// `graphsim list-gpus`: Vulkan devices (index, name, type, UUID, interop support) and CUDA devices (or why none),
// marking the pairs with the same UUID. Returns the exit code.
int listGpus();

} // namespace graphsim::app
