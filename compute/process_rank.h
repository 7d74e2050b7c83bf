// One process of a job that runs one process per GPU (docs/MULTI-GPU.md, "One process per GPU"): where it sits in the
// job and the NCCL id every process shares. Plain C++: app/ hands the launcher's placement and rank 0's id to
// NBodyCudaBackend through it.
#pragma once

#include <cstddef>
#include <vector>

namespace graphsim {

struct ProcessRank {
  int rank = 0;                  // 0 .. world - 1; rank 0 renders
  int world = 1;                 // processes (GPUs) in the job
  std::vector<std::byte> ncclId; // rank 0's newNcclId(), the same bytes in every process
};

// A new job's NCCL id (ncclGetUniqueId: 128 bytes; it names rank 0's bootstrap socket): rank 0 makes it and the
// launcher's rendezvous hands it to the others. Throws EnvironmentError without NCCL (in this build or at run time).
std::vector<std::byte> newNcclId();

} // namespace graphsim
