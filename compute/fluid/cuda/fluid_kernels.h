// The fluid scene's kernels seen from the host: the device memory they share (control block, blow-up word, report,
// the state and the scratch) and what the host resolves for them (KernelParams), and specFor, the complete
// parameters of a kernel row's node. Each kernel's argument struct (taken by value, no implicit padding, so equal
// parameters are equal bytes and a node is updated only when its bytes change) and its case of specFor live next to
// the kernel in fluid_kernels.cu, so a new node does not change this header. The formulas: compute/fluid/sph_math.h.
// C++17 (nvcc reads it).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "compute/cuda/kernel_node_spec.h"
#include "compute/fluid/fluid_steps.h"
#include "compute/fluid/sph_math.h"

namespace graphsim::fluid::gpu {

// The frame's control block in device memory: what the WHILE loop's kernels decide and read.
struct FrameControl {
  unsigned long long frame; // frame index k, set by frame_begin
  double time;              // simulated time since the reset [s]: the sum of every substep's dt, in double (as the CPU)
  unsigned long long ticks; // DFSPH: the current iteration's exact error sum (sph_math::errorTicks), reset by check
  float covered;            // simulated time covered so far in this frame [s]
  int done;                 // substeps done so far in this frame
  float dt;                 // the current substep's dt [s], set by cfl
  unsigned maxSpeedBits;    // max |v| over the particles as float bits (non-negative floats order as integers)
  unsigned blocksDone;      // cfl's last-block counter
  int proceed;              // the loop condition the condition kernel computed (what the host reads in HostDecided)
  int solveDone;            // DFSPH: iterations (velocity updates) of the solve in progress
  int solveApply;           // DFSPH: the check's verdict for the kappa kernel after it (1: apply, 0: converged)
  int itMin[2], itMax[2], itTotal[2]; // per solve (sph_math::Solve) over the frame's substeps
  unsigned peakBits;                  // max (rho / rho0 - 1, 0) at the substeps' starts, as float bits
  float densityError;                 // the last density solve's average error
  // The re-sort IF (docs/FLUID.md, "Neighbour lists with a skin"): cfl decides from these, neighbour_lists sets them.
  unsigned maxMoveBits; // max |x - x at the last build|^2 over the particles as float bits (cfl's reduction)
  int resort;           // cfl's decision for this step (what the host reads in HostDecided): 1 sort and build, 0 keep
  int listOverflow;     // a lane of the last build had more neighbours than its list holds (it walks its cells)
  int listAge;          // steps since the last build
  float builtSkin;      // the skin the lists were built with [m] (an edit of the skin applies to the next build);
                        // 0: no lists describe the current order (after an upload, under WCSPH, or a skin of 0)
  int resorts;          // re-sorts in this frame
};

// The first blow-up since the reset: atomicMin of (code << 32 | particle). code = substep << 9 | stage << 4 | what,
// stage the FluidStep of the kernel that flagged it (< 32).
inline constexpr unsigned long long kNoBlowUp = ~0ull;
enum BlowUpWhat : unsigned { kWhatNonFinite = 0, kWhatDensity = 1, kWhatOutside = 2 };
struct BlowUpState {
  unsigned long long first;        // kNoBlowUp while healthy
  unsigned long long frameOfFirst; // the frame in which `first` was first seen by the report kernel
};

// What the report kernel leaves in mapped pinned host memory after every frame. seq is odd while it writes, even
// after: the host reads seq, the fields, seq again, and keeps the fields only when both reads agree and are even.
struct HostReport {
  unsigned long long seq;
  unsigned long long frame;
  int substeps;
  float lastDt, covered;
  float runPeak;                      // the largest peakCompression of the frames since the report was cleared
  double time;                        // FrameControl::time
  unsigned long long blowUp;          // BlowUpState::first
  unsigned long long blowUpFrame;     // BlowUpState::frameOfFirst
  int itMin[2], itMax[2], itTotal[2]; // FrameControl's
  float peakCompression, densityError;
  int resorts, pad; // FrameControl's
};

struct Grid {
  int nx, ny, nz;
  float cellSize;
};

inline constexpr int kMaxOutputs = 4;
struct OutputArgs { // the render buffers: frame k writes out[k % slots]
  float4* out[kMaxOutputs];
  int slots, pad;
};

// DFSPH's neighbour lists with a skin (docs/FLUID.md, "Neighbour lists with a skin"). neighbour_lists writes them in
// the re-sort IF after the sort, walking the 27 cells: per (particle, lane) slot s = 3 i + lane, the lane's candidates
// with r^2 < (h + skin)^2 in the walk's order as 16-bit offsets from its first one (base), at offset[k * 3n + s]. Every
// DFSPH neighbour pass of that step and of the later steps that keep the order reads a particle's three lists as one,
// dealt out among its three lanes (forEachNeighbourInSlab), and tests r^2 < h^2 itself; cfl re-sorts once a particle
// has moved half the skin since the build (no pair can have come within h unlisted), or after kMaxListAge steps. A
// lane with more than kListPerLane candidates, or one further than 65,535 sorted places from its first, has count
// kListOverflow, and its particle walks its cells, which are fresh only in the build's step: cfl re-sorts the next
// step. A pass adds the walk's terms (the walk's other candidates added zeros), in another order: the same sums within
// float rounding.
inline constexpr int kListPerLane = sph_math::kListPerLane;
inline constexpr int kMaxListAge = 50;
inline constexpr unsigned char kListOverflow = 0xff;
struct NeighbourLists {
  unsigned* base = nullptr;         // nullptr: no lists (every pass walks the cells)
  unsigned char* count = nullptr;   // per slot: neighbours listed, or kListOverflow
  unsigned short* offset = nullptr; // kListPerLane per slot, slot-minor
};

// The substep's scratch, carved out of one allocation (preallocated, or a graph memory node's).
struct Scratch {
  unsigned *keys = nullptr, *keysAlt = nullptr, *vals = nullptr, *valsAlt = nullptr;
  unsigned *cellStart = nullptr, *cellEnd = nullptr;
  float4 *posS = nullptr, *velS = nullptr, *accel = nullptr; // accel: DFSPH's velocities after the non-pressure forces
  float4* posBuilt = nullptr; // with lists: each particle's position at the last build (sorted order), for cfl's test
  float* alpha = nullptr;     // DFSPH: the factor per particle
  float4* posKappa = nullptr; // DFSPH: (x_i, kappa_i / rho_i), the errors kernel's for the kappa kernel
  float4* boundaryGrad = nullptr; // DFSPH: sum_b psi_b grad W_ib per particle (density_factor's)
  NeighbourLists lists;           // DFSPH, with FluidCudaOptions::neighbourLists
  void* sortTemp = nullptr;
  std::size_t sortTempBytes = 0;
  bool sortedInAlt = false; // where CUB's DoubleBuffer leaves the result (fixed for a key-bit count: set by the sort)
  const unsigned* sortedKeys() const { return sortedInAlt ? keysAlt : keys; }
  const unsigned* sortedVals() const { return sortedInAlt ? valsAlt : vals; }
};

// One set of boundary particles (compute/fluid/dfsph.h, Boundary) in its own grid: the walls', the obstacle's.
// In device memory, the two as an array (the kernels take its address: their arguments stay within
// KernelNodeSpec::kMaxArgBytes). frame_begin places the obstacle's (origin: the sphere's centre) and switches it.
struct BoundaryArgs {
  const float4* pos = nullptr;
  const float* volume = nullptr; // psi = rho0 x volume
  const unsigned *cellStart = nullptr, *cellEnd = nullptr;
  Grid grid{1, 1, 1, 1.0f};
  sph_math::BoundaryFrame frame; // the CPU Boundary's; frame_begin places the obstacle's origin every frame
  int built = 0;                 // particles built
  int n = 0;                     // particles the kernels see: built, or 0 (none, or the obstacle switched off)
};
inline constexpr int kWallBoundary = 0, kObstacleBoundary = 1;

struct FluidDiagnosticsDeviceState;
struct FluidDiagnosticsHostReport;

// The device state the graph's kernels read and write (owned by the backend).
struct DeviceState {
  float4 *pos = nullptr, *vel = nullptr;
  float2* rhoP = nullptr;
  FrameControl* ctrl = nullptr;
  BlowUpState* blowUp = nullptr;
  HostReport* report = nullptr; // device pointer of the mapped pinned report
  FluidDiagnosticsDeviceState* diagnostics = nullptr;
  FluidDiagnosticsHostReport* diagnosticsReport = nullptr; // device pointer of the mapped pinned sample
  OutputArgs outputs{};
  BoundaryArgs* boundary = nullptr; // device memory, [kWallBoundary] and [kObstacleBoundary], always present
  int n = 0;
};

// What a frame's kernels are given, resolved on the host from the parameters and switches (kernelParams in
// fluid_frame_graph.cpp): the values node updates change. A switch that is a kernel argument is resolved here
// (viscosity off: alpha = 0; gravity off: g = 0).
struct KernelParams {
  float h = 0, radius = 0, mass = 0, cs = 0;            // smoothing length, particle radius and mass, speed of sound
  float wallRadius = 0;                                 // wallRule's: where the walls reflect
  int wallMirror = 0;                                   // wallRule's: 1 mirrors (DFSPH), 0 clamps
  float restDensity = 0, stiffness = 0, maxDensity = 0; // maxDensity: the blow-up threshold
  float alpha = 0, gravity[3] = {0, 0, 0};
  float cflNumber = 0, frameDt = 0, fixedDt = 0; // fixedDt > 0: FixedSubsteps' frameDt / S
  int maxSubsteps = 1;
  float obstacleCentre[3] = {0, 0, 0}, obstacleRadius = 0, wallRestitution = 0, box[3] = {0, 0, 0};
  int obstacleOn = 0; // its switch on and radius > 0: frame_begin turns its boundary particles on
  int colourByDensity = 0;
  float colourScale = 0;
  int solver = 0; // FluidSolver: the SWITCH's value (cfl sets it)
  float skin = 0; // DFSPH with lists in a graph with the re-sort IF: the lists' skin [m]; 0: re-sort every step
  float lambda = 0, spacing = 0, minDt = 0, maxDt = 0; // DFSPH
  sph_math::SolveRule rule[2];                         // per sph_math::Solve (FixedSubsteps: the fixed count)
};

// The graph's conditional handles (0: none): the substep WHILE, the re-sort IF, the solver SWITCH, DFSPH's two solve
// WHILEs.
struct Handles {
  unsigned long long frame = 0, resort = 0, solver = 0, divergence = 0, density = 0;
};

using KernelSpec = cuda::KernelNodeSpec; // the kit's one spec type (compute/cuda/kernel_node_spec.h)

// The spec of one kernel node (a row with StepNode::Kernel), the same for every substep; frame: frame_begin's frame
// index.
KernelSpec specFor(FluidStep step, const DeviceState& d, const Scratch& s, const KernelParams& k,
                   const sph_math::GridDims& g, const Handles& handles, std::uint64_t frame);

// The sort by cell key: CUB DeviceRadixSort::SortPairs on bits [0, keyBits) of keys/vals with their alternate
// buffers (DoubleBuffer). sortTempBytes: the temp storage it needs. sortOnStream: one sort on `stream` (stream
// capture of it is the child graph); returns whether the result is in the alternate buffers.
std::size_t sortTempBytes(int n, int keyBits);
bool sortOnStream(void* temp, std::size_t tempBytes, unsigned* keys, unsigned* keysAlt, unsigned* vals,
                  unsigned* valsAlt, int n, int keyBits, cudaStream_t stream);

} // namespace graphsim::fluid::gpu
