// Several GPUs (docs/MULTI-GPU.md): each GPU's share of the bodies and the NCCL collectives its frame graph holds,
// captured for every GPU at once. NBodyCudaBackend owns the arrays and streams; this file only lays them out.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "compute/cuda/cuda_handles.h"
#include "compute/nbody/cuda/collectives.h"
#include "compute/nbody/cuda/nbody_frame_graph.h"
#include "compute/nbody/cuda/nbody_kernels.h"

namespace graphsim::cuda {

// Each GPU's share of n bodies on `ranks` GPUs: equal (the collectives move equal parts), whole forces tiles.
int shareFor(int n, int ranks);

// What local rank r brings (rank order = Collectives' order; this process's GPUs only): its state arrays, the buffer
// its combined non-finite bits go to, and its stream.
struct RankArrays {
  BodiesView view;
  unsigned int* tileFlags = nullptr;
  cudaStream_t stream = nullptr;
};

struct Slices {
  std::vector<GraphSlice> perRank;
  std::vector<Graph> captured; // every rank's collectives: kept while the graphs built from them live
};

// For n bodies in shares of `share` (ranks.size() x share fit the arrays, whose forces scratch has `tiles` counters)
// and `substeps` substeps: per substep the forces' reduction and the positions' all-gather, then the colours'
// all-gather, each captured for every rank at once. Each is first issued once for real (harmless: zero sums,
// identical positions and colours on every GPU) so that NCCL sets its connections up outside the capture;
// waitFor(stream, what) waits for that, bounded. Fills each rank's GraphSlice; rank 0 writes the render output.
Slices captureSlices(const Collectives& collectives, const std::vector<RankArrays>& ranks, std::size_t tiles, int n,
                     int share, int substeps, const std::function<void(cudaStream_t, const std::string&)>& waitFor);

} // namespace graphsim::cuda
