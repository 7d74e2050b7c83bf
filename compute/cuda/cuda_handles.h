// Move-only owners for CUDA runtime handles: one owner per handle, whoever holds it destroys it, everybody else
// gets the raw handle through get(). How a handle is given back is a policy type (a template argument), so an owner
// is the handle alone and needs no per-object std::function. Owners never synchronise: the holder makes sure the GPU
// is done first.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "compute/cuda/cuda_check.h"

namespace graphsim::cuda {

// Release: `static constexpr Handle kNone`, the value that owns nothing, and `static void release(Handle) noexcept`,
// which gives a handle back (failures are logged, never thrown: it runs in destructors).
template <typename Handle, typename Release>
class UniqueHandle {
public:
  UniqueHandle() = default;
  explicit UniqueHandle(Handle handle) noexcept : handle_(handle) {}
  ~UniqueHandle() { reset(); }

  UniqueHandle(const UniqueHandle&) = delete;
  UniqueHandle& operator=(const UniqueHandle&) = delete;
  UniqueHandle(UniqueHandle&& other) noexcept : handle_(other.release()) {}
  UniqueHandle& operator=(UniqueHandle&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }

  Handle get() const noexcept { return handle_; }
  explicit operator bool() const noexcept { return handle_ != Release::kNone; }

  Handle release() noexcept { return std::exchange(handle_, Release::kNone); } // the caller owns it now
  void reset(Handle handle = Release::kNone) noexcept {
    const Handle old = std::exchange(handle_, handle);
    if (old != Release::kNone) Release::release(old);
  }

private:
  Handle handle_ = Release::kNone;
};

// The policy of a runtime handle type: nullptr owns nothing, Destroy gives one back.
template <typename Handle, cudaError_t (*Destroy)(Handle)>
struct DestroyWith {
  static constexpr Handle kNone = nullptr;
  static void release(Handle handle) noexcept { CUDA_LOG(Destroy(handle)); }
};

template <typename Handle, cudaError_t (*Destroy)(Handle)>
using CudaHandle = UniqueHandle<Handle, DestroyWith<Handle, Destroy>>;

using Stream = CudaHandle<cudaStream_t, cudaStreamDestroy>;
using Event = CudaHandle<cudaEvent_t, cudaEventDestroy>;
using Graph = CudaHandle<cudaGraph_t, cudaGraphDestroy>;
using GraphExec = CudaHandle<cudaGraphExec_t, cudaGraphExecDestroy>;

// A stream that does not synchronise with the legacy default stream (other libraries' work there cannot stall us).
inline Stream makeStream() {
  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return Stream(s);
}

// With timing (cudaEventElapsedTime needs it).
inline Event makeTimingEvent() {
  cudaEvent_t e = nullptr;
  CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDefault));
  return Event(e);
}

inline Graph makeGraph() {
  cudaGraph_t g = nullptr;
  CUDA_CHECK(cudaGraphCreate(&g, 0));
  return Graph(g);
}

// How an array's bytes are obtained and given back (CudaArray's policy). release() logs a failure, never throws.
struct DeviceAllocation { // cudaMalloc / cudaFree
  static void* allocate(std::size_t bytes) {
    void* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  static void release(void* p) noexcept { CUDA_LOG(cudaFree(p)); }
};

// cudaHostAlloc / cudaFreeHost: pinned host memory, so device<->host copies into it are true asynchronous DMA. With
// cudaHostAllocMapped, kernels can also write it directly through cudaHostGetDevicePointer's pointer.
struct PinnedAllocation {
  static void* allocate(std::size_t bytes, unsigned int flags = cudaHostAllocDefault) {
    void* p = nullptr;
    CUDA_CHECK(cudaHostAlloc(&p, bytes, flags));
    return p;
  }
  static void release(void* p) noexcept { CUDA_LOG(cudaFreeHost(p)); }
};

// Owner of an array of T allocated by Allocation; extra constructor arguments go to Allocation::allocate (the
// pinned flags). Sized once per structural change (reset), never inside a frame.
template <typename T, typename Allocation>
class CudaArray {
public:
  CudaArray() = default;
  template <typename... AllocationArgs>
  explicit CudaArray(std::size_t count, AllocationArgs... args) : count_(count) {
    // At least one element: a zero-body scene still gets valid (never dereferenced) kernel arguments.
    data_ = static_cast<T*>(Allocation::allocate((count > 0 ? count : 1) * sizeof(T), args...));
  }
  ~CudaArray() { reset(); }

  CudaArray(const CudaArray&) = delete;
  CudaArray& operator=(const CudaArray&) = delete;
  CudaArray(CudaArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  CudaArray& operator=(CudaArray&& other) noexcept {
    if (this != &other) {
      reset();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  T* get() const noexcept { return data_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  void reset() noexcept {
    if (data_ != nullptr) Allocation::release(std::exchange(data_, nullptr));
    count_ = 0;
  }

private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// cudaMalloc'd array of T.
template <typename T>
using DeviceArray = CudaArray<T, DeviceAllocation>;

// cudaHostAlloc'd (pinned) array of T; PinnedArray<T>(n, cudaHostAllocMapped) for one kernels can write.
template <typename T>
using PinnedArray = CudaArray<T, PinnedAllocation>;

// The device's pointer to a mapped pinned array (PinnedArray<T>(n, cudaHostAllocMapped)): kernels write it in place.
template <typename T>
T* mappedOnDevice(const PinnedArray<T>& a) {
  void* p = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(&p, a.get(), 0));
  return static_cast<T*>(p);
}

// Synchronous copies of a host vector's elements from or to the front of a device array of the same element size
// (Float4 and float4). A pageable upload may still be landing when cudaMemcpy returns, on the legacy stream a
// non-blocking stream does not order against: whoever launches next waits for cudaStreamLegacy first.
template <typename H, typename D>
void download(std::vector<H>& dst, const DeviceArray<D>& src) {
  static_assert(sizeof(H) == sizeof(D));
  CUDA_CHECK(cudaMemcpy(dst.data(), src.get(), dst.size() * sizeof(H), cudaMemcpyDeviceToHost));
}
template <typename H, typename D>
void upload(const DeviceArray<D>& dst, const std::vector<H>& src) {
  static_assert(sizeof(H) == sizeof(D));
  CUDA_CHECK(cudaMemcpy(dst.get(), src.data(), src.size() * sizeof(H), cudaMemcpyHostToDevice));
}

} // namespace graphsim::cuda
