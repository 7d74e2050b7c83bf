#include "compute/nbody/rank_commands.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace graphsim {

RankCommand resetCommand(const NBodyConfig& config) {
  RankCommand c;
  c.kind = RankCommandKind::Reset;
  c.params = config.params;
  c.bodies = config.bodies;
  c.maxBodies = config.maxBodies;
  c.seed = config.seed;
  c.substeps = config.substeps;
  c.diagnosticsEvery = config.diagnosticsEvery;
  c.enabled = config.enabled;
  return c;
}

NBodyConfig configAfter(const NBodyConfig& base, const RankCommand& reset) {
  NBodyConfig config = base;
  config.params = reset.params;
  config.bodies = reset.bodies;
  config.maxBodies = reset.maxBodies;
  config.seed = reset.seed;
  config.substeps = reset.substeps;
  config.diagnosticsEvery = reset.diagnosticsEvery;
  config.enabled = reset.enabled;
  return config;
}

namespace {

// FNV-1a, 64 bits, over bytes fed in a fixed order.
class Fnv {
public:
  void add(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) hash_ = (hash_ ^ p[i]) * 0x100000001b3ull;
  }
  void add(std::string_view s) {
    add(s.data(), s.size());
    add("\0", 1); // "ab" + "c" differs from "a" + "bc"
  }
  template <class T>
  void addValue(const T& v) {
    static_assert(std::is_arithmetic_v<T>);
    add(&v, sizeof v);
  }
  std::uint64_t value() const { return hash_; }

private:
  std::uint64_t hash_ = 0xcbf29ce484222325ull;
};

} // namespace

std::uint64_t configFingerprint(const NBodyConfig& config) {
  Fnv h;
  h.add(config.scene);
  h.add(config.initial);
  h.addValue(config.bodies);
  h.addValue(config.maxBodies);
  h.addValue(config.seed);
  h.addValue(config.substeps);
  h.addValue(config.diagnosticsEvery);
  const NBodyParams& p = config.params;
  for (const float v : {p.dt, p.G, p.softening, p.damping, p.attractorStrength, p.attractorPos[0], p.attractorPos[1],
                        p.attractorPos[2], p.boundaryRadius, p.colourScale}) {
    h.addValue(v);
  }
  for (const bool e : config.enabled) h.addValue(e);
  return h.value();
}

std::size_t encodeRankMessage(std::span<const RankCommand> commands, std::uint32_t sequence, RankMessage& out) {
  const std::size_t n = std::min(kCommandsPerMessage, commands.size());
  out.fill(std::byte{0});
  const RankMessageHeader header{kRankMessageMagic, sequence, static_cast<std::uint32_t>(n)};
  std::memcpy(out.data(), &header, sizeof header);
  if (n > 0) std::memcpy(out.data() + sizeof header, commands.data(), n * sizeof(RankCommand));
  return n;
}

std::vector<RankCommand> decodeRankMessage(std::span<const std::byte> message, std::uint32_t expected) {
  RankMessageHeader header;
  if (message.size() < sizeof header) throw std::runtime_error("rank message: too short");
  std::memcpy(&header, message.data(), sizeof header);
  if (header.magic != kRankMessageMagic) throw std::runtime_error("rank message: not a graphsim rank message");
  if (header.sequence != expected) {
    throw std::runtime_error("rank message " + std::to_string(header.sequence) + " where " + std::to_string(expected) +
                             " was due: this rank missed one");
  }
  if (header.count > kCommandsPerMessage || sizeof header + header.count * sizeof(RankCommand) > message.size())
    throw std::runtime_error("rank message: " + std::to_string(header.count) + " commands do not fit the message");
  std::vector<RankCommand> commands(header.count);
  if (header.count > 0)
    std::memcpy(commands.data(), message.data() + sizeof header, header.count * sizeof(RankCommand));
  for (const RankCommand& c : commands) {
    if (c.kind < RankCommandKind::Hello || c.kind > RankCommandKind::End)
      throw std::runtime_error("rank message: unknown command " + std::to_string(static_cast<int>(c.kind)));
    if (c.kind == RankCommandKind::Stage && c.stage >= kStageCount)
      throw std::runtime_error("rank message: stage " + std::to_string(c.stage) + " does not exist");
  }
  return commands;
}

} // namespace graphsim
