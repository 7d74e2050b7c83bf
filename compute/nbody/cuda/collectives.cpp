// Collectives (collectives.h): NCCL's communicators and captured collectives, or, without NCCL, the refusal.
#include "compute/nbody/cuda/collectives.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <utility>

#include "compute/cuda/cuda_check.h"

#if GRAPHSIM_HAVE_NCCL
#include <dlfcn.h>
#include <nccl.h>
#endif

namespace graphsim::cuda {

#if GRAPHSIM_HAVE_NCCL

namespace {

// libnccl.so.2 is opened when a multi-GPU run first needs it (like the CUDA runtime opens libcuda): graphsim starts,
// and runs on one GPU, where NCCL is not installed; only --gpus with several GPUs then exits 3 saying so.
struct NcclApi {
  void* library = nullptr;
  std::string whyNot;
  decltype(&::ncclGetVersion) getVersion = nullptr;
  decltype(&::ncclGetErrorString) getErrorString = nullptr;
  decltype(&::ncclGetLastError) getLastError = nullptr;
  decltype(&::ncclCommInitAll) commInitAll = nullptr;
  decltype(&::ncclCommInitRank) commInitRank = nullptr;
  decltype(&::ncclGetUniqueId) getUniqueId = nullptr;
  decltype(&::ncclCommDestroy) commDestroy = nullptr;
  decltype(&::ncclGroupStart) groupStart = nullptr;
  decltype(&::ncclGroupEnd) groupEnd = nullptr;
  decltype(&::ncclAllGather) allGather = nullptr;
  decltype(&::ncclReduceScatter) reduceScatter = nullptr;
  decltype(&::ncclAllReduce) allReduce = nullptr;
  decltype(&::ncclBroadcast) broadcast = nullptr;

  NcclApi() {
    library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* e = dlerror();
      whyNot = "libnccl.so.2 could not be loaded (" + std::string(e != nullptr ? e : "unknown reason") + ")";
      return;
    }
    const auto load = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, name));
      if (fn == nullptr && whyNot.empty()) whyNot = std::string("libnccl.so.2 lacks ") + name + " (too old?)";
    };
    load(getVersion, "ncclGetVersion");
    load(getErrorString, "ncclGetErrorString");
    load(getLastError, "ncclGetLastError");
    load(commInitAll, "ncclCommInitAll");
    load(commInitRank, "ncclCommInitRank");
    load(getUniqueId, "ncclGetUniqueId");
    load(commDestroy, "ncclCommDestroy");
    load(groupStart, "ncclGroupStart");
    load(groupEnd, "ncclGroupEnd");
    load(allGather, "ncclAllGather");
    load(reduceScatter, "ncclReduceScatter");
    load(allReduce, "ncclAllReduce");
    load(broadcast, "ncclBroadcast");
  }
  bool usable() const { return whyNot.empty(); }
};

const NcclApi& nccl() {
  static const NcclApi api; // opened once, kept for the process's life
  return api;
}

[[noreturn]] void throwNccl(ncclResult_t r, const char* expr, ncclComm_t comm) {
  std::string message = std::string("NCCL error: ") + expr + " failed: " + nccl().getErrorString(r);
  if (comm != nullptr) {
    if (const char* last = nccl().getLastError(comm); last != nullptr && *last != '\0') {
      message += " (" + std::string(last) + ")";
    }
  }
  throw NcclError(static_cast<int>(r), message);
}

#define NCCL_CHECK(expr, comm)                                                                                         \
  do {                                                                                                                 \
    const ncclResult_t ncclCheckResult_ = (expr);                                                                      \
    if (ncclCheckResult_ != ncclSuccess) throwNccl(ncclCheckResult_, #expr, (comm));                                   \
  } while (false)

// record(first + i, streams[i]) for every local rank inside one NCCL group, which is ended also when a record throws.
void recordGroup(int first, const std::vector<cudaStream_t>& streams,
                 const std::function<void(int, cudaStream_t)>& record) {
  NCCL_CHECK(nccl().groupStart(), nullptr);
  try {
    for (std::size_t i = 0; i < streams.size(); ++i) record(first + static_cast<int>(i), streams[i]);
  } catch (...) {
    (void)nccl().groupEnd();
    throw;
  }
  NCCL_CHECK(nccl().groupEnd(), nullptr);
}

} // namespace

bool ncclBuiltIn() { return true; }

std::string ncclVersionText() {
  if (!nccl().usable()) return "none: " + nccl().whyNot;
  int v = 0;
  if (nccl().getVersion(&v) != ncclSuccess) return "unknown";
  // Since 2.9: major * 10000 + minor * 100 + patch.
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

namespace {

const NcclApi& usableNccl() {
  if (!nccl().usable()) {
    throw EnvironmentError("more than one GPU needs NCCL, which is missing: " + nccl().whyNot +
                           "; install it (the CUDA toolkit's, or Debian's libnccl2) or run on one GPU");
  }
  // NVLink SHARP (multicast) stays off unless the user asks for it: graphsim's collectives are small, and on shared
  // machines a program using multicast can take the host's GPUs out of service (docs/MULTI-GPU.md).
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  return nccl();
}

} // namespace

std::vector<std::byte> newNcclIdBytes() {
  ncclUniqueId id{};
  NCCL_CHECK(usableNccl().getUniqueId(&id), nullptr);
  std::vector<std::byte> bytes(sizeof id.internal);
  std::memcpy(bytes.data(), id.internal, sizeof id.internal);
  return bytes;
}

namespace {

// ncclCommInitRank returns once every rank of the job has joined, and has no timeout of its own: it runs on a thread
// of its own, and a job that does not assemble within `timeout` is reported, that thread left behind (detached,
// blocked inside NCCL; the process is about to exit with the error).
ncclComm_t joinJob(int device, const ProcessRank& place, std::chrono::milliseconds timeout) {
  ncclUniqueId id{};
  if (place.ncclId.size() != sizeof id.internal) {
    throw std::invalid_argument("NCCL id of " + std::to_string(place.ncclId.size()) + " bytes, expected " +
                                std::to_string(sizeof id.internal));
  }
  std::memcpy(id.internal, place.ncclId.data(), sizeof id.internal);
  const NcclApi& api = usableNccl();
  auto joined = std::make_shared<std::promise<std::pair<ncclResult_t, ncclComm_t>>>();
  std::future<std::pair<ncclResult_t, ncclComm_t>> result = joined->get_future();
  std::thread([joined, id, device, world = place.world, rank = place.rank, &api] {
    ncclComm_t comm = nullptr;
    const ncclResult_t r =
        cudaSetDevice(device) == cudaSuccess ? api.commInitRank(&comm, world, id, rank) : ncclUnhandledCudaError;
    joined->set_value({r, comm});
  }).detach();
  if (result.wait_for(timeout) != std::future_status::ready) {
    throw TimeoutError("NCCL set-up: rank " + std::to_string(place.rank) + " of " + std::to_string(place.world) +
                           " waited " + std::to_string(timeout.count()) +
                           " ms for the other ranks to join (one not started, or started with another id?)",
                       TimeoutError::Side::Cuda);
  }
  const auto [r, comm] = result.get();
  if (r != ncclSuccess) {
    throw EnvironmentError("NCCL could not join rank " + std::to_string(place.rank) + " of " +
                           std::to_string(place.world) + " (ncclCommInitRank: " + api.getErrorString(r) +
                           "; NCCL_DEBUG=WARN prints NCCL's reason)");
  }
  return comm;
}

} // namespace

struct Collectives::Impl {
  std::vector<int> devices; // local
  std::vector<ncclComm_t> comms;
  int first = 0; // the job's rank of devices[0]
  int world = 0;
  ncclComm_t comm(int rank) const { return comms.at(static_cast<std::size_t>(rank - first)); }
};

Collectives::Collectives(const std::vector<int>& devices) : impl_(std::make_unique<Impl>()) {
  if (devices.empty()) throw std::invalid_argument("Collectives: no GPU");
  const NcclApi& api = usableNccl();
  impl_->devices = devices;
  impl_->world = static_cast<int>(devices.size());
  impl_->comms.assign(devices.size(), nullptr);
  const ncclResult_t r = api.commInitAll(impl_->comms.data(), static_cast<int>(devices.size()), devices.data());
  if (r != ncclSuccess) {
    impl_->comms.clear();
    throw EnvironmentError(std::string("NCCL could not set up the GPUs (ncclCommInitAll: ") + nccl().getErrorString(r) +
                           "; NCCL_DEBUG=WARN prints NCCL's reason)");
  }
}

Collectives::Collectives(int device, const ProcessRank& place, std::chrono::milliseconds timeout)
    : impl_(std::make_unique<Impl>()) {
  if (place.world < 1 || place.rank < 0 || place.rank >= place.world) {
    throw std::invalid_argument("Collectives: rank " + std::to_string(place.rank) + " of " +
                                std::to_string(place.world));
  }
  impl_->devices = {device};
  impl_->first = place.rank;
  impl_->world = place.world;
  impl_->comms = {joinJob(device, place, timeout)};
  CUDA_CHECK(cudaSetDevice(device));
}

Collectives::~Collectives() {
  for (ncclComm_t c : impl_->comms) {
    if (c == nullptr) continue;
    if (const ncclResult_t r = nccl().commDestroy(c); r != ncclSuccess) {
      std::fprintf(stderr, "graphsim: ncclCommDestroy failed: %s\n", nccl().getErrorString(r));
    }
  }
}

int Collectives::ranks() const { return impl_->world; }

int Collectives::localRanks() const { return static_cast<int>(impl_->devices.size()); }

int Collectives::firstRank() const { return impl_->first; }

int Collectives::device(int local) const { return impl_->devices.at(static_cast<std::size_t>(local)); }

std::vector<Graph> Collectives::capture(const std::vector<cudaStream_t>& streams,
                                        const std::function<void(int, cudaStream_t)>& record) const {
  const int n = localRanks();
  if (static_cast<int>(streams.size()) != n)
    throw std::invalid_argument("Collectives::capture: one stream per local rank");
  int begun = 0;
  std::vector<Graph> graphs(static_cast<std::size_t>(n));
  // Every capture that began is ended, also after a failure (no stream may stay capturing); then the first failure
  // is reported. keep == false: after a throw half-way, the graphs are discarded.
  const auto endCaptures = [&](bool keep) {
    cudaError_t first = cudaSuccess;
    int failedRank = 0;
    for (int r = 0; r < begun; ++r) {
      cudaGraph_t g = nullptr;
      cudaError_t e = cudaSetDevice(device(r));
      if (e == cudaSuccess) e = cudaStreamEndCapture(streams[static_cast<std::size_t>(r)], &g);
      if (e == cudaSuccess && keep) {
        graphs[static_cast<std::size_t>(r)] = Graph(g);
      } else if (g != nullptr) {
        (void)cudaGraphDestroy(g);
      }
      if (e != cudaSuccess && first == cudaSuccess) {
        first = e;
        failedRank = r;
      }
    }
    (void)cudaGetLastError();
    if (keep && first != cudaSuccess) {
      throwCudaError(first, "cudaStreamEndCapture", __FILE__, __LINE__,
                     "ending the capture of rank " + std::to_string(failedRank) + "'s collectives");
    }
  };
  try {
    for (int r = 0; r < n; ++r) {
      CUDA_CHECK(cudaSetDevice(device(r)));
      CUDA_CHECK_CTX(cudaStreamBeginCapture(streams[static_cast<std::size_t>(r)], cudaStreamCaptureModeThreadLocal),
                     "capturing rank " + std::to_string(r) + "'s collectives");
      ++begun;
    }
    recordGroup(impl_->first, streams, record);
  } catch (...) {
    endCaptures(false);
    throw;
  }
  endCaptures(true);
  CUDA_CHECK(cudaSetDevice(device(0)));
  return graphs;
}

void Collectives::issue(const std::vector<cudaStream_t>& streams,
                        const std::function<void(int, cudaStream_t)>& record) const {
  if (static_cast<int>(streams.size()) != localRanks())
    throw std::invalid_argument("Collectives::issue: one stream per local rank");
  recordGroup(impl_->first, streams, record);
}

void Collectives::allGatherFloats(int rank, float* buffer, std::size_t count, cudaStream_t stream) const {
  ncclComm_t c = impl_->comm(rank);
  NCCL_CHECK(nccl().allGather(buffer + static_cast<std::size_t>(rank) * count, buffer, count, ncclFloat32, c, stream),
             c);
}

void Collectives::reduceScatterSum(int rank, unsigned long long* buffer, std::size_t count, cudaStream_t stream) const {
  ncclComm_t c = impl_->comm(rank);
  NCCL_CHECK(nccl().reduceScatter(buffer, buffer + static_cast<std::size_t>(rank) * count, count, ncclUint64, ncclSum,
                                  c, stream),
             c);
}

void Collectives::allReduceMax(int rank, const unsigned int* send, unsigned int* recv, std::size_t count,
                               cudaStream_t stream) const {
  ncclComm_t c = impl_->comm(rank);
  NCCL_CHECK(nccl().allReduce(send, recv, count, ncclUint32, ncclMax, c, stream), c);
}

void Collectives::broadcastBytes(int rank, void* buffer, std::size_t bytes, cudaStream_t stream) const {
  ncclComm_t c = impl_->comm(rank);
  NCCL_CHECK(nccl().broadcast(buffer, buffer, bytes, ncclUint8, 0, c, stream), c);
}

#else // GRAPHSIM_HAVE_NCCL

bool ncclBuiltIn() { return false; }
std::string ncclVersionText() { return "none (graphsim was built without NCCL)"; }

std::vector<std::byte> newNcclIdBytes() {
  throw EnvironmentError(
      "one process per GPU needs NCCL, and this graphsim was built without it: install NCCL "
      "(libnccl-dev, or the CUDA toolkit's) and configure again (docs/MULTI-GPU.md)");
}

struct Collectives::Impl {};

Collectives::Collectives(int, const ProcessRank& place, std::chrono::milliseconds) {
  throw EnvironmentError("rank " + std::to_string(place.rank) + " of " + std::to_string(place.world) +
                         " needs NCCL, and this graphsim was built without it: install NCCL (libnccl-dev, or the "
                         "CUDA toolkit's) and configure again (docs/MULTI-GPU.md)");
}

Collectives::Collectives(const std::vector<int>& devices) {
  throw EnvironmentError(
      "more than one GPU (" + std::to_string(devices.size()) +
      " asked for) needs NCCL, and this graphsim was built without it: install NCCL (libnccl-dev, or "
      "the CUDA toolkit's) and configure again (docs/MULTI-GPU.md)");
}
Collectives::~Collectives() = default;
int Collectives::ranks() const { return 0; }
int Collectives::localRanks() const { return 0; }
int Collectives::firstRank() const { return 0; }
int Collectives::device(int) const { return 0; }
std::vector<Graph> Collectives::capture(const std::vector<cudaStream_t>&,
                                        const std::function<void(int, cudaStream_t)>&) const {
  return {};
}
void Collectives::issue(const std::vector<cudaStream_t>&, const std::function<void(int, cudaStream_t)>&) const {}
void Collectives::allGatherFloats(int, float*, std::size_t, cudaStream_t) const {}
void Collectives::reduceScatterSum(int, unsigned long long*, std::size_t, cudaStream_t) const {}
void Collectives::allReduceMax(int, const unsigned int*, unsigned int*, std::size_t, cudaStream_t) const {}
void Collectives::broadcastBytes(int, void*, std::size_t, cudaStream_t) const {}

#endif // GRAPHSIM_HAVE_NCCL

} // namespace graphsim::cuda

std::vector<std::byte> graphsim::newNcclId() { return cuda::newNcclIdBytes(); }
