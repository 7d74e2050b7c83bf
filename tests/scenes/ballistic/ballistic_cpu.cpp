// The ballistic scene's CPU reference: the two stages over every particle, in the step table's order.
#include <chrono>

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

namespace {

class CpuEngine final : public Engine {
public:
  explicit CpuEngine(std::int64_t particles) : s_(initialState(particles)) {}
  std::string_view name() const override { return "cpu"; }
  std::optional<std::uint64_t> produce(std::uint64_t, bool advance, const Params& p, bool bounceOn) override {
    if (!advance) return std::nullopt;
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < s_.pos.size(); ++i) fall(s_.pos[i], s_.vel[i], kFrameDt);
    if (bounceOn)
      for (std::size_t i = 0; i < s_.pos.size(); ++i) bounce(s_.pos[i], s_.vel[i], p.restitution);
    simMs_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return std::nullopt;
  }
  void writeRender(Float4* dst) override {
    for (std::size_t i = 0; i < s_.pos.size(); ++i) dst[i] = renderOf(s_.pos[i], s_.vel[i]);
  }
  void waitProduced(std::uint64_t) override {}
  void finish() override {}
  double simMs() const override { return simMs_; }
  UpdateCounters counters() const override { return {}; }
  State download() override { return s_; }
  void upload(const State& s) override { s_ = s; }

private:
  State s_;
  double simMs_ = -1;
};

} // namespace

std::unique_ptr<Engine> makeCpuEngine(std::int64_t particles) { return std::make_unique<CpuEngine>(particles); }

} // namespace graphsim::ballistic
