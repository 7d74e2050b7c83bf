// The complete parameters of one kernel node, the one type every scene's graph builder uses: the function, the launch
// shape and the argument bytes of the kernel's single by-value struct. Scenes' argument structs have no implicit
// padding, so equal parameters are equal bytes and a node needs cudaGraphExecKernelNodeSetParams exactly when its
// spec compares unequal to the one the exec holds. Plain C++ (CUDA runtime headers only).
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace graphsim::cuda {

// Complete parameters of one kernel node.
struct KernelNodeSpec {
  static constexpr std::size_t kMaxArgBytes =
      176; // the largest argument struct of any scene's kernels (DFSPH's non_pressure, with its neighbour lists)

  const void* func = nullptr;
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  unsigned sharedMemBytes = 0;
  std::uint32_t argBytes = 0;
  alignas(16) std::array<std::byte, kMaxArgBytes> args{};

  template <typename Args>
  static KernelNodeSpec make(const void* func, dim3 grid, dim3 block, const Args& a) {
    static_assert(sizeof(Args) <= kMaxArgBytes && alignof(Args) <= 16);
    KernelNodeSpec spec;
    spec.func = func;
    spec.grid = grid;
    spec.block = block;
    spec.argBytes = static_cast<std::uint32_t>(sizeof(Args));
    std::memcpy(spec.args.data(), &a, sizeof(Args));
    return spec;
  }

  // For cudaGraphAddKernelNode / cudaGraphExecKernelNodeSetParams. argSlot receives the one argument pointer and
  // must live until that call returns (CUDA copies the argument bytes during the call).
  cudaKernelNodeParams nodeParams(void** argSlot) const {
    argSlot[0] = const_cast<std::byte*>(args.data());
    cudaKernelNodeParams p{};
    p.func = const_cast<void*>(func);
    p.gridDim = grid;
    p.blockDim = block;
    p.sharedMemBytes = sharedMemBytes;
    p.kernelParams = argSlot;
    p.extra = nullptr;
    return p;
  }

  friend bool operator==(const KernelNodeSpec& a, const KernelNodeSpec& b) {
    return a.func == b.func && a.grid.x == b.grid.x && a.grid.y == b.grid.y && a.grid.z == b.grid.z &&
           a.block.x == b.block.x && a.block.y == b.block.y && a.block.z == b.block.z &&
           a.sharedMemBytes == b.sharedMemBytes && a.argBytes == b.argBytes &&
           std::memcmp(a.args.data(), b.args.data(), a.argBytes) == 0;
  }
};

// A spec from a kernel taking one struct by value, for `threads` threads in blocks of `block` (at least one block,
// so that a count of 0 still yields a valid launch that does nothing).
template <typename Args>
KernelNodeSpec kernelSpecOf(void (*kernel)(Args), const Args& args, unsigned threads, unsigned block) {
  const unsigned blocks = threads > 0 ? (threads + block - 1) / block : 1u;
  return KernelNodeSpec::make(reinterpret_cast<const void*>(kernel), dim3(blocks), dim3(block), args);
}

} // namespace graphsim::cuda
