// Run as two ranks under mpirun (tests/mpi/CMakeLists.txt): the MPI rendezvous of app/run/mpi_job.h and
// joinLaunchedJob's --rendezvous mpi. A plain main rather than gtest, so that each rank says which check failed on
// which rank in one line; every rank exits 1 on any failure of its own, and mpirun then exits non-zero.
#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "app/base/errors.h"
#include "app/run/mpi_job.h"
#include "app/run/ranks.h"
#include "compute/process_rank.h"

namespace {

using graphsim::app::RankPlace;
using std::chrono::milliseconds;

constexpr std::size_t kIdBytes = 128; // NCCL_UNIQUE_ID_BYTES, as app/run/ranks.cpp hands it out
// Both ranks start together on one machine: seconds would be a hang, not a slow start.
constexpr milliseconds kTimeout{10000};

int gRank = -1; // this process's, from the launcher, for messages
int gFailures = 0;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "mpi_tests: rank %d: FAIL: %s\n", gRank, what.c_str());
  ++gFailures;
}

std::vector<std::byte> randomBytes(std::size_t n) {
  std::random_device device;
  std::vector<std::byte> bytes(n);
  for (std::byte& b : bytes) b = static_cast<std::byte>(device() & 0xff);
  return bytes;
}

// Rank 0's bytes once more, through a plain blocking MPI_Bcast (others pass anything of the size): what each rank
// compares the rendezvous's result with.
std::vector<std::byte> rankZerosBytes(std::vector<std::byte> bytes) {
  bytes.resize(kIdBytes);
  if (MPI_Bcast(bytes.data(), static_cast<int>(kIdBytes), MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
    expect(false, "the comparison's MPI_Bcast failed");
  return bytes;
}

// f throws E, whose message holds every one of parts.
template <class E, class F>
void expectRefusal(const std::string& what, F f, const std::vector<std::string>& parts) {
  try {
    f();
    expect(false, what + ": nothing thrown");
  } catch (const E& e) {
    const std::string message = e.what();
    for (const std::string& part : parts)
      expect(message.find(part) != std::string::npos, what + ": \"" + part + "\" not in \"" + message + "\"");
  } catch (const std::exception& e) {
    expect(false, what + ": another error: " + e.what());
  }
}

void checkPlace(const RankPlace& place) {
  expect(place.source == "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE/OMPI_COMM_WORLD_LOCAL_RANK",
         "the place comes from " + place.source + ", not Open MPI's variables");
  expect(place.world == 2, "world " + std::to_string(place.world) + ", not mpirun -np 2's");
  expect(place.localRank == place.rank, "local rank " + std::to_string(place.localRank) + " of rank " +
                                            std::to_string(place.rank) + " on one machine");
}

// A place MPI_COMM_WORLD disagrees with is refused before any collective, naming both (so no rank waits for it).
void checkRefusals(const RankPlace& place) {
  const std::string rank = std::to_string(place.rank);
  RankPlace wider = place;
  wider.world = 3;
  expectRefusal<graphsim::app::UsageError>(
      "a world of 3", [&] { graphsim::app::broadcastIdWithMpi({}, kIdBytes, wider, kTimeout); },
      {"MPI_COMM_WORLD says rank " + rank + " of 2", "launcher (" + place.source + ") says rank " + rank + " of 3"});
  RankPlace swapped = place;
  swapped.rank = 1 - place.rank;
  expectRefusal<graphsim::app::UsageError>(
      "the other rank", [&] { graphsim::app::broadcastIdWithMpi({}, kIdBytes, swapped, kTimeout); },
      {"MPI_COMM_WORLD says rank " + rank + " of 2", "says rank " + std::to_string(swapped.rank) + " of 2"});
}

void checkBroadcast(const RankPlace& place) {
  const std::vector<std::byte> mine = place.rank == 0 ? randomBytes(kIdBytes) : std::vector<std::byte>{};
  const std::vector<std::byte> got = graphsim::app::broadcastIdWithMpi(mine, kIdBytes, place, kTimeout);
  expect(got == rankZerosBytes(mine), "broadcastIdWithMpi returned other bytes than rank 0's");
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  expect(rank == place.rank, "MPI's rank " + std::to_string(rank) + " is not the launcher's");
}

void checkJoin(const RankPlace& place) {
  using namespace graphsim::app;
  const graphsim::ProcessRank joined = joinLaunchedJob(LaunchedRank{place, kMpiRendezvous}, kTimeout);
  expect(joined.rank == place.rank && joined.world == 2,
         "joinLaunchedJob: rank " + std::to_string(joined.rank) + " of " + std::to_string(joined.world));
  expect(joined.ncclId.size() == kIdBytes && joined.ncclId == rankZerosBytes(joined.ncclId),
         "joinLaunchedJob: this rank's id is not rank 0's");
  expect(joinedSeveralProcessJob(), "joinLaunchedJob did not count this process as one of several");
  const std::string context = stalledJobContext();
  expect(context.find("this is rank " + std::to_string(place.rank) + " of 2") != std::string::npos &&
             context.find("under MPI") != std::string::npos,
         "stalledJobContext: \"" + context + "\"");
  // nbody_bench.cpp removes the rendezvous on rank 0 after the join: under MPI that is no file, and a file named
  // mpi in the working directory (this test's build folder) stays.
  if (place.rank == 0) {
    std::ofstream("mpi") << "not a rendezvous\n";
    removeRendezvous(kMpiRendezvous);
    expect(std::filesystem::exists("mpi"), "removeRendezvous(kMpiRendezvous) removed ./mpi");
    std::filesystem::remove("mpi");
  }
}

} // namespace

// compute/'s newNcclId needs NCCL and the CUDA backend: joinLaunchedJob only needs rank 0's new bytes from it.
std::vector<std::byte> graphsim::newNcclId() { return randomBytes(kIdBytes); }

int main() {
  const std::optional<RankPlace> place = graphsim::app::rankFromEnvironment();
  if (!place) {
    std::fprintf(stderr, "mpi_tests: no launcher variables: run it as mpirun -np 2 mpi_tests\n");
    return 1;
  }
  gRank = place->rank;
  try {
    checkPlace(*place);
    checkRefusals(*place); // first: the first of them starts MPI, as any rendezvous would
    checkBroadcast(*place);
    checkJoin(*place);
  } catch (const std::exception& e) {
    expect(false, std::string("unexpected error: ") + e.what());
  }
  if (gFailures == 0) std::printf("mpi_tests: rank %d of %d: every check passed\n", place->rank, place->world);
  return gFailures == 0 ? 0 : 1;
}
