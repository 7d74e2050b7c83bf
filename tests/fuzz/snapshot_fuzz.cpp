// Fuzz target: snapshot files (`graphsim run --load-state FILE`, app/snapshot/snapshot.h, layout in
// app/snapshot/snapshot_format.h). What the run does with one before its first frame, without a GPU: the file read
// and decoded, its settings over the scene's preset (settingsOfSnapshot), the command line's count and settings
// checks (parseCountAndFramesInFlight), and for small counts the CPU producer taking the state (loadState).
//
// The first byte picks how the rest becomes the file. Even: the rest is the file as it is (the magic, version,
// length and checksum checks get fuzzed). Odd: the rest is a file's contents between the fixed prefix and the
// checksum (scene name, count, ..., arrays, payload), and the target writes the magic, the version, the length and
// the checksum around it, so that the header and payload get fuzzed past the checksum, which random bytes would
// almost never match. A seed of the odd kind from a snapshot: `{ printf S; tail -c +21 s.gss | head -c -8; }`.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "app/cli/cli.h"
#include "app/snapshot/snapshot.h"
#include "app/snapshot/snapshot_format.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

constexpr std::size_t kPrefixBytes = 8 + 4 + 8; // magic, format version, file length (snapshot_format.h)
constexpr std::size_t kChecksumBytes = 8;

void putU64(std::vector<std::uint8_t>& out, std::size_t at, std::uint64_t v) {
  for (std::size_t i = 0; i < 8; ++i) out[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// The contents framed as a well-formed file: prefix, contents, checksum of both.
std::vector<std::uint8_t> framed(std::span<const std::uint8_t> contents) {
  std::vector<std::uint8_t> out(kPrefixBytes);
  std::copy(graphsim::app::kSnapshotMagic.begin(), graphsim::app::kSnapshotMagic.end(), out.begin());
  for (std::size_t i = 0; i < 4; ++i)
    out[8 + i] = static_cast<std::uint8_t>(graphsim::app::kSnapshotVersion >> (8 * i));
  out.insert(out.end(), contents.begin(), contents.end());
  out.resize(out.size() + kChecksumBytes);
  putU64(out, 12, out.size());
  const std::uint64_t sum = graphsim::app::fnv1a64(std::as_bytes(std::span(out).first(out.size() - kChecksumBytes)));
  putU64(out, out.size() - kChecksumBytes, sum);
  return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace graphsim;
  if (size == 0) return 0;
  const std::span<const std::uint8_t> rest(data + 1, size - 1);
  std::vector<std::uint8_t> file;
  if (data[0] % 2 == 1) file = framed(rest);
  const std::filesystem::path& path = fuzz::inputFile(file.empty() ? rest : std::span<const std::uint8_t>(file));
  fuzz::refusalsOnly([&] {
    app::SceneState state = app::readSnapshotFile(path);
    app::SceneSettings settings = app::settingsOfSnapshot(state);
    app::parseCountAndFramesInFlight(settings, app::CountFlags{}, "3", state.source);
    app::describeSnapshot(state);
    const std::unique_ptr<app::SceneProducer> producer = fuzz::makeSmallCpuProducer(settings);
    if (producer) producer->loadState(state);
  });
  return 0;
}
