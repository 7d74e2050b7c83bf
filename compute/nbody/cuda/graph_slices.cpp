// Laying the bodies out over several GPUs and capturing their collectives (graph_slices.h).
#include "compute/nbody/cuda/graph_slices.h"

#include <algorithm>
#include <utility>

namespace graphsim::cuda {

int shareFor(int n, int ranks) {
  const int per = std::max(1, (n + ranks - 1) / ranks);
  return (per + kForcesSliceAlign - 1) / kForcesSliceAlign * kForcesSliceAlign;
}

Slices captureSlices(const Collectives& collectives, const std::vector<RankArrays>& ranks, std::size_t tiles, int n,
                     int share, int substeps, const std::function<void(cudaStream_t, const std::string&)>& waitFor) {
  const std::size_t R = ranks.size();
  std::vector<cudaStream_t> streams;
  streams.reserve(R);
  for (const RankArrays& r : ranks) streams.push_back(r.stream);
  Slices out;
  out.perRank.resize(R);
  const auto capture = [&](const std::function<void(int, cudaStream_t)>& record,
                           const std::function<void(GraphSlice&, cudaGraph_t)>& place) {
    collectives.issue(streams, record);
    for (std::size_t r = 0; r < R; ++r) {
      waitFor(streams[r], "the NCCL warm-up on GPU " + std::to_string(collectives.device(static_cast<int>(r))));
    }
    std::vector<Graph> graphs = collectives.capture(streams, record);
    for (std::size_t r = 0; r < R; ++r) {
      place(out.perRank[r], graphs[r].get());
      out.captured.push_back(std::move(graphs[r]));
    }
  };
  // record gets the job's rank; ranks[] holds this process's, from collectives.firstRank() on.
  const auto at = [&](int rank) -> const RankArrays& {
    return ranks[static_cast<std::size_t>(rank - collectives.firstRank())];
  };
  const std::size_t each = static_cast<std::size_t>(share);
  for (int sub = 0; sub < substeps; ++sub) {
    capture(
        [&](int r, cudaStream_t st) {
          collectives.reduceScatterSum(r, at(r).view.forces.fixed, 3 * each, st);
          collectives.allReduceMax(r, at(r).view.forces.tileDone, at(r).tileFlags, tiles, st);
        },
        [](GraphSlice& sl, cudaGraph_t g) { sl.reduceForces.push_back(g); });
    capture(
        [&](int r, cudaStream_t st) {
          collectives.allGatherFloats(r, reinterpret_cast<float*>(at(r).view.posMass), 4 * each, st);
        },
        [](GraphSlice& sl, cudaGraph_t g) { sl.gatherPositions.push_back(g); });
  }
  capture([&](int r, cudaStream_t st) { collectives.allGatherFloats(r, at(r).view.colour, each, st); },
          [](GraphSlice& sl, cudaGraph_t g) { sl.gatherColour = g; });
  for (std::size_t r = 0; r < R; ++r) {
    GraphSlice& sl = out.perRank[r];
    const int rank = collectives.firstRank() + static_cast<int>(r);
    sl.begin = std::min(rank * share, n);
    sl.end = std::min((rank + 1) * share, n);
    sl.arrayBodies = collectives.ranks() * share;
    sl.tiles = static_cast<int>(tiles);
    sl.tileFlags = ranks[r].tileFlags;
    sl.writesRender = rank == 0;
  }
  return out;
}

} // namespace graphsim::cuda
