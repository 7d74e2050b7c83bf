// One process per GPU (issue 32; docs/MULTI-GPU.md, "Across machines"), the host side: where this process sits in a
// job that a launcher (mpirun, srun, torchrun) started, read from the launcher's environment, and the rendezvous
// through which rank 0 hands NCCL's unique id to the other ranks: a small file on a path every rank can read (a
// shared filesystem when the ranks span machines), or, under mpirun in a build with MPI, an MPI broadcast
// (app/run/mpi_job.h). No CUDA, NCCL or Vulkan here: joinLaunchedJob has compute/ make the id on rank 0 (newNcclId)
// and returns the ProcessRank that NBodyCudaBackend joins the job with.
//
// Every refusal is one line naming what is wrong: a launcher variable and its value (UsageError, exit 2), the
// rendezvous file and the system's reason, or MPI missing from the build (EnvironmentError, exit 3), or the rank
// that did not publish in time (TimeoutError, exit 1).
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compute/process_rank.h"

namespace graphsim::app {

// Where this process sits in a job a launcher started (one process per GPU).
struct RankPlace {
  int rank = 0;       // 0 .. world-1
  int world = 1;      // processes in the job
  int localRank = 0;  // index among the job's processes on this machine: picks the GPU (localDeviceFor)
  std::string source; // the variables it came from, for messages: "SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID", ...
};

// A variable's value, or nullptr when it is not set (std::getenv's contract); tests pass a map.
using EnvLookup = std::function<const char*(const char* name)>;

// The launcher's variables, the first convention found in this order (one whose rank or world-size variable is
// set): Open MPI's OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE/OMPI_COMM_WORLD_LOCAL_RANK (mpirun inside a Slurm
// allocation sets both Open MPI's and Slurm's; Open MPI's describe the process), Slurm's
// SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID, then RANK/WORLD_SIZE/LOCAL_RANK (torchrun, or set by hand). nullopt when
// none of them is set: a plain single-process run. UsageError naming the variable and its value for a rank without
// its world size (or the reverse), a value that is not a whole decimal number (digits only: no sign, no blank, no
// trailing text; within int), a world size below 1, a rank or local rank not below the world size, and a missing
// local rank when the world has more than one process (one process alone gets local rank 0).
std::optional<RankPlace> rankFromEnvironment(const EnvLookup& env);
std::optional<RankPlace> rankFromEnvironment(); // std::getenv

// The CUDA device this process drives, among the cudaDeviceCount this machine shows it: one device means the launcher
// already gave each process its own GPU (CUDA_VISIBLE_DEVICES), so 0; else the local rank. EnvironmentError
// "rank R: local rank L but this machine shows C CUDA devices" when there are too few.
int localDeviceFor(const RankPlace& place, int cudaDeviceCount);

// A key the job's processes share and an earlier job's did not: GRAPHSIM_JOB_KEY when set (the user's word wins),
// else the key of the launcher whose variables rankFromEnvironment reads, and only that launcher's, since only it
// gives every rank the same value (mpirun inside a Slurm allocation starts the ranks on its own machine from the batch
// step and the others from an srun step: their SLURM_STEP_ID differ, Open MPI's variables do not):
//   Open MPI  OMPI_MCA_orte_hnp_uri (up to 4.x), else PMIX_NAMESPACE (5.x)
//   Slurm     SLURM_JOB_ID.SLURM_STEP_ID (the job id alone when there is no step id)
// else "-" (no key; RANK/WORLD_SIZE say nothing about the job). An empty variable counts as not set.
std::string jobKey(const EnvLookup& env);
std::string jobKey(); // std::getenv

// The rendezvous file:
//   graphsim-rendezvous 1 world=<W> key=<K>\n
//   <the id's bytes as lowercase hex>\n
// K is the job key with every byte outside '!'..'~' (and '%') written %XX, so that it stays one blank-free word;
// "-" is no key.

// Rank 0: writes the file through the one writer of output files (app/io/output_file.h: a temporary in the same
// directory, fsynced, renamed over the name), so that a reader sees no file, an earlier file, or this complete one,
// never half of it. EnvironmentError naming the path and the reason when it cannot be written.
void publishRendezvous(const std::filesystem::path& file, std::span<const std::byte> id, int world,
                       const std::string& key);

// The other ranks: polls for the file (every 10 ms at first, backing off to 100 ms, so that hundreds of ranks do not
// flood a shared filesystem's server) until it holds rank 0's id for this job, and returns the id. A file older than
// notBefore (the caller passes its start minus a minute: the clocks of a shared filesystem's machines differ), or
// written with a key other than ours when both have one, is an earlier job's: the wait goes on for the new one.
// Throws:
//   EnvironmentError  the path exists but cannot be read (a directory, no permission), or is not a graphsim
//                     rendezvous file (a header that is not the one above, an id that is not idBytes bytes of hex);
//   UsageError        the file's world size is not place.world ("inconsistent world size: FILE says 4, this
//                     process's launcher (SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID) says 8");
//   TimeoutError      no file for this job within `timeout`: "rank 0 published no rendezvous file FILE within T ms
//                     (this is rank R of W; ...)", saying why a file that was there was not taken;
//   Interrupted       SIGINT, SIGTERM or SIGHUP (app/run/signals.h) while waiting.
std::vector<std::byte> awaitRendezvous(const std::filesystem::path& file, std::size_t idBytes, const RankPlace& place,
                                       const std::string& key, std::chrono::milliseconds timeout,
                                       std::filesystem::file_time_type notBefore);

// ---- the two together ----

// The rendezvous that is no file (--rendezvous mpi): rank 0's id goes to the others by an MPI broadcast. A file
// of that name is given as ./mpi.
constexpr const char* kMpiRendezvous = "mpi";

// One rank of a job of one process per GPU, as the command line takes it (bench --rendezvous FILE, or mpi).
struct LaunchedRank {
  RankPlace place;                  // rankFromEnvironment()
  std::filesystem::path rendezvous; // FILE, on a path every rank reads, or kMpiRendezvous
};

// This process's part of the job for NBodyCudaBackend: rank 0 makes a new NCCL id (newNcclId, compute/process_rank.h)
// and publishes it; the others await it, up to `timeout`, with jobKey() as the key. With a key, any file of this job
// is taken whatever its age (a rank its launcher started minutes after rank 0 still finds rank 0's file); without
// one, a file written before this process started, less a minute, is an earlier job's. Throws what newNcclId,
// publishRendezvous and awaitRendezvous throw. With a file, this rank's heartbeat starts beside it and watches the
// others (app/run/rank_heartbeat.h): once one stood still for half of `timeout` (at least 1 s), this process prints
// which and exits 1 at once.
// With kMpiRendezvous, broadcastIdWithMpi (app/run/mpi_job.h) hands the id out instead, up to `timeout`, and throws
// what it throws; a build without MPI refuses it first, even for a job of one process (requireMpi, exit 3).
ProcessRank joinLaunchedJob(const LaunchedRank& launched, std::chrono::milliseconds timeout);

// Rank 0, once every rank has joined (the NCCL communicator is complete): removes the file, which would only mislead
// a later job. Quiet when it is gone already; a failure is a warning on stderr, not an error. Nothing to remove for
// kMpiRendezvous.
void removeRendezvous(const std::filesystem::path& file);

// After joinLaunchedJob of a job of several processes: whether this process is one, and for a timeout's message
// "; this is rank R of W: ..." (else empty): with a rendezvous file, the ranks whose heartbeat stopped (or that every
// other rank's still moves); under MPI there are no heartbeat files (they sit beside the rendezvous file), so the
// message cannot name the rank that stopped.
bool joinedSeveralProcessJob();
std::string stalledJobContext();

} // namespace graphsim::app
