// What rank 0 of a job of one process per GPU tells the other ranks (docs/MULTI-GPU.md, "Roles"). Rank 0 owns the
// window, the panel, captures and reports; every other rank runs the compute-only frame graph of its share. For every
// rank's graph to stay the one a GPU of `--gpus` would run, each must see the same resets, parameter moves and stage
// toggles before the same frame, and join the same collectives in the same order. So rank 0's backend records every
// call that changes the simulation as a RankCommand and broadcasts them, in order, before the frame launch or the
// gather that follows them; the other ranks apply them to their own backend (NBodyCudaBackend::follow).
//
// Plain C++: the commands and their wire format, tested without a GPU. The broadcast itself is NCCL's
// (compute/nbody/cuda/rank_channel.h). The processes run the same build, so a command travels as its bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "compute/nbody/nbody.h"

namespace graphsim {

enum class RankCommandKind : std::uint8_t {
  Hello = 1, // the first message: rank 0's configFingerprint (value); a rank started otherwise refuses to follow
  Reset,     // NBodyBackend::reset with the config's numbers (the strings are every rank's own: the fingerprint)
  Params,    // NBodyBackend::setParams
  Stage,     // NBodyBackend::setStageEnabled(stage, flag)
  Frame,     // launch frame `value`
  Gather,    // download() (flag 0) or downloadAccelerations() (flag 1): every rank joins the gather
  End,       // the run is over; flag 1: rank 0 ended it with an error
};

struct RankCommand {
  RankCommandKind kind = RankCommandKind::End;
  std::uint8_t flag = 0;
  std::uint8_t stage = 0;
  std::uint64_t value = 0;
  // Reset and Params:
  NBodyParams params;
  std::int64_t bodies = 0, maxBodies = 0;
  std::uint64_t seed = 0;
  std::int32_t substeps = 0, diagnosticsEvery = 0;
  std::array<bool, kStageCount> enabled{};
};
static_assert(std::is_trivially_copyable_v<RankCommand>, "a command travels as its bytes");

RankCommand resetCommand(const NBodyConfig& config);
// `base` (this rank's own configuration: scene, initial conditions) with a Reset command's numbers.
NBodyConfig configAfter(const NBodyConfig& base, const RankCommand& reset);
// A hash of everything that makes a rank's initial state and graph (scene, initial conditions, seed, counts,
// substeps, parameters, enable states, diagnostics): ranks started from other files or options differ in it.
std::uint64_t configFingerprint(const NBodyConfig& config);

// One broadcast: a header and up to kCommandsPerMessage commands in kRankMessageBytes. A longer list goes as several
// messages; the receiver applies each message's commands in order.
inline constexpr std::size_t kRankMessageBytes = 2048;
struct RankMessageHeader {
  std::uint32_t magic = 0;    // kRankMessageMagic
  std::uint32_t sequence = 0; // 0, 1, 2, ... per job: a rank that missed one, or joined another stream, stops
  std::uint32_t count = 0;    // commands that follow
};
inline constexpr std::uint32_t kRankMessageMagic = 0x6b6e7267; // "grnk"
inline constexpr std::size_t kCommandsPerMessage =
    (kRankMessageBytes - sizeof(RankMessageHeader)) / sizeof(RankCommand);

using RankMessage = std::array<std::byte, kRankMessageBytes>;

// Writes the first min(commands.size(), kCommandsPerMessage) commands as message `sequence` (none: an empty message);
// returns how many it took.
std::size_t encodeRankMessage(std::span<const RankCommand> commands, std::uint32_t sequence, RankMessage& out);
// The commands of message `expected`; std::runtime_error naming what is wrong (not a rank message, a sequence other
// than the expected one, a count beyond the message, a kind that does not exist).
std::vector<RankCommand> decodeRankMessage(std::span<const std::byte> message, std::uint32_t expected);

} // namespace graphsim
