// The snapshot file format (issue 15, docs/SNAPSHOTS.md): a SceneState as bytes and back. Versioned, little-endian
// field by field (no struct is copied, so no padding or host byte order reaches the file), checksummed.
//
//   offset  bytes  field
//   0       8      magic 89 47 53 53 0D 0A 1A 0A ("\x89GSS\r\n\x1a\n": a high bit and both line ends, so a transfer
//                  that strips the 8th bit or converts line ends is caught before the checksum)
//   8       4      u32 format version (kSnapshotVersion)
//   12      8      u64 file length in bytes, checksum included
//   20      …      str scene | i64 count | u64 frame | f64 simTime | str backend | str settings (scene-file JSON)
//                  | u32 arrays | per array: str name, u32 components, u64 values (= count x components)
//   …       …      payload: each array's values in table order, IEEE-754 binary32 little-endian
//   end-8   8      u64 FNV-1a 64 of every byte before it
//   str = u32 length + that many UTF-8 bytes, no terminator; integers two's complement little-endian; f64 IEEE-754.
//
// Reading refuses, with UsageError "<source>: <what is wrong>" (exit 2) and before anything else happens: an empty or
// foreign file (magic), another format version (older or newer, named), a file shorter than its header says
// (truncated, and whether the cut is in the header, the payload or the checksum) or longer, a checksum mismatch
// (corrupted), and a header whose parts disagree (an array whose size does not match the count, limits exceeded).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "app/scenes/scene_state.h"

namespace graphsim::app {

inline constexpr std::uint32_t kSnapshotVersion = 1;
inline constexpr std::array<std::uint8_t, 8> kSnapshotMagic = {0x89, 'G', 'S', 'S', 0x0D, 0x0A, 0x1A, 0x0A};

// Limits a reader holds a header to (a hostile length cannot make it allocate gigabytes before the checksum).
inline constexpr std::uint32_t kMaxSnapshotNameBytes = 64;          // scene, backend and array names
inline constexpr std::uint32_t kMaxSnapshotSettingsBytes = 1 << 20; // as a --config file
inline constexpr std::uint32_t kMaxSnapshotArrays = 16;
inline constexpr std::uint32_t kMaxSnapshotComponents = 16;
inline constexpr std::int64_t kMaxSnapshotCount = std::int64_t{1} << 40; // elements; the scenes hold fewer
// The frame counter a resumed run counts on from (a run adds at most 10^12 frames): far below where the sum wraps.
inline constexpr std::uint64_t kMaxSnapshotFrame = std::uint64_t{1} << 62;

// The file's bytes. Throws std::invalid_argument for a state the format cannot hold (a name over the limits, an
// array whose size is not count x components): a bug of the scene that made it.
std::vector<std::byte> encodeSnapshot(const SceneState& state);
// The state in `bytes`, every check above passed; state.source = source. Throws UsageError.
SceneState decodeSnapshot(std::span<const std::byte> bytes, const std::string& source);

std::uint64_t fnv1a64(std::span<const std::byte> bytes);

} // namespace graphsim::app
