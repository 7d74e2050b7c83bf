// One process per GPU under MPI (docs/MULTI-GPU.md, "Under MPI"): `--rendezvous mpi` (run, soak, bench) hands rank 0's
// NCCL id to the other ranks with an MPI broadcast instead of a file on a shared path. MPI is optional: it is compiled
// in where Open MPI's development package was found at build time (app/CMakeLists.txt, GRAPHSIM_MPI), and MPI is
// initialised only when a run asks for it, so every other run behaves as in a build without it. Plain C++ here; MPI's
// header only in mpi_job.cpp.
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

#include "app/run/ranks.h"

namespace graphsim::app {

// Nothing in a build with MPI (MPI is not started here); in one without, EnvironmentError "--rendezvous mpi: this
// graphsim was built without MPI (it needs Debian's libopenmpi-dev when built); give --rendezvous FILE, ...".
void requireMpi();

// Every rank calls it once, on the main thread (MPI_THREAD_FUNNELED): rank 0 with its id (idBytes bytes), the others
// with an empty vector; each returns rank 0's id. The first call initialises MPI unless the process already did, and
// then MPI_Finalize runs at exit (after main returns; a rank that fails after joining leaves with std::_Exit, without
// it, and mpirun stops the job). MPI_Init waits for every rank of the job to start and has no timeout of its own;
// the broadcast that follows does. Throws:
//   EnvironmentError  a build without MPI (requireMpi's message), or an MPI call that failed (the call and MPI's
//                     own text);
//   UsageError        MPI_COMM_WORLD's rank or size is not place's ("inconsistent ranks: MPI_COMM_WORLD says rank
//                     1 of 2, this process's launcher (OMPI_COMM_WORLD_RANK/...) says rank 1 of 4");
//   TimeoutError      no id within `timeout` ("rank R of W: the MPI broadcast of the NCCL id from rank 0 did not
//                     complete within T ms");
//   Interrupted       SIGINT, SIGTERM or SIGHUP (app/run/signals.h) while waiting.
// After a timeout or an interrupt the broadcast stays pending (MPI cannot cancel a collective): MPI is then left
// unfinalised at exit, since MPI_Finalize would wait for it.
std::vector<std::byte> broadcastIdWithMpi(std::vector<std::byte> id, std::size_t idBytes, const RankPlace& place,
                                          std::chrono::milliseconds timeout);

} // namespace graphsim::app
