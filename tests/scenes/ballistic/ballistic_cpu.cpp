// The ballistic scene's CPU reference: the two stages over every particle, in the step table's order.
#include "tests/scenes/ballistic/ballistic.h"

namespace graphsim::ballistic {

State initialState(std::int64_t particles) {
  State s;
  const auto jitter = [](std::uint32_t i, std::uint32_t salt) { // in [0, 1): a hash of the index, no seed
    return static_cast<float>(((i + salt) * 2654435761u) >> 8) * (1.0f / 16777216.0f);
  };
  for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(particles); ++i) {
    s.pos.push_back({0.05f + 0.9f * jitter(i, 1), 0.5f + 0.45f * jitter(i, 2), 0.05f + 0.9f * jitter(i, 3), 0});
    s.vel.push_back({jitter(i, 4) - 0.5f, 0, jitter(i, 5) - 0.5f, 0});
  }
  return s;
}

BackendBase::BackendBase(const Config& c, const char* type) : config_(c) {
  for (const auto& [name, whyNot] : kSteps)
    nodes_.push_back({.name = std::string(name),
                      .type = type,
                      .step = static_cast<int>(nodes_.size()),
                      .togglable = whyNot.empty(),
                      .enabled = !whyNot.empty() || c.bounce,
                      .whyNotTogglable = std::string(whyNot)});
}

void BackendBase::apply(const Params& p, bool bounceOn, bool advance) {
  config_.params = p, config_.bounce = bounceOn, advance_ = advance;
  nodes_[kBounce].enabled = bounceOn;
}

void CpuBackend::stepFrame(std::uint64_t) {
  for (std::size_t i = 0; i < s_.pos.size(); ++i) fall(s_.pos[i], s_.vel[i], kFrameDt);
  if (config_.bounce)
    for (std::size_t i = 0; i < s_.pos.size(); ++i) bounce(s_.pos[i], s_.vel[i], config_.params.restitution);
}

void CpuBackend::writeRender(Float4* dst) const {
  for (std::size_t i = 0; i < s_.pos.size(); ++i) dst[i] = renderOf(s_.pos[i], s_.vel[i]);
}

} // namespace graphsim::ballistic
