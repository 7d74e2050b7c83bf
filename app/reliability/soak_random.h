// The soaks' random numbers: SplitMix64, a tiny generator whose sequence is the same on every platform and standard
// library (a soak's change sequence must replay identically on the CI machine and the GPU machine).
#pragma once

#include <cstdint>

namespace graphsim::app {

class SoakRandom {
public:
  explicit SoakRandom(std::uint64_t seed) : state_(seed ^ 0x5d0a6b9c3e2f1a47ull) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::int64_t between(std::int64_t lo, std::int64_t hi) { // inclusive
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  float uniform(float lo, float hi) {
    const double u = static_cast<double>(next() >> 11) * 0x1.0p-53;
    return static_cast<float>(lo + (hi - lo) * u);
  }

private:
  std::uint64_t state_;
};

} // namespace graphsim::app
