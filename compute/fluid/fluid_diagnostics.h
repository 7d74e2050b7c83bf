// Live diagnostics of the fluid scene (issue 15, docs/DIAGNOSTICS.md, "The fluid scene"): mass, density deviation,
// compression and speed, defined once here for the CPU reference (fluid_diagnostics.cpp), the CUDA kernel
// (cuda/fluid_diagnostics_kernel.cu) and the app (panel, soak, bench, the run's summary). Over the particles i whose
// position, velocity and density are all finite (a blown-up particle counts in none of them):
//
//   M = sum_i m = counted x m            (every particle has the mass m = particleMass(params): M is exact)
//   max density deviation = max_i |rho_i / rho0 - 1|   (the free surface's rarefaction included: not a solver error)
//   max compression       = max_i (rho_i / rho0 - 1)     (signed: what the pressure solve acts on)
//   max speed             = max_i |v_i|
//
// rho_i is the density the last density stage of the frame computed (what that substep's pressure used), x_i and v_i
// the state the frame ended with. Every value is computed in double from the float state, and a maximum is exact
// whatever the order, so the CPU and the GPU give the same bits for the same state.
//
// Plain C++17 (the kernel includes it); under nvcc the per-particle functions are __host__ __device__.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "compute/diagnostics_schedule.h"
#include "compute/vec3.h"

namespace graphsim {
struct Float4;
} // namespace graphsim

namespace graphsim::fluid {

struct FluidParams;
struct FluidState;

// One sample. An aggregate without member initialisers (the kernel keeps them in registers); value-initialise it ({})
// on the host. Without a counted particle the maxima are 0.
struct FluidDiagnosticSums {
  double mass;                  // M [kg]
  double maxDensityDeviation;   // max |rho / rho0 - 1| [-]
  double maxCompression;        // max (rho / rho0 - 1) [-]
  double maxSpeed;              // max |v| [m/s]
  unsigned long long particles; // the particles counted (all of them unless some are non-finite)
};
static_assert(sizeof(FluidDiagnosticSums) == 5 * sizeof(std::uint64_t),
              "no padding: copied field by field into pinned memory");

namespace fluid_diagnostics_math {

GRAPHSIM_HD inline bool finite(float x) {
#if defined(__CUDA_ARCH__)
  return isfinite(x);
#else
  return std::isfinite(x);
#endif
}

// One particle's terms. ok: whether it counts (position, velocity and density finite); speed2 = |v|^2 (each square
// of a float is exact in double, so an FMA contraction cannot change the sum); error and compression from rho / rho0
// in double (correctly rounded division on both sides).
struct ParticleTerms {
  bool ok;
  double speed2, deviation, compression;
};
GRAPHSIM_HD inline ParticleTerms particleTerms(float px, float py, float pz, float vx, float vy, float vz, float rho,
                                               float rho0) {
  ParticleTerms t{};
  t.ok = finite(px) && finite(py) && finite(pz) && finite(vx) && finite(vy) && finite(vz) && finite(rho);
  if (!t.ok) return t;
  const double x = vx, y = vy, z = vz;
  t.speed2 = x * x + y * y + z * z;
  t.compression = static_cast<double>(rho) / static_cast<double>(rho0) - 1.0;
  t.deviation = t.compression < 0.0 ? -t.compression : t.compression;
  return t;
}

// Doubles as unsigned integers that order as the doubles do (not NaN, which no term is): the sign bit set for
// non-negative values, every bit flipped for negative ones. 0 orders below every double: "no value yet". The GPU
// takes the maxima with integer atomicMax on these; the CPU uses them as well, so both mean the same maximum.
GRAPHSIM_HD inline unsigned long long orderedBits(double v) {
  unsigned long long u = 0;
  static_assert(sizeof(u) == sizeof(v));
#if defined(__CUDA_ARCH__)
  u = static_cast<unsigned long long>(__double_as_longlong(v));
#else
  __builtin_memcpy(&u, &v, sizeof u);
#endif
  return (u >> 63) != 0 ? ~u : u | (1ull << 63);
}
GRAPHSIM_HD inline double fromOrderedBits(unsigned long long o) {
  const unsigned long long u = (o >> 63) != 0 ? o & ~(1ull << 63) : ~o;
  double v = 0;
#if defined(__CUDA_ARCH__)
  v = __longlong_as_double(static_cast<long long>(u));
#else
  __builtin_memcpy(&v, &u, sizeof v);
#endif
  return v;
}

// The running maxima of a set of particles, as ordered bits (0: none counted yet), and the count.
struct Extremes {
  unsigned long long particles, speed2Bits, deviationBits, compressionBits;
};
GRAPHSIM_HD inline unsigned long long maxBits(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
GRAPHSIM_HD inline void add(Extremes& e, const ParticleTerms& t) {
  if (!t.ok) return;
  e.particles += 1;
  e.speed2Bits = maxBits(e.speed2Bits, orderedBits(t.speed2));
  e.deviationBits = maxBits(e.deviationBits, orderedBits(t.deviation));
  e.compressionBits = maxBits(e.compressionBits, orderedBits(t.compression));
}
GRAPHSIM_HD inline void add(Extremes& into, const Extremes& b) {
  into.particles += b.particles;
  into.speed2Bits = maxBits(into.speed2Bits, b.speed2Bits);
  into.deviationBits = maxBits(into.deviationBits, b.deviationBits);
  into.compressionBits = maxBits(into.compressionBits, b.compressionBits);
}

// The sample from the extremes of every particle; mass: the particle mass m (float, as the state's).
GRAPHSIM_HD inline FluidDiagnosticSums finish(const Extremes& e, float mass) {
  FluidDiagnosticSums s{};
  s.particles = e.particles;
  s.mass = static_cast<double>(e.particles) * static_cast<double>(mass); // exact: < 2^24 particles, a 24-bit m
  if (e.particles == 0) return s;
  s.maxSpeed = sqrt(fromOrderedBits(e.speed2Bits));
  s.maxDensityDeviation = fromOrderedBits(e.deviationBits);
  s.maxCompression = fromOrderedBits(e.compressionBits);
  return s;
}

} // namespace fluid_diagnostics_math

// ---- host side: samples, their schedule and the track of a series ----

// Whether frame k of a fluid backend takes a sample: diagnosticsDue (every `every` frames, or the first frame that may
// after a reset), the sampling switched on, and a frame that simulates (frameDt > 0: a paused frame runs no substep
// and would describe the state the last sample did). Both backends call it.
constexpr bool fluidDiagnosticsDue(std::uint64_t frame, int every, bool firstPending, bool on, float frameDt) {
  return on && frameDt > 0.0f && diagnosticsDue(frame, every, firstPending);
}

// One sample: the state frame `frame` ended with (its last substep's density), taken after the frame's substeps.
// `series` changes at every reset or state replacement.
struct FluidDiagnosticsSample {
  std::uint64_t frame = 0, series = 0;
  FluidDiagnosticSums sums{};
};

// The CPU reference: the sample of `state` (positions, velocities, the last density stage's densities) with rest
// density and particle mass from params. O(N), in particle order.
FluidDiagnosticSums computeFluidDiagnostics(const FluidState& state, const FluidParams& params);
// The same over arrays (what the CUDA backend downloads: pos, vel and the density of the same particles).
FluidDiagnosticSums computeFluidDiagnostics(const Float4* pos, const Float4* vel, const float* density, std::size_t n,
                                            float restDensity, float particleMass);

// The first and the latest sample of the current series, and the peaks over it, fed with what a backend reports
// (FluidBackend::diagnostics): the panel, the soak, bench and the run's summary each keep one.
class FluidDiagnosticsTrack : public SampleSeries<FluidDiagnosticsSample> {
public:
  // Takes the backend's latest sample; true when it is a new one (another frame or series). A sample of another
  // series starts the track over.
  bool update(const std::optional<FluidDiagnosticsSample>& latest);
  // The largest max density deviation, max compression and max speed over the series' samples (and the smallest mass).
  const FluidDiagnosticSums& peak() const { return peak_; }
  // M / M(first sample) - 1; 0 without samples.
  double massChange() const;
  // "diagnostics: 3 samples, frames 0..10: mass 12.5 -> 12.5 kg (change 0), max density deviation 0.41 -> 0.52 (peak
  // 0.55), max compression 0.12 % -> 0.85 % (peak 1.1 %), max speed 0 -> 1.2 m/s (peak 1.3)"; empty without samples.
  std::string summary() const;

private:
  FluidDiagnosticSums peak_{};
};

} // namespace graphsim::fluid
