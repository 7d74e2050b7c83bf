// The nbody stages as CUDA kernels, seen from the host: one argument struct per kernel and a builder that returns
// the complete kernel-node parameters (function, launch shape, argument bytes) for it. Plain C++ (CUDA runtime
// headers only), so the graph builder compiles as host code; the kernels live in nbody_kernels.cu and
// forces_kernel.cu.
//
// Every kernel takes exactly one struct by value. A node's parameters are then one blob of bytes, compared with
// memcmp to decide whether a node needs cudaGraphExecKernelNodeSetParams. The structs have no implicit padding
// (explicit, zeroed `pad` fields and static_asserts below), so equal parameters always mean equal bytes.
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "compute/cuda/kernel_node_spec.h"
#include "compute/nbody/cuda/tree_kernels.h"

namespace graphsim::cuda {

// Device arrays of the simulation state (owned by DeviceBodies) and the body count.
// The forces stage's scratch for its symmetric-pair kernel (forces_kernel.cu): three 64-bit fixed-point sums per
// body and one completion counter per tile, all zero between launches (the kernel leaves them so).
struct ForcesScratch {
  unsigned long long* fixed = nullptr; // 3 per body (x, y, z), for the capacity
  unsigned int* tileDone = nullptr;    // forcesTileCounters(capacity)
};

struct BodiesView {
  float4 *posMass = nullptr, *vel = nullptr, *accel = nullptr;
  float* colour = nullptr;
  int n = 0;
  ForcesScratch forces;
  float massSum = 0; // sum of the n masses (the bound the fixed-point scale of the forces sums comes from)
  TreeView tree;     // forces: tree (present() otherwise false)

  friend bool operator==(const BodiesView& a, const BodiesView& b) {
    return a.posMass == b.posMass && a.vel == b.vel && a.accel == b.accel && a.colour == b.colour && a.n == b.n &&
           a.forces.fixed == b.forces.fixed && a.forces.tileDone == b.forces.tileDone && a.massSum == b.massSum &&
           a.tree == b.tree;
  }
};

// Blow-up detection (docs/FRAME.md). The kernels that write positions or velocities check each body they write
// with isfinite and, only when one is not, atomicMin a code into one device word: the smallest code is the earliest
// stage instance of the frame (substep-major, then stage order) that wrote a non-finite value, so a NaN that later
// stages and substeps spread does not hide where it started. Accelerations are checked where they enter the state:
// integrate, finding a non-finite velocity, looks at the acceleration it read and, if that is the cause, names the
// forces node of its substep. The forces kernel itself is left untouched: a check in its epilogue changed the
// register allocation of its inner loop and cost 3.6 % at 131,072 bodies (H100). The report node copies the word
// to the host.
inline constexpr unsigned int kNoBlowUp = 0xFFFFFFFFu; // the word while every value written was finite
enum BlowUpQuantity : unsigned int { kBlowUpAcceleration = 0, kBlowUpVelocity = 1, kBlowUpPosition = 2 };
// node: the instance's place in the frame, substep * kStageCount + stage (nbody.h). Two bits keep the quantity.
constexpr unsigned int blowUpCode(unsigned int node, unsigned int quantity) { return node << 2 | quantity; }
constexpr unsigned int blowUpNode(unsigned int code) { return code >> 2; }
constexpr unsigned int blowUpQuantity(unsigned int code) { return code & 3u; }

// The device side of the report, in device memory (one per NBodyCudaBackend, zeroed with first = kNoBlowUp at reset).
struct BlowUpDeviceState {
  unsigned int first;    // min of the codes written since the reset, kNoBlowUp while healthy
  unsigned int launches; // frames the report node has run since the reset: the frame's launch ordinal
  unsigned int reported; // 1 once the host word holds the first bad frame
  unsigned int pad;
};

// The trailing argument of every kernel that writes positions or velocities.
struct BlowUpFlag {
  unsigned int* first = nullptr; // &BlowUpDeviceState::first; nullptr: not checked
  unsigned int node = 0;         // substep * kStageCount + stage
  unsigned int accelNode = 0;    // the forces node of the same substep (integrate names it for a non-finite accel)
};

struct ForcesArgs {
  const float4* posMass;
  float4* accel;
  unsigned long long* fixed; // ForcesScratch: null for the tiled kernel
  unsigned int* tileDone;
  int n;
  float G;
  float eps2;    // softening^2
  float toFixed; // fixed-point units per unit of sum (without G); 0: the tiled kernel
  // The bodies i this launch is responsible for, [begin, end) (all: 0, n). One GPU of several (docs/MULTI-GPU.md):
  // the tiled kernel computes a_i for those i against all n bodies j; the symmetric kernel visits the pair lists of
  // the tiles I that hold them (begin and end multiples of its tile, kForcesSliceAlign) and, with `partial`, only
  // adds into the fixed-point sums, which the GPUs then add up (ncclReduceScatter) and forcesConvertSpec turns into
  // accelerations.
  int begin, end, partial, pad;
};
struct AttractorArgs {
  const float4* posMass;
  float4* vel;
  int n;
  float px, py, pz, strength, dt;
  float softening; // kAttractorSoftening
  int pad;
  BlowUpFlag blowUp;
};
struct IntegrateArgs {
  float4 *posMass, *vel;
  const float4* accel;
  int n;
  float dt;
  BlowUpFlag blowUp;
};
struct DampingArgs {
  float4* vel;
  int n;
  float factor; // dampingFactor(params), computed on the host (nbody.h)
  BlowUpFlag blowUp;
};
struct BoundaryArgs {
  float4 *posMass, *vel;
  int n;
  float radius;
  BlowUpFlag blowUp;
};
struct ColourArgs {
  const float4* vel;
  float* colour;
  int n;
  float scale;
};
struct WriteRenderArgs {
  const float4* posMass;
  const float* colour;
  float4* out; // render buffer k % F (or the compute-only buffer): the one pointer that changes every frame
  int n, pad;
};
// The report node: one thread. If the word shows a blow-up and none was reported yet, it stores
// (launch ordinal << 32 | code) into the mapped pinned host word with one 8-byte store (so the host never reads half
// of it) and marks it reported; then it counts the launch. The host word is written once per reset.
struct ReportBlowUpArgs {
  BlowUpDeviceState* state;
  unsigned long long* hostWord; // device pointer of the mapped pinned word; ~0 while nothing was reported
};
static_assert(sizeof(BlowUpFlag) == 16 && sizeof(BlowUpDeviceState) == 16 && sizeof(ReportBlowUpArgs) == 16);
static_assert(sizeof(ForcesArgs) == 64 && sizeof(AttractorArgs) == 64 && sizeof(IntegrateArgs) == 48 &&
                  sizeof(DampingArgs) == 32 && sizeof(BoundaryArgs) == 40 && sizeof(ColourArgs) == 24 &&
                  sizeof(WriteRenderArgs) == 32,
              "kernel argument structs must have no implicit padding (their bytes are compared)");

// Builders (defined next to their kernels). n == 0 still yields a valid one-block launch that does nothing.
KernelNodeSpec forcesSpec(const ForcesArgs& a);
// The forces arguments for a state: the symmetric-pair kernel with its scratch and fixed-point scale where the
// softening bounds the sums (eps^2 >= kSymmetricMinEps2), the count is large enough for it to win
// (n >= kSymmetricMinBodies) and the view has scratch; otherwise the tiled kernel (docs/FORCES.md).
inline constexpr float kSymmetricMinEps2 = 1e-8f; // softening 1e-4, the smallest the scene files accept
inline constexpr int kSymmetricMinBodies = 32768; // H100: tiled 11 % faster at 16,384, symmetric 1.42x at 65,536
ForcesArgs forcesArgs(const BodiesView& b, float G, float eps2);
// A slice [begin, end) of the bodies i: both kernels' work units (the tiled kernel's 128-body blocks, the symmetric
// kernel's 256-body tiles) divide this, so slices that start at its multiples split the work exactly.
inline constexpr int kForcesSliceAlign = 256;
// The partial-sum epilogue of one GPU of several: after the sums of the slice [a.begin, a.end) were added up over the
// GPUs (in place, ncclReduceScatter) and the tiles' non-finite bits combined into `tileFlags` (ncclAllReduce, max),
// writes a_i of the slice as the single-GPU kernel would (same fixed-point total, same conversion: bit-identical),
// and zeroes every sum and tile counter of the arrays (`bodies` entries, `tiles` counters) for the next launch.
// With a.toFixed == 0 (the tiled kernel wrote a_i itself) it does nothing.
struct ForcesConvertArgs {
  unsigned long long* fixed;
  unsigned int* tileDone;
  const unsigned int* tileFlags;
  float4* accel;
  int begin, end;
  int bodies, tiles; // the arrays' extent to zero
  float G, toFixed;
};
static_assert(sizeof(ForcesConvertArgs) == 56, "no implicit padding");
KernelNodeSpec forcesConvertSpec(const ForcesConvertArgs& a);
// Completion counters ForcesScratch::tileDone needs for up to `capacity` bodies.
std::size_t forcesTileCounters(std::size_t capacity);
KernelNodeSpec attractorSpec(const AttractorArgs& a);
KernelNodeSpec integrateSpec(const IntegrateArgs& a);
KernelNodeSpec dampingSpec(const DampingArgs& a);
KernelNodeSpec boundarySpec(const BoundaryArgs& a);
KernelNodeSpec colourSpec(const ColourArgs& a);
KernelNodeSpec writeRenderSpec(const WriteRenderArgs& a);
KernelNodeSpec reportBlowUpSpec(const ReportBlowUpArgs& a);

} // namespace graphsim::cuda
