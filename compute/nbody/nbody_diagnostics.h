// Live diagnostics of the nbody scene (issue 15, docs/DIAGNOSTICS.md): total energy, linear and angular momentum,
// defined once here for the CPU reference (nbody_diagnostics.cpp), the CUDA kernel (cuda/nbody_diagnostics_kernel.cu)
// and the app (panel, soak, bench, the run's summary):
//
//   K = sum_i 1/2 m_i |v_i|^2,   U = -sum_{i<j} G m_i m_j / sqrt(|x_i - x_j|^2 + eps^2),   E = K + U,
//   P = sum_i m_i v_i,           L = sum_i m_i (x_i x v_i)   (about the origin).
//
// U is the potential whose gradient the forces stage applies (nbody_math.h, gravityWeight: Plummer softening).
// v is the velocity at the positions' time: the state holds leapfrog half-step velocities v(t - dt/2), so a sample
// re-synchronises them, v(t) = v(t - dt/2) + a(t) dt/2, with a(t) the forces stage's output at these positions. Every
// sum is in double; only the GPU's pair terms 1/sqrt(r^2 + eps^2) are float (as the forces').
//
// Plain C++17 (the kernels include it); under nvcc the per-body functions are __host__ __device__.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compute/diagnostics_schedule.h"
#include "compute/vec3.h"

namespace graphsim {

// compute/nbody/nbody.h (C++20; nvcc compiles the kernels as C++17, so this header does not include it).
struct BodyState;
struct Float4;
struct NBodyParams;

// One sample's sums. An aggregate without member initialisers, so that the CUDA kernel can keep one per thread in
// shared memory; value-initialise it ({}) on the host.
struct DiagnosticSums {
  double kinetic;              // K
  double potential;            // U
  double momentum[3];          // P
  double angularMomentum[3];   // L, about the origin
  double momentumScale;        // sum_i m_i |v_i|: the scale |P| drifts against (P itself starts ~0: the presets
                               // are centred)
  double angularMomentumScale; // sum_i m_i |x_i x v_i|: the same for L

  GRAPHSIM_HD double total() const { return kinetic + potential; }
};
inline constexpr int kDiagnosticSumCount = 10;
static_assert(sizeof(DiagnosticSums) == kDiagnosticSumCount * sizeof(double), "no padding: copied as raw bytes");

namespace diagnostics_math {

struct DVec3 {
  double x, y, z;
};

GRAPHSIM_HD inline DVec3 cross(DVec3 a, DVec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
GRAPHSIM_HD inline double length(DVec3 a) { return sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }

// The velocity at the positions' time from the stored half-step velocity and the acceleration at those positions
// (halfDt = dt / 2; 0 takes the velocity as it is).
GRAPHSIM_HD inline DVec3 synchronisedVelocity(math::Vec3 vHalf, math::Vec3 accel, double halfDt) {
  return {double(vHalf.x) + double(accel.x) * halfDt, double(vHalf.y) + double(accel.y) * halfDt,
          double(vHalf.z) + double(accel.z) * halfDt};
}

// Body i's kinetic, momentum and angular-momentum terms (position x, velocity v at the same time, mass m).
GRAPHSIM_HD inline void addKinematics(DiagnosticSums& s, double m, DVec3 x, DVec3 v) {
  const double v2 = v.x * v.x + v.y * v.y + v.z * v.z;
  const DVec3 l = cross(x, v);
  s.kinetic += 0.5 * m * v2;
  s.momentum[0] += m * v.x;
  s.momentum[1] += m * v.y;
  s.momentum[2] += m * v.z;
  s.angularMomentum[0] += m * l.x;
  s.angularMomentum[1] += m * l.y;
  s.angularMomentum[2] += m * l.z;
  s.momentumScale += m * sqrt(v2);
  s.angularMomentumScale += m * length(l);
}

// Body i's share of U: -1/2 G m_i phi_i with phi_i = sum_{j != i} m_j / sqrt(|x_i - x_j|^2 + eps^2) (every pair
// counted once from each side). phi may be a part of that sum over some j: U is linear in it.
GRAPHSIM_HD inline void addPotential(DiagnosticSums& s, double m, double phi, double G) {
  s.potential -= 0.5 * G * m * phi;
}

// The same U summed over each pair once: -G m_i psi_i with psi_i = sum_{j > i} m_j / sqrt(|x_i - x_j|^2 + eps^2)
// (the CPU reference's half of the pairs).
GRAPHSIM_HD inline void addPairPotential(DiagnosticSums& s, double m, double psi, double G) {
  s.potential -= G * m * psi;
}

// 1 / sqrt(|d|^2 + eps^2), the pair's potential without -G m_i m_j; 0 where |d|^2 + eps^2 == 0 (coincident bodies
// without softening, which gravityWeight gives no force either). The caller leaves out j == i.
GRAPHSIM_HD inline double inverseDistance(double dx, double dy, double dz, double eps2) {
  const double r2 = dx * dx + dy * dy + dz * dz + eps2;
  return r2 > 0.0 ? 1.0 / sqrt(r2) : 0.0;
}

// into += b, field by field (the reductions' one operation: its order decides the last bits).
GRAPHSIM_HD inline void add(DiagnosticSums& into, const DiagnosticSums& b) {
  into.kinetic += b.kinetic;
  into.potential += b.potential;
  for (int k = 0; k < 3; ++k) {
    into.momentum[k] += b.momentum[k];
    into.angularMomentum[k] += b.angularMomentum[k];
  }
  into.momentumScale += b.momentumScale;
  into.angularMomentumScale += b.angularMomentumScale;
}

} // namespace diagnostics_math

// ---- host side: samples, their schedule and drift ----

// One sample: the state frame `frame` starts from (the one frame - 1 ended with; frame 0: the initial state), taken
// right after that frame's first forces stage. `series` changes at every reset or state replacement, so a consumer
// knows to start its drift over.
struct DiagnosticsSample {
  std::uint64_t frame = 0, series = 0;
  DiagnosticSums sums{};
};

double magnitude(const double (&v)[3]);

// How far `now` has moved from `first`: energy E/E0 - 1 (signed; 0 when E0 == 0), momentum |P - P0| / sum m|v|(0)
// and angular momentum |L - L0| / sum m|x x v|(0) (0 when the scale is 0). P and L are compared with their scales,
// not with |P0| and |L0|: the presets start with P ~ 1e-9 (centred in float), so |P|/|P0| - 1 would be noise.
struct DiagnosticsDrift {
  double energy = 0, momentum = 0, angularMomentum = 0;
};
DiagnosticsDrift relativeDrift(const DiagnosticSums& first, const DiagnosticSums& now);

// The CPU reference: the diagnostics of `state` (positions + masses at t, half-step velocities v(t - dt/2)), the
// velocities re-synchronised with accel (a(t), what the forces stage computed at these positions) times dt/2; empty
// accel takes the velocities as they are. U by direct summation in double over each pair once (j > i), O(N^2 / 2),
// on threads, in chunks with interrupt checkpoints (compute/long_work.h); bit-reproducible (each body's sum in j
// order, the bodies summed in index order, whatever the thread count). G, softening and dt from params.
DiagnosticSums computeDiagnostics(const BodyState& state, const std::vector<Float4>& accel, const NBodyParams& params);

// The first and the latest sample of the current series, fed with what a backend reports (NBodyBackend::diagnostics):
// the panel, the soak, bench and the run's summary each keep one.
class DiagnosticsTrack : public SampleSeries<DiagnosticsSample> {
public:
  // Takes the backend's latest sample; true when it is a new one (another frame or series). A sample of another
  // series starts the track over.
  bool update(const std::optional<DiagnosticsSample>& latest);
  DiagnosticsDrift drift() const; // last against first; zero without samples
  // drift() x 1000 / (last frame - first frame): the change over the run scaled to 1,000 frames (paused frames
  // count), not a fit; none before two samples of the series.
  std::optional<DiagnosticsDrift> driftPer1000Frames() const;
  // "diagnostics: 100 samples, frames 0..990: E -0.2491 -> -0.2491 (drift 1.2e-06, 1.2e-06 per 1000 frames), ..."
  // empty without samples.
  std::string summary() const;
};

} // namespace graphsim
