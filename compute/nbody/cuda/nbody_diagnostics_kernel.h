// The diagnostics node of the nbody frame graph (issue 15, docs/DIAGNOSTICS.md), seen from the host: its argument
// struct, the device and host memory it writes and its kernel-node parameters. One kernel: each block sums its
// bodies' terms (compute/nbody/nbody_diagnostics.h) into a partial, and the last block to finish (a completion counter,
// the only atomic) adds the partials in block order and writes the sample into mapped pinned host memory. The order
// of every sum is fixed by the body count alone, so a state gives the same bits every time; no float atomics.
// Plain C++ (CUDA runtime headers only), like nbody_kernels.h.
#pragma once

#include <cuda_runtime_api.h>

#include "compute/nbody/cuda/nbody_kernels.h"
#include "compute/nbody/nbody_diagnostics.h"
#include "compute/vec3.h"

namespace graphsim::cuda {

inline constexpr int kDiagnosticsBlock = 256; // threads per block = bodies j per tile
inline constexpr int kDiagnosticsRows = 2;    // bodies i per thread (one shared-memory load feeds two pairs)
inline constexpr int kDiagnosticsRowTile = kDiagnosticsBlock * kDiagnosticsRows; // bodies i per work item
inline constexpr int kDiagnosticsMaxBlocks = 2048;  // partial slots; the grid never exceeds it
inline constexpr int kDiagnosticsWorkTarget = 2048; // work items the j split aims for (~16 per SM on an H100)

// How the N^2 pair sums are cut: row tiles of kDiagnosticsRowTile bodies i, each split into `splits` ranges of j
// tiles (kDiagnosticsBlock bodies) so that small N still fills the GPU; work item = (row tile, split), item w handled
// by block w % blocks. Host and kernel compute it from n alike.
struct DiagnosticsLayout {
  int rowTiles;      // ceil(n / kDiagnosticsRowTile), at least 1
  int jTiles;        // ceil(n / kDiagnosticsBlock), at least 1
  int splits;        // j ranges per row tile, none empty
  int tilesPerSplit; // j tiles per range (the last range may hold fewer)
  int items;         // rowTiles * splits
  int blocks;        // min(items, kDiagnosticsMaxBlocks)
};
GRAPHSIM_HD inline DiagnosticsLayout diagnosticsLayout(int n) {
  DiagnosticsLayout l{};
  l.rowTiles = n > 0 ? (n + kDiagnosticsRowTile - 1) / kDiagnosticsRowTile : 1;
  l.jTiles = n > 0 ? (n + kDiagnosticsBlock - 1) / kDiagnosticsBlock : 1;
  const int wanted = (kDiagnosticsWorkTarget + l.rowTiles - 1) / l.rowTiles;
  const int splits = wanted < 1 ? 1 : (wanted > l.jTiles ? l.jTiles : wanted);
  l.tilesPerSplit = (l.jTiles + splits - 1) / splits;
  l.splits = (l.jTiles + l.tilesPerSplit - 1) / l.tilesPerSplit;
  l.items = l.rowTiles * l.splits;
  l.blocks = l.items < kDiagnosticsMaxBlocks ? l.items : kDiagnosticsMaxBlocks;
  return l;
}

// Device memory of the node (one per NBodyCudaBackend, zeroed when allocated): the partials and the completion counter,
// which the last block puts back to 0, so every launch finds it at 0.
struct DiagnosticsDeviceState {
  unsigned int blocksDone, pad;
  unsigned long long seq; // the host report's sequence number (kept here: the kernel never reads host memory)
  DiagnosticSums partials[kDiagnosticsMaxBlocks];
};

// The sample in mapped pinned host memory. seq is odd while the kernel writes and even after (0: nothing written
// since the host cleared it): the host reads seq, the fields, seq again, and keeps the fields when both reads agree
// and are even and non-zero (the fluid's frame report does the same, compute/fluid/cuda).
struct DiagnosticsHostReport {
  unsigned long long seq;
  unsigned long long frame;
  DiagnosticSums sums;
};

struct DiagnosticsArgs {
  const float4* posMass;
  const float4* vel;   // half-step velocities v(t - dt/2)
  const float4* accel; // a(t): what the forces node before this one wrote
  DiagnosticsDeviceState* state;
  DiagnosticsHostReport* host; // device pointer of the mapped pinned report
  unsigned long long frame;    // the frame this sample belongs to (set by the host on the frames that sample)
  int n;
  float G;
  float eps2;   // softening^2, as the forces node's
  float halfDt; // dt / 2: the velocity re-synchronisation (0: the velocities as they are)
};
static_assert(sizeof(DiagnosticsArgs) == 64, "no implicit padding (kernel arguments are compared as bytes)");
static_assert(sizeof(DiagnosticsArgs) <= KernelNodeSpec::kMaxArgBytes);

KernelNodeSpec diagnosticsSpec(const DiagnosticsArgs& a);

} // namespace graphsim::cuda
