// NCCL for the GPUs of one process (docs/MULTI-GPU.md): one communicator per GPU from ncclCommInitAll, and the three
// collectives the multi-GPU frame graph holds, captured into CUDA graphs. Rank r is the r-th GPU of the list; the
// ranks are explicit in every call, so one process per GPU (ncclCommInitRank) would change only the constructor.
//
// Built without NCCL (GRAPHSIM_HAVE_NCCL 0), the constructor throws EnvironmentError saying so and nothing else is
// reachable.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compute/cuda/cuda_handles.h"
#include "compute/errors.h"

namespace graphsim::cuda {

// A failed NCCL call: the call, the result's name and NCCL's last error text.
struct NcclError : ApiError {
  using ApiError::ApiError;
};

bool ncclBuiltIn();            // whether this build has NCCL
std::string ncclVersionText(); // "2.28.9" (of the library loaded), or why there is none

class Collectives {
public:
  // devices: CUDA device indices, rank r = devices[r]. Throws EnvironmentError (no NCCL in this build, or
  // ncclCommInitAll failed: the reason) or NcclError.
  explicit Collectives(const std::vector<int>& devices);
  ~Collectives(); // ncclCommDestroy per rank; the caller has finished every graph that uses them
  Collectives(const Collectives&) = delete;
  Collectives& operator=(const Collectives&) = delete;

  int ranks() const;
  int device(int rank) const;

  // Captures what `record(rank, stream)` issues on every rank's stream (streams[rank], on that rank's device) into
  // one CUDA graph per rank, the NCCL calls of all ranks in one group (one thread drives every GPU). Returns graphs[r].
  std::vector<Graph> capture(const std::vector<cudaStream_t>& streams,
                             const std::function<void(int rank, cudaStream_t stream)>& record) const;
  // The same calls, issued (not captured), in one group: warms NCCL up before a first capture, so that connection
  // set-up (memory, peer mappings) never happens inside one.
  void issue(const std::vector<cudaStream_t>& streams,
             const std::function<void(int rank, cudaStream_t stream)>& record) const;

  // The calls `record` may make (in-place, each rank's part `count` elements):
  // buffer[rank * count, +count) of every rank -> buffer of every rank.
  void allGatherFloats(int rank, float* buffer, std::size_t count, cudaStream_t stream) const;
  // Sum over the ranks of buffer[0, ranks * count) -> buffer[rank * count, +count) (integer: exact, wraps mod 2^64).
  void reduceScatterSum(int rank, unsigned long long* buffer, std::size_t count, cudaStream_t stream) const;
  // Max over the ranks of send[0, count) -> recv[0, count) of every rank.
  void allReduceMax(int rank, const unsigned int* send, unsigned int* recv, std::size_t count,
                    cudaStream_t stream) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace graphsim::cuda
