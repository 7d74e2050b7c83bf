#include "app/snapshot/snapshot_format.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>
#include <stdexcept>

#include "app/base/errors.h"

namespace graphsim::app {
namespace {

constexpr std::size_t kPrefixBytes = 8 + 4 + 8; // magic, version, file length
constexpr std::size_t kChecksumBytes = 8;

// Little-endian writer.
class Writer {
public:
  void u32(std::uint32_t v) { bytes(v, 4); }
  void u64(std::uint64_t v) { bytes(v, 8); }
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  void f32(float v) { u32(std::bit_cast<std::uint32_t>(v)); }
  void str(const std::string& s, std::uint32_t limit, const char* what) {
    if (s.size() > limit)
      throw std::invalid_argument(std::string("snapshot: ") + what + " is " + std::to_string(s.size()) +
                                  " bytes, over the format's " + std::to_string(limit));
    u32(static_cast<std::uint32_t>(s.size()));
    for (char c : s) out.push_back(static_cast<std::byte>(c));
  }
  void raw(std::span<const std::uint8_t> b) {
    for (std::uint8_t c : b) out.push_back(static_cast<std::byte>(c));
  }
  void patchU64(std::size_t at, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out[at + static_cast<std::size_t>(i)] = static_cast<std::byte>(v >> (8 * i));
  }

  std::vector<std::byte> out;

private:
  void bytes(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out.push_back(static_cast<std::byte>(v >> (8 * i)));
  }
};

// Little-endian reader over a span; running out is reported, not undefined.
class Reader {
public:
  explicit Reader(std::span<const std::byte> b) : b_(b) {}
  std::size_t at() const { return at_; }
  bool has(std::size_t n) const { return n <= b_.size() - at_; }

  std::optional<std::uint64_t> uint(int n) {
    if (!has(static_cast<std::size_t>(n))) return std::nullopt;
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(b_[at_ + static_cast<std::size_t>(i)]) << (8 * i);
    at_ += static_cast<std::size_t>(n);
    return v;
  }
  // A length-prefixed string of at most `limit` bytes; nullopt when it runs past the end. `tooLong` says whether
  // the length was over the limit (then nothing is read).
  std::optional<std::string> str(std::uint32_t limit, bool& tooLong) {
    tooLong = false;
    const std::optional<std::uint64_t> n = uint(4);
    if (!n) return std::nullopt;
    if (*n > limit) {
      tooLong = true;
      return std::string();
    }
    if (!has(*n)) return std::nullopt;
    std::string s(reinterpret_cast<const char*>(b_.data() + at_), static_cast<std::size_t>(*n));
    at_ += static_cast<std::size_t>(*n);
    return s;
  }
  void floats(std::vector<float>& out, std::uint64_t n) {
    out.resize(static_cast<std::size_t>(n));
    for (float& v : out) v = std::bit_cast<float>(static_cast<std::uint32_t>(*uint(4)));
  }

private:
  std::span<const std::byte> b_;
  std::size_t at_ = 0;
};

std::string hex(std::uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(v));
  return text;
}

// The header after the fixed prefix. Parsed twice: before the checksum only to say where a truncated file was cut
// (`complete` false when the bytes ran out), after it to read the state (then every problem is an error).
struct Header {
  SceneState state; // arrays named and sized, values empty
  std::vector<std::uint64_t> valueCounts;
  bool complete = false;
  std::string problem; // non-empty: a field over its limit or inconsistent (after the checksum: malformed)
};

Header parseHeader(Reader& r) {
  Header h;
  bool tooLong = false;
  const auto str = [&](std::string& out, std::uint32_t limit, const char* what) {
    std::optional<std::string> s = r.str(limit, tooLong);
    if (!s) return false;
    if (tooLong && h.problem.empty())
      h.problem = std::string(what) + " is longer than the format's limit of " + std::to_string(limit) + " bytes";
    out = std::move(*s);
    return !tooLong;
  };
  SceneState& s = h.state;
  if (!str(s.scene, kMaxSnapshotNameBytes, "the scene name")) return h;
  const auto count = r.uint(8), frame = r.uint(8), simTime = r.uint(8);
  if (!simTime) return h;
  s.count = static_cast<std::int64_t>(*count);
  s.frame = *frame;
  s.simTime = std::bit_cast<double>(*simTime);
  if (!(std::isfinite(s.simTime) && s.simTime >= 0)) // a checksummed NaN loaded as the simulated time
    h.problem = "the simulated time is " + std::to_string(s.simTime) + ", not a finite number >= 0";
  else if (s.frame > kMaxSnapshotFrame) // 2^64 - 1 wrapped the resumed run's frame numbers
    h.problem = "the frame counter " + std::to_string(s.frame) + " is over the format's limit of " +
                std::to_string(kMaxSnapshotFrame);
  if (!str(s.backend, kMaxSnapshotNameBytes, "the backend name")) return h;
  if (!str(s.settings, kMaxSnapshotSettingsBytes, "the settings")) return h;
  const std::optional<std::uint64_t> arrays = r.uint(4);
  if (!arrays) return h;
  if (*arrays > kMaxSnapshotArrays) {
    h.problem = std::to_string(*arrays) + " arrays, over the format's limit of " + std::to_string(kMaxSnapshotArrays);
    return h;
  }
  std::set<std::string> names;
  for (std::uint64_t i = 0; i < *arrays; ++i) {
    StateArray& a = s.arrays.emplace_back();
    if (!str(a.name, kMaxSnapshotNameBytes, "an array name")) return h;
    const auto components = r.uint(4), values = r.uint(8);
    if (!values) return h;
    a.components = static_cast<std::uint32_t>(*components);
    h.valueCounts.push_back(*values);
    if (h.problem.empty() && !names.insert(a.name).second) h.problem = "array '" + a.name + "' appears twice";
    if (h.problem.empty() && (a.components < 1 || a.components > kMaxSnapshotComponents))
      h.problem = "array '" + a.name + "' has " + std::to_string(a.components) + " components per element (1.." +
                  std::to_string(kMaxSnapshotComponents) + ")";
  }
  h.complete = true;
  return h;
}

// Bytes of the payload the header describes; nullopt when it overflows (a corrupt count).
std::optional<std::uint64_t> payloadBytes(const Header& h) {
  std::uint64_t total = 0;
  for (std::uint64_t values : h.valueCounts) {
    if (values > (UINT64_MAX - total) / 4) return std::nullopt;
    total += 4 * values;
  }
  return total;
}

// Where a file of `size` bytes that should have `fileBytes` was cut.
std::string whereCut(std::span<const std::byte> bytes, std::uint64_t fileBytes) {
  Reader r(bytes);
  r.uint(8); // magic
  r.uint(4); // version
  r.uint(8); // file length
  const Header h = parseHeader(r);
  if (!h.complete) return "inside the header";
  if (fileBytes >= kChecksumBytes && bytes.size() >= fileBytes - kChecksumBytes) return "inside the checksum";
  std::uint64_t at = r.at();
  for (std::size_t i = 0; i < h.valueCounts.size(); ++i) {
    if (h.valueCounts[i] > bytes.size() || (at += 4 * h.valueCounts[i]) > bytes.size())
      return "inside the payload (array '" + h.state.arrays[i].name + "')";
  }
  return "inside the payload";
}

} // namespace

std::uint64_t fnv1a64(std::span<const std::byte> bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::byte b : bytes) {
    h ^= static_cast<std::uint64_t>(b);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::vector<std::byte> encodeSnapshot(const SceneState& state) {
  if (state.count < 0) throw std::invalid_argument("snapshot: negative count");
  if (state.arrays.size() > kMaxSnapshotArrays) throw std::invalid_argument("snapshot: too many arrays");
  Writer w;
  w.raw(kSnapshotMagic);
  w.u32(kSnapshotVersion);
  const std::size_t lengthAt = w.out.size();
  w.u64(0); // the file length, patched below
  w.str(state.scene, kMaxSnapshotNameBytes, "the scene name");
  w.i64(state.count);
  w.u64(state.frame);
  w.f64(state.simTime);
  w.str(state.backend, kMaxSnapshotNameBytes, "the backend name");
  w.str(state.settings, kMaxSnapshotSettingsBytes, "the settings");
  w.u32(static_cast<std::uint32_t>(state.arrays.size()));
  for (const StateArray& a : state.arrays) {
    if (a.components < 1 || a.components > kMaxSnapshotComponents ||
        a.values.size() != static_cast<std::uint64_t>(state.count) * a.components)
      throw std::invalid_argument("snapshot: array '" + a.name + "' holds " + std::to_string(a.values.size()) +
                                  " values, not count x components");
    w.str(a.name, kMaxSnapshotNameBytes, "an array name");
    w.u32(a.components);
    w.u64(a.values.size());
  }
  std::size_t payload = 0;
  for (const StateArray& a : state.arrays) payload += 4 * a.values.size();
  w.out.reserve(w.out.size() + payload + kChecksumBytes);
  for (const StateArray& a : state.arrays)
    for (float v : a.values) w.f32(v);
  w.patchU64(lengthAt, w.out.size() + kChecksumBytes);
  w.u64(fnv1a64(w.out));
  return std::move(w.out);
}

SceneState decodeSnapshot(std::span<const std::byte> bytes, const std::string& source) {
  const auto fail = [&](const std::string& what) { return UsageError(source + ": " + what); };
  const std::size_t size = bytes.size();
  if (size == 0) throw fail("is empty, not a graphsim snapshot");
  const std::size_t magicSeen = std::min<std::size_t>(size, kSnapshotMagic.size());
  for (std::size_t i = 0; i < magicSeen; ++i)
    if (bytes[i] != static_cast<std::byte>(kSnapshotMagic[i]))
      throw fail("is not a graphsim snapshot (it does not start with the snapshot magic \\x89GSS\\r\\n\\x1a\\n)");
  const auto truncated = [&](const char* where) {
    return fail("truncated: its " + std::to_string(size) + " bytes end " + where);
  };
  if (size < 8) throw truncated("inside the magic");
  Reader r(bytes);
  r.uint(8);
  if (size < 12) throw truncated("inside the format version");
  const auto version = static_cast<std::uint32_t>(*r.uint(4));
  if (version > kSnapshotVersion)
    throw fail("format version " + std::to_string(version) + " is newer than this graphsim reads (" +
               std::to_string(kSnapshotVersion) + "); it was saved by a newer graphsim");
  if (version != kSnapshotVersion)
    throw fail("format version " + std::to_string(version) + " is not one this graphsim reads (" +
               std::to_string(kSnapshotVersion) + ")");
  if (size < kPrefixBytes) throw truncated("inside the file length");
  const std::uint64_t fileBytes = *r.uint(8);
  if (size < fileBytes)
    throw fail("truncated: " + std::to_string(size) + " of the " + std::to_string(fileBytes) +
               " bytes its header gives, cut " + whereCut(bytes, fileBytes));
  if (size > fileBytes)
    throw fail("has " + std::to_string(size - fileBytes) + " bytes after the " + std::to_string(fileBytes) +
               " its header gives (corrupted, or not one snapshot)");
  if (fileBytes < kPrefixBytes + kChecksumBytes) throw fail("corrupted: its header gives an impossible length");
  const std::span<const std::byte> body = bytes.first(size - kChecksumBytes);
  Reader tail(bytes.subspan(size - kChecksumBytes));
  const std::uint64_t stored = *tail.uint(8), computed = fnv1a64(body);
  if (stored != computed)
    throw fail("corrupted: checksum mismatch (FNV-1a 64 of the contents is " + hex(computed) + ", the file says " +
               hex(stored) + ")");

  // The checksum holds: what follows is a file a writer made, or a crafted one; either way it is checked whole.
  Header h = parseHeader(r);
  if (!h.problem.empty()) throw fail("malformed header: " + h.problem);
  if (!h.complete) throw fail("malformed header: it runs past the end of the file");
  SceneState& state = h.state;
  if (state.scene.empty()) throw fail("malformed header: no scene name");
  if (state.count < 0 || state.count > kMaxSnapshotCount)
    throw fail("malformed header: a count of " + std::to_string(state.count) + " elements (0.." +
               std::to_string(kMaxSnapshotCount) + ")");
  for (std::size_t i = 0; i < state.arrays.size(); ++i) {
    const StateArray& a = state.arrays[i];
    const std::uint64_t want = static_cast<std::uint64_t>(state.count) * a.components;
    if (h.valueCounts[i] != want)
      throw fail("count mismatch: the header's count is " + std::to_string(state.count) + ", but array '" + a.name +
                 "' holds " + std::to_string(h.valueCounts[i]) + " values (" + std::to_string(a.components) +
                 " per element: " + std::to_string(h.valueCounts[i] / a.components) + " elements)");
  }
  const std::optional<std::uint64_t> payload = payloadBytes(h);
  if (!payload || *payload > body.size() - r.at() || r.at() + *payload != body.size())
    throw fail("malformed: the header and its arrays take " +
               (payload ? std::to_string(r.at() + *payload) : std::string("more")) + " bytes, the contents " +
               std::to_string(body.size()));
  for (std::size_t i = 0; i < state.arrays.size(); ++i) r.floats(state.arrays[i].values, h.valueCounts[i]);
  state.source = source;
  return std::move(state);
}

} // namespace graphsim::app
