// broadcastIdWithMpi (mpi_job.h). MPI only where the build found it: app/CMakeLists.txt defines GRAPHSIM_HAVE_MPI on
// this file alone.
#include "app/run/mpi_job.h"

#include "app/base/errors.h"

#if GRAPHSIM_HAVE_MPI
#include <mpi.h> // the C API: MPI::MPI_CXX defines the C++ bindings away (app/CMakeLists.txt)

#include <algorithm>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "app/run/signals.h"
#endif

namespace graphsim::app {

#if GRAPHSIM_HAVE_MPI

namespace {

using std::chrono::milliseconds;

// MPI_Test between sleeps: the id is 128 bytes, so the broadcast itself takes microseconds once every rank is in it.
constexpr milliseconds kPoll{1};

std::string mpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS || length <= 0) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

// The one error path of every MPI call: EnvironmentError naming the call and MPI's text for the code.
void checkMpi(int code, const char* call) {
  if (code != MPI_SUCCESS) throw EnvironmentError(std::string("MPI: ") + call + " failed: " + mpiErrorText(code));
}

// MPI as this process uses it: initialised at the first broadcast unless the process had done it already, and then
// finalised at exit by the destructor of the one instance (a function-local static), unless a broadcast was left
// pending: MPI_Finalize would wait for it, and the other ranks may never come.
class MpiSession {
public:
  static MpiSession& instance() {
    static MpiSession session;
    session.start();
    return session;
  }

  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  ~MpiSession() {
    if (!owned_ || !abandoned_.empty()) return;
    // At exit nothing can take an exception: a failure is a warning, as for a rendezvous file left behind.
    if (const int code = MPI_Finalize(); code != MPI_SUCCESS)
      std::fprintf(stderr, "graphsim: warning: MPI_Finalize failed: %s\n", mpiErrorText(code).c_str());
  }

  // A broadcast that did not complete: MPI may still write into its buffer (a collective cannot be cancelled), so
  // the buffer lives to exit, and MPI is not finalised.
  void abandon(std::vector<std::byte> buffer) { abandoned_.push_back(std::move(buffer)); }

private:
  MpiSession() = default;

  void start() {
    if (started_) return;
    int finalized = 0;
    checkMpi(MPI_Finalized(&finalized), "MPI_Finalized");
    if (finalized != 0) throw EnvironmentError("MPI: this process finalised MPI already; it cannot start it again");
    int initialized = 0;
    checkMpi(MPI_Initialized(&initialized), "MPI_Initialized");
    if (initialized == 0) {
      // FUNNELED: NCCL starts threads of its own, but only the main thread calls MPI.
      int provided = 0;
      checkMpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
      owned_ = true;
      // Errors come back as codes (checkMpi) instead of MPI's default, which aborts the whole job without a word
      // from graphsim. Only for the MPI this process started: one started elsewhere keeps its owner's handler.
      checkMpi(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
      if (provided < MPI_THREAD_FUNNELED) {
        throw EnvironmentError(
            "MPI: MPI_THREAD_FUNNELED refused (this MPI library supports no threads besides its caller's), and NCCL "
            "starts threads of its own");
      }
    }
    started_ = true;
  }

  bool started_ = false;
  bool owned_ = false;                            // this process called MPI_Init_thread: it finalises
  std::vector<std::vector<std::byte>> abandoned_; // the buffers of broadcasts left pending
};

std::string rankText(int rank, int world) { return "rank " + std::to_string(rank) + " of " + std::to_string(world); }

} // namespace

void requireMpi() {}

std::vector<std::byte> broadcastIdWithMpi(std::vector<std::byte> id, std::size_t idBytes, const RankPlace& place,
                                          milliseconds timeout) {
  if (idBytes == 0 || idBytes > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::invalid_argument("broadcastIdWithMpi: an id of " + std::to_string(idBytes) + " bytes");
  MpiSession& mpi = MpiSession::instance();
  int rank = 0;
  int world = 0;
  checkMpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  checkMpi(MPI_Comm_size(MPI_COMM_WORLD, &world), "MPI_Comm_size");
  // Before any collective: a rank that broadcast with the wrong root or into the wrong world would hang the others.
  if (rank != place.rank || world != place.world) {
    throw UsageError("inconsistent ranks: MPI_COMM_WORLD says " + rankText(rank, world) + ", this process's " +
                     "launcher (" + place.source + ") says " + rankText(place.rank, place.world));
  }
  if (rank != 0) {
    id.assign(idBytes, std::byte{0});
  } else if (id.size() != idBytes) {
    throw std::invalid_argument("broadcastIdWithMpi: rank 0's id is " + std::to_string(id.size()) + " bytes, not " +
                                std::to_string(idBytes));
  }

  MPI_Request request = MPI_REQUEST_NULL;
  checkMpi(MPI_Ibcast(id.data(), static_cast<int>(idBytes), MPI_BYTE, 0, MPI_COMM_WORLD, &request), "MPI_Ibcast");
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  try {
    for (;;) {
      int done = 0;
      checkMpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done != 0) return id;
      if (interruptRequested()) throw Interrupted("waiting for the MPI broadcast of the NCCL id from rank 0");
      const auto now = std::chrono::steady_clock::now();
      if (now >= deadline) {
        const std::string within = " within " + std::to_string(timeout.count()) + " ms";
        throw TimeoutError(rankText(rank, world) + ": the MPI broadcast of the NCCL id from rank 0 did not complete" +
                               within + " (another rank has not reached it: stopped, or still starting)",
                           TimeoutError::Side::Cuda);
      }
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(kPoll, deadline - now));
    }
  } catch (...) {
    mpi.abandon(std::move(id)); // a moved vector keeps its buffer: the one MPI may still write
    throw;
  }
}

#else // built without MPI

namespace {
const char* const kWithoutMpi =
    "--rendezvous mpi: this graphsim was built without MPI (it needs Debian's libopenmpi-dev when built); give "
    "--rendezvous FILE, a path every rank reads";
} // namespace

void requireMpi() { throw EnvironmentError(kWithoutMpi); }

std::vector<std::byte> broadcastIdWithMpi(std::vector<std::byte> /*id*/, std::size_t /*idBytes*/,
                                          const RankPlace& /*place*/, std::chrono::milliseconds /*timeout*/) {
  throw EnvironmentError(kWithoutMpi);
}

#endif

} // namespace graphsim::app
