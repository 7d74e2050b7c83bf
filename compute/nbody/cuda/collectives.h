// NCCL for the frame graphs of several GPUs (docs/MULTI-GPU.md): the communicators of this process's GPUs, and the
// three collectives the multi-GPU frame graph holds, captured into CUDA graphs. Either every GPU of the job is in
// this process (ncclCommInitAll: rank r is the r-th GPU of the list), or this process is one rank of a job of one
// process per GPU (ncclCommInitRank). Calls name the job's rank; the local GPUs are ranks firstRank() ..
// firstRank() + localRanks() - 1.
//
// Built without NCCL (GRAPHSIM_HAVE_NCCL 0), the constructor throws EnvironmentError saying so and nothing else is
// reachable.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compute/cuda/cuda_handles.h"
#include "compute/errors.h"
#include "compute/process_rank.h"

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
  // One rank of a job of one process per GPU, on `device`. Waits for every rank to join, at most `timeout`: throws
  // TimeoutError naming what is missing (another process that never started, a wrong id), EnvironmentError or
  // NcclError.
  Collectives(int device, const ProcessRank& place, std::chrono::milliseconds timeout);
  ~Collectives(); // ncclCommDestroy per rank; the caller has finished every graph that uses them
  Collectives(const Collectives&) = delete;
  Collectives& operator=(const Collectives&) = delete;

  int ranks() const;      // the job's
  int localRanks() const; // this process's
  int firstRank() const;  // the job's rank of this process's first GPU
  int device(int local) const;

  // Captures what `record(rank, stream)` issues on every local rank's stream (streams[local], on that rank's device)
  // into one CUDA graph per local rank, the NCCL calls of all of them in one group (one thread drives every GPU of
  // this process). record gets the job's rank. Returns graphs[local].
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
  // Rank 0's buffer[0, bytes) -> buffer of every rank (rank 0's control messages, rank_channel.h).
  void broadcastBytes(int rank, void* buffer, std::size_t bytes, cudaStream_t stream) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace graphsim::cuda
