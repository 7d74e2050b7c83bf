// Pieces of the frame graph shared by frame_graph.cpp (the product path) and frame_graph_instruments.cpp (the
// benchmark's comparison paths). Internal to compute/cuda.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "compute/cuda/cuda_handles.h"
#include "compute/nbody/nbody.h"

namespace graphsim::cuda::detail {

GraphExec instantiate(cudaGraph_t graph);
const char* updateResultName(cudaGraphExecUpdateResult r);

} // namespace graphsim::cuda::detail
