// The fluid scene's kernels seen from the host: one argument struct per kernel (taken by value, no implicit padding,
// so equal parameters are equal bytes and a node is updated only when its bytes change) and a builder of the
// complete kernel-node parameters. The kernels live in fluid_kernels.cu; the formulas in compute/fluid/sph_math.h.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "compute/cuda/kernel_node_spec.h"

namespace graphsim::fluid::gpu {

// The frame's control block in device memory: what the WHILE loop's kernels decide and read.
struct FrameControl {
  unsigned long long frame; // frame index k, set by frame_begin
  double time;              // simulated time since the reset [s]: the sum of every substep's dt, in double (as the CPU)
  float covered;            // simulated time covered so far in this frame [s]
  int done;                 // substeps done so far in this frame
  float dt;                 // the current substep's dt [s], set by cfl
  unsigned maxSpeedBits;    // max |v| over the particles as float bits (non-negative floats order as integers)
  unsigned blocksDone;      // cfl's last-block counter
  int proceed;              // the loop condition the condition kernel computed (what the host reads in HostDecided)
  int pad;
};

// The first blow-up since the reset: atomicMin of (code << 32 | particle). code = substep << 8 | stage << 4 | what.
inline constexpr unsigned long long kNoBlowUp = ~0ull;
enum BlowUpStage : unsigned { kStageDensity = 0, kStageIntegrate = 1, kStageWalls = 2 };
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
  float lastDt;
  float covered;
  int pad;
  double time;                    // FrameControl::time
  unsigned long long blowUp;      // BlowUpState::first
  unsigned long long blowUpFrame; // BlowUpState::frameOfFirst
};

struct Grid {
  int nx, ny, nz;
  float cellSize;
};

struct FrameBeginArgs {
  FrameControl* ctrl;
  unsigned long long frame;
  unsigned long long handle; // cudaGraphConditionalHandle; 0 = none (fixed substeps, host-decided)
  float frameDt;
  int maxSubsteps;
};
struct CflArgs {
  const float4* vel;
  FrameControl* ctrl;
  int n;
  float cfl, h, cs, frameDt;
  int maxSubsteps;
  float fixedDt; // > 0: the fixed-substeps graph's dt, used instead of the frame rule
  int pad;
};
struct KeysArgs {
  const float4* pos;
  unsigned* keys;
  unsigned* vals;
  Grid grid;
  int n;
  int pad;
};
struct RangesArgs {
  const unsigned* keys; // sorted
  unsigned* cellStart;
  unsigned* cellEnd;
  int n;
  int pad;
};
struct ReorderArgs {
  const unsigned* vals; // sorted: the old index of sorted particle i
  const float4* pos;
  const float4* vel;
  float4* posS;
  float4* velS;
  int n;
  int pad;
};
struct DensityArgs {
  const float4* posS;
  const unsigned* cellStart;
  const unsigned* cellEnd;
  float2* rhoP; // (rho, p / rho^2)
  BlowUpState* blowUp;
  const FrameControl* ctrl;
  Grid grid;
  int n;
  float h, mass, rho0, stiffness, maxDensity;
  int pad;
};
struct ForcesArgs {
  const float4* posS;
  const float4* velS;
  const float2* rhoP;
  const unsigned* cellStart;
  const unsigned* cellEnd;
  float4* accel;
  Grid grid;
  int n;
  float h, mass, cs, alpha, gx, gy, gz;
};
struct IntegrateArgs {
  const float4* posS;
  const float4* velS;
  const float4* accel;
  float4* pos;
  float4* vel;
  const FrameControl* ctrl;
  BlowUpState* blowUp;
  int n;
  int pad;
};
struct ObstacleArgs {
  float4* pos;
  float4* vel;
  int n;
  float cx, cy, cz, sphereRadius, radius, restitution;
};
struct WallsArgs {
  float4* pos;
  float4* vel;
  BlowUpState* blowUp;
  const FrameControl* ctrl;
  int n;
  float bx, by, bz, radius, restitution;
  int pad;
};
struct ConditionArgs {
  FrameControl* ctrl;
  unsigned long long handle; // 0 = none
  float frameDt;
  int maxSubsteps;
};
inline constexpr int kMaxOutputs = 4;
struct OutputArgs { // the render buffers: frame k writes out[k % slots]
  float4* out[kMaxOutputs];
  int slots;
  int pad;
};
struct WriteRenderArgs {
  const float4* pos;
  const FrameControl* ctrl;
  OutputArgs outputs;
  int n;
  float constantColour;
};
struct ColourArgs {
  const float4* vel;
  const float2* rhoP;
  const FrameControl* ctrl;
  OutputArgs outputs;
  int n;
  int byDensity;
  float scale, rho0;
};
struct ReportArgs {
  const FrameControl* ctrl;
  BlowUpState* blowUp;
  HostReport* host; // device pointer of the mapped pinned report
};

// Complete parameters of one kernel node: the kit's one spec type (compute/cuda/kernel_node_spec.h).
using KernelSpec = cuda::KernelNodeSpec;

KernelSpec frameBeginSpec(const FrameBeginArgs& a);
KernelSpec cflSpec(const CflArgs& a);
KernelSpec keysSpec(const KeysArgs& a);
KernelSpec rangesSpec(const RangesArgs& a);
KernelSpec reorderSpec(const ReorderArgs& a);
KernelSpec densitySpec(const DensityArgs& a);
KernelSpec forcesSpec(const ForcesArgs& a);
KernelSpec integrateSpec(const IntegrateArgs& a);
KernelSpec obstacleSpec(const ObstacleArgs& a);
KernelSpec wallsSpec(const WallsArgs& a);
KernelSpec conditionSpec(const ConditionArgs& a);
KernelSpec writeRenderSpec(const WriteRenderArgs& a);
KernelSpec colourSpec(const ColourArgs& a);
KernelSpec reportSpec(const ReportArgs& a);

// The sort by cell key: CUB DeviceRadixSort::SortPairs on bits [0, keyBits) of keys/vals with their alternate
// buffers (DoubleBuffer). sortTempBytes: the temp storage it needs. sortOnStream: one sort on `stream` (stream
// capture of it is the child graph); returns whether the result is in the alternate buffers.
std::size_t sortTempBytes(int n, int keyBits);
bool sortOnStream(void* temp, std::size_t tempBytes, unsigned* keys, unsigned* keysAlt, unsigned* vals,
                  unsigned* valsAlt, int n, int keyBits, cudaStream_t stream);

} // namespace graphsim::fluid::gpu
