// Seeded initial conditions of the nbody scene, in N-body units (G = 1, total mass 1; velocities scale with
// sqrt(G) so that another G keeps the same equilibrium), and the double-precision direct summation that starts the
// leapfrog and measures energy. Bodies are built in double and rounded to float once, so the state depends only on
// (initial, bodies, seed, G, softening), not on the thread count or the standard library (up to the C library's
// last-bit rounding of exp, log, sin and cos).
#include "compute/nbody/nbody_initial_conditions.h"

#include "compute/long_work.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>

namespace graphsim {
namespace {

struct D3 {
  double x = 0, y = 0, z = 0;
};
D3 operator+(D3 a, D3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
D3 operator-(D3 a, D3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
D3 operator*(D3 a, double s) { return {a.x * s, a.y * s, a.z * s}; }

// Our own mapping of the engine's 64 bits to doubles: std::uniform_real_distribution and std::normal_distribution
// are implementation-defined, so with them a seed would mean different bodies with another standard library.
class Random {
public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; } // [0, 1)
  double normal() { // Box-Muller; the second variate is dropped to keep the draw sequence trivial to follow
    double draws[2];
    normalDraws(draws);
    return normalFrom(draws[0], draws[1]);
  }
  // The two uniforms normal() consumes, for callers that turn them into the normal deviate later (normalFrom).
  void normalDraws(double (&draws)[2]) {
    draws[0] = uniform();
    draws[1] = uniform();
  }
  static double normalFrom(double first, double second) {
    const double u1 = 1.0 - first; // (0, 1], safe for log
    const double u2 = second;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  D3 isotropic(double length) { // a vector of the given length in a uniformly random direction
    const double z = (1.0 - 2.0 * uniform()) * length;
    const double rho = std::sqrt(std::max(0.0, length * length - z * z));
    const double phi = 2.0 * std::numbers::pi * uniform();
    return {rho * std::cos(phi), rho * std::sin(phi), z};
  }

private:
  std::mt19937_64 engine_;
};

struct Body {
  D3 pos, vel;
  double mass = 0;
};

// Moves a group of bodies so that its centre of mass sits at the origin at rest: the sampled disk or sphere then has
// exactly the bulk position and velocity it is given, and total momentum starts at zero up to float rounding.
void centre(std::vector<Body>& bodies) {
  double mass = 0;
  D3 pos, vel;
  for (const Body& b : bodies) {
    mass += b.mass;
    pos = pos + b.pos * b.mass;
    vel = vel + b.vel * b.mass;
  }
  if (mass <= 0) return;
  for (Body& b : bodies) {
    b.pos = b.pos - pos * (1.0 / mass);
    b.vel = b.vel - vel * (1.0 / mass);
  }
}

// Rotation about the x axis (axis 0) or the y axis (axis 1) by angle degrees.
struct Rotation {
  int axis = 0;
  double c = 1, s = 0;
  Rotation(int axis_, double degrees)
      : axis(axis_), c(std::cos(degrees * std::numbers::pi / 180.0)), s(std::sin(degrees * std::numbers::pi / 180.0)) {}
  D3 operator()(D3 v) const {
    if (axis == 0) return {v.x, c * v.y - s * v.z, s * v.y + c * v.z};
    return {c * v.x + s * v.z, v.y, -s * v.x + c * v.z};
  }
};

// One disk galaxy: a softened central mass plus an exponential disk. The numbers were chosen so that the pair reads
// as two spiral galaxies in a capture and a disk stays coherent at the default dt and softening (see tests/unit).
struct DiskGalaxy {
  double mass = 0.5;
  double centralFraction = 0.2; // of the galaxy mass, in one heavy body
  double scaleRadius = 0.7;     // exponential surface density exp(-r / scaleRadius)
  double truncation = 3.0;      // no disk body beyond this radius
  double thickness = 0.03;      // Gaussian sigma of z
  // In-plane velocity dispersion as a fraction of the circular speed. The disk holds 80% of the galaxy's mass and
  // has no halo to steady it: at 0.06 it broke into clumps within t ~ 3, at 0.25 the arms smeared out; 0.15 keeps
  // visible arms to t ~ 1.5 (1000 frames at the default dt) with 16384 bodies.
  double dispersion = 0.15;
  // Two trailing logarithmic arms seeded in the density: at the default dt a few hundred frames are a small part of
  // one rotation, too short for arms to grow from noise, so a capture shows the arms it started with.
  int arms = 2;
  double armFraction = 0.6;    // share of the disk bodies (outside the centre) placed along an arm
  double armPitchDegrees = 18; // pitch angle of the logarithmic spiral
  double armWidth = 0.3;       // Gaussian sigma of the angle about the arm, radians
};

// Mass fraction of an untruncated exponential disk inside radius r: 1 - (1 + x) e^-x with x = r / scaleRadius.
double diskMassFraction(double r, double scaleRadius) {
  const double x = r / scaleRadius;
  return 1.0 - (1.0 + x) * std::exp(-x);
}

// Inverts the truncated cumulative mass by bisection (60 halvings of [0, truncation]): monotone and deterministic.
// The first kTreeDepth halvings only ever compare the target with the mass fraction at the same 2^kTreeDepth - 1
// midpoints (each midpoint depends only on the comparisons before it), so they are tabulated once per galaxy as a
// binary tree: a body walks the tree with no exp, and the remaining halvings run as before. The result is the
// plain 60-step bisection's, bit for bit; it just costs 44 exp per body instead of 60, and the walk gives a bracket
// [lo, hi] of the final radius early, which the sequential pass of makeDisk uses (see there).
class RadiusSampler {
public:
  static constexpr int kSteps = 60;
  static constexpr int kTreeDepth = 16;
  struct Bracket {
    double lo = 0, hi = 0;
    double target = 0;
  };

  explicit RadiusSampler(const DiskGalaxy& g)
      : scaleRadius_(g.scaleRadius), truncation_(g.truncation), norm_(diskMassFraction(g.truncation, g.scaleRadius)),
        mid_(std::size_t{1} << kTreeDepth), fraction_(std::size_t{1} << kTreeDepth) {
    fill(1, 0.0, truncation_);
  }

  // The first kTreeDepth halvings for the uniform deviate u.
  Bracket start(double u) const {
    Bracket b{0.0, truncation_, u * norm_};
    std::size_t node = 1;
    for (int i = 0; i < kTreeDepth; ++i) {
      const bool below = fraction_[node] < b.target;
      (below ? b.lo : b.hi) = mid_[node];
      node = 2 * node + (below ? 1 : 0);
    }
    return b;
  }
  // The remaining halvings; the radius lies in [b.lo, b.hi].
  double finish(Bracket b) const {
    for (int i = kTreeDepth; i < kSteps; ++i) {
      const double mid = 0.5 * (b.lo + b.hi);
      (diskMassFraction(mid, scaleRadius_) < b.target ? b.lo : b.hi) = mid;
    }
    return 0.5 * (b.lo + b.hi);
  }

private:
  void fill(std::size_t node, double lo, double hi) {
    if (node >= mid_.size()) return;
    const double mid = 0.5 * (lo + hi);
    mid_[node] = mid;
    fraction_[node] = diskMassFraction(mid, scaleRadius_);
    fill(2 * node, lo, mid);     // fraction >= target: hi = mid
    fill(2 * node + 1, mid, hi); // fraction < target: lo = mid
  }

  double scaleRadius_, truncation_, norm_;
  std::vector<double> mid_, fraction_; // heap order, node 1 is the root
};

// Whether a disk body at radius r lies along an arm, given its draw u: arms fade in over the inner 0.5 so that the
// centre stays a round bulge. Non-decreasing in r, so a bracket of r can decide it.
bool offArm(double u, double r, const DiskGalaxy& g) { return u >= g.armFraction * std::min(1.0, r / 0.5); }

// Azimuth of a disk body at radius r: uniform (offArm), or about one of the arms phi = 2 pi k / arms - ln(r) /
// tan(pitch) (the angle falls as r grows: trailing for the counter-clockwise rotation below).
double diskAngle(double r, const DiskGalaxy& g, double arm, double offset) {
  const double tanPitch = std::tan(g.armPitchDegrees * std::numbers::pi / 180.0);
  const double k = std::floor(arm * g.arms);
  return 2.0 * std::numbers::pi * k / g.arms - std::log(std::max(r, 1e-6)) / tanPitch + g.armWidth * offset;
}

// The random draws of one disk body, in the order they are taken from the generator: the radius deviate, the arm
// draws (u, arm, offset), a uniform azimuth when the body is off the arms, then the normal deviates of z, v_r, v_t
// and v_z. Normal deviates are kept as their two uniforms and turned into normals later (Random::normalFrom).
struct DiskDraws {
  RadiusSampler::Bracket radius;
  std::optional<double> exactRadius; // set when the bracket could not decide offArm
  double u = 0, arm = 0, offset[2] = {}, azimuth = 0, z[2] = {}, vr[2] = {}, vt[2] = {}, vz[2] = {};
  bool off = false;
};

// Bodies of one galaxy in its own frame (disk in the xy plane, rotating counter-clockwise), centred at rest.
//
// The generator is sequential, and how many numbers a body draws depends on its radius (offArm decides whether it
// draws an azimuth). So, chunk by chunk: a sequential pass takes every body's draws, deciding offArm from the radius
// bracket of the tabulated first halvings (the exact radius only when the bracket straddles the threshold, a few
// bodies in 10^5); then a parallel pass finishes the radii and evaluates each body's formulas. Every body gets the
// draws and the arithmetic a single sequential loop would give it, so the result does not depend on threads.
// work: checkpoints after each chunk (Ctrl-C, progress); done: bodies generated before this disk, total: in all.
std::vector<Body> makeDisk(std::int64_t count, const DiskGalaxy& g, const NBodyParams& params, Random& random,
                           LongWork& work, double done, double total) {
  std::vector<Body> bodies(static_cast<std::size_t>(count));
  if (count == 0) return bodies;
  if (count == 1) {
    bodies[0].mass = g.mass;
    return bodies;
  }
  const double central = g.mass * g.centralFraction;
  const double disk = g.mass - central;
  const double eps2 = double(params.softening) * params.softening;
  const double diskNorm = diskMassFraction(g.truncation, g.scaleRadius);
  const RadiusSampler radii(g);
  bodies[0].mass = central;

  constexpr std::size_t kChunk = 1 << 16;
  std::vector<DiskDraws> draws(std::min<std::size_t>(kChunk, bodies.size()));
  for (std::size_t first = 1; first < bodies.size(); first += kChunk) {
    const std::size_t n = std::min(kChunk, bodies.size() - first);
    for (std::size_t j = 0; j < n; ++j) {
      DiskDraws& d = draws[j];
      d.radius = radii.start(random.uniform());
      d.exactRadius.reset();
      d.u = random.uniform();
      d.arm = random.uniform();
      random.normalDraws(d.offset);
      if (offArm(d.u, d.radius.lo, g) != offArm(d.u, d.radius.hi, g)) d.exactRadius = radii.finish(d.radius);
      d.off = d.exactRadius ? offArm(d.u, *d.exactRadius, g) : offArm(d.u, d.radius.lo, g);
      if (d.off) d.azimuth = random.uniform();
      random.normalDraws(d.z);
      random.normalDraws(d.vr);
      random.normalDraws(d.vt);
      random.normalDraws(d.vz);
    }
#pragma omp parallel for schedule(static)
    for (std::int64_t jj = 0; jj < static_cast<std::int64_t>(n); ++jj) {
      const DiskDraws& d = draws[static_cast<std::size_t>(jj)];
      Body& b = bodies[first + static_cast<std::size_t>(jj)];
      b.mass = disk / double(count - 1);
      const double r = d.exactRadius ? *d.exactRadius : radii.finish(d.radius);
      const double phi = d.off ? 2.0 * std::numbers::pi * d.azimuth
                               : diskAngle(r, g, d.arm, Random::normalFrom(d.offset[0], d.offset[1]));
      const double c = std::cos(phi), s = std::sin(phi);
      b.pos = {r * c, r * s, g.thickness * Random::normalFrom(d.z[0], d.z[1])};
      // Circular speed from the mass inside r: the central body as the stage sees it (softened), the disk as if it
      // were spherical. Not an exact disk equilibrium, but close enough that the disk rotates and stays a disk.
      const double centralPull = central * r * r / std::pow(r * r + eps2, 1.5);
      const double diskPull = r > 0 ? disk * diskMassFraction(r, g.scaleRadius) / diskNorm / r : 0.0;
      const double vc = std::sqrt(double(params.G) * (centralPull + diskPull));
      const double sigma = g.dispersion * vc;
      // Vertical dispersion of an isothermal sheet of this surface density and thickness (sigma_z^2 = pi G Sigma
      // z0): a colder disk collapses vertically in the first time unit, a hotter one puffs up.
      const double surfaceDensity =
          disk * std::exp(-r / g.scaleRadius) / (2.0 * std::numbers::pi * g.scaleRadius * g.scaleRadius * diskNorm);
      const double sigmaZ = std::sqrt(std::numbers::pi * double(params.G) * surfaceDensity * g.thickness);
      const double vr = sigma * Random::normalFrom(d.vr[0], d.vr[1]);
      const double vt = vc + sigma * Random::normalFrom(d.vt[0], d.vt[1]);
      const double vz = sigmaZ * Random::normalFrom(d.vz[0], d.vz[1]);
      b.vel = {vr * c - vt * s, vr * s + vt * c, vz};
    }
    work.checkpoint((done + static_cast<double>(first + n)) / total);
  }
  centre(bodies);
  return bodies;
}

void appendGalaxy(std::vector<Body>& all, const std::vector<Body>& galaxy, int axis, double tiltDegrees, D3 pos,
                  D3 vel) {
  const Rotation rotate(axis, tiltDegrees); // the same cos and sin for every body, computed once
  for (const Body& b : galaxy) {
    all.push_back({rotate(b.pos) + pos, rotate(b.vel) + vel, b.mass});
  }
}

// Two disks on a bound, approaching orbit with an impact parameter of 1: relative speed 0.5 at separation ~6.1
// gives a negative two-body energy, so they swing past each other and eventually merge.
std::vector<Body> makeGalaxyPair(std::int64_t count, const NBodyParams& params, Random& random, LongWork& work) {
  const std::int64_t second = count / 2, first = count - second;
  DiskGalaxy g;
  g.mass = second > 0 ? 0.5 : 1.0;
  std::vector<Body> all;
  all.reserve(static_cast<std::size_t>(count));
  const double sqrtG = std::sqrt(double(params.G));
  appendGalaxy(all, makeDisk(first, g, params, random, work, 0, double(count)), 0, 20.0, {3.0, 0.5, 0.0},
               D3{-0.25, 0.0, 0.0} * sqrtG);
  appendGalaxy(all, makeDisk(second, g, params, random, work, double(first), double(count)), 1, -35.0,
               {-3.0, -0.5, 0.0}, D3{0.25, 0.0, 0.0} * sqrtG);
  return all;
}

// Plummer sphere by Aarseth, Henon & Wielen (1974) sampling, scaled to standard N-body units (E = -1/4): radii from
// the inverted cumulative mass (cut at 99.9% to avoid far outliers), speeds by von Neumann rejection from
// g(q) = q^2 (1 - q^2)^(7/2) below the local escape speed.
std::vector<Body> makePlummer(std::int64_t count, const NBodyParams& params, Random& random, LongWork& work) {
  constexpr double kLengthScale = 3.0 * std::numbers::pi / 16.0;
  const double speedScale = std::sqrt(double(params.G) / kLengthScale);
  std::vector<Body> bodies(static_cast<std::size_t>(count));
  for (Body& b : bodies) {
    if (const auto i = static_cast<std::size_t>(&b - bodies.data()); i % (1 << 16) == 0)
      work.checkpoint(static_cast<double>(i) / static_cast<double>(count));
    b.mass = 1.0 / double(count);
    const double x = 0.999 * random.uniform();
    const double r = x > 0 ? 1.0 / std::sqrt(std::pow(x, -2.0 / 3.0) - 1.0) : 0.0;
    b.pos = random.isotropic(r * kLengthScale);
    double q = 0;
    for (;;) {
      q = random.uniform();
      if (0.1 * random.uniform() < q * q * std::pow(1.0 - q * q, 3.5)) break;
    }
    const double escape = std::sqrt(2.0) * std::pow(1.0 + r * r, -0.25);
    b.vel = random.isotropic(q * escape * speedScale);
  }
  centre(bodies);
  return bodies;
}

// Direct summation in double over bodies j in [begin, end) for the block of kLanes bodies starting at i0, skipping
// j == i (its self term would be 0 / 0 without softening). Lane k sums body i0 + k over j in ascending order; the
// caller runs consecutive j ranges, so the whole sum is in index order. The lane loop vectorises (2 doubles per
// SSE2 register) when the range holds no self term, which is all but kLanes values of j.
constexpr std::size_t kLanes = 8;
struct SoA {
  std::vector<double> x, y, z, m;
};
struct BlockSums {
  double ax[kLanes] = {}, ay[kLanes] = {}, az[kLanes] = {}, phi[kLanes] = {};
};
template <bool kHasSelf>
void sumRange(const SoA& p, std::size_t i0, std::size_t begin, std::size_t end, double eps2, BlockSums& out) {
  double xi[kLanes], yi[kLanes], zi[kLanes];
  for (std::size_t k = 0; k < kLanes; ++k) {
    xi[k] = p.x[i0 + k];
    yi[k] = p.y[i0 + k];
    zi[k] = p.z[i0 + k];
  }
  for (std::size_t j = begin; j < end; ++j) {
    const double xj = p.x[j], yj = p.y[j], zj = p.z[j], mj = p.m[j];
    for (std::size_t k = 0; k < kLanes; ++k) {
      if (kHasSelf && j == i0 + k) continue;
      const double dx = xj - xi[k], dy = yj - yi[k], dz = zj - zi[k];
      const double inv = 1.0 / std::sqrt(dx * dx + dy * dy + dz * dz + eps2);
      const double w = mj * inv * inv * inv;
      out.ax[k] += dx * w;
      out.ay[k] += dy * w;
      out.az[k] += dz * w;
      out.phi[k] += mj * inv;
    }
  }
}

// Accelerations and, when asked, each body's potential sum_j m_j / sqrt(r^2 + eps^2). Parallel over blocks of
// bodies; each body sums j in order, so the result does not depend on the thread count.
std::vector<D3> directSum(const BodyState& state, const NBodyParams& params, std::vector<double>* potential) {
  const std::size_t n = state.size(), padded = (n + kLanes - 1) / kLanes * kLanes;
  const double eps2 = double(params.softening) * params.softening;
  SoA p{std::vector<double>(padded), std::vector<double>(padded), std::vector<double>(padded),
        std::vector<double>(padded)}; // padding: massless bodies at the origin, never stored
  for (std::size_t i = 0; i < n; ++i) {
    p.x[i] = state.posMass[i].x;
    p.y[i] = state.posMass[i].y;
    p.z[i] = state.posMass[i].z;
    p.m[i] = state.posMass[i].w;
  }
  std::vector<D3> accel(n);
  if (potential) potential->assign(n, 0.0);
  const auto blocks = static_cast<std::int64_t>(padded / kLanes);
  // In chunks of blocks, with a checkpoint between them (Ctrl-C, progress past 2 s: compute/long_work.h). Each body's
  // sum is still one block's, in j order: chunking changes no result.
  LongWork work(n >= 4096 ? "initial forces of " + std::to_string(n) + " bodies (double-precision direct sum)" : "");
  // The double loop is ~4x slower per interaction than the float forces stage.
  const auto chunk = static_cast<std::int64_t>(
      std::max<std::uint64_t>(1, kInteractionsPerCheckpoint / 4 / (std::max<std::size_t>(n, 1) * kLanes)));
  for (std::int64_t begin = 0; begin < blocks; begin += chunk) {
    const std::int64_t end = std::min(blocks, begin + chunk);
#pragma omp parallel for schedule(static)
    for (std::int64_t b = begin; b < end; ++b) {
      const std::size_t i0 = static_cast<std::size_t>(b) * kLanes, selfEnd = std::min(i0 + kLanes, n);
      BlockSums sums;
      sumRange<false>(p, i0, 0, i0, eps2, sums);
      sumRange<true>(p, i0, i0, selfEnd, eps2, sums);
      sumRange<false>(p, i0, selfEnd, n, eps2, sums);
      for (std::size_t k = 0; k < kLanes && i0 + k < n; ++k) {
        accel[i0 + k] = D3{sums.ax[k], sums.ay[k], sums.az[k]} * double(params.G);
        if (potential) (*potential)[i0 + k] = sums.phi[k];
      }
    }
    work.checkpoint(static_cast<double>(end) / static_cast<double>(blocks));
  }
  return accel;
}

} // namespace

BodyState makeInitialConditions(const NBodyConfig& config) {
  if (config.bodies < 0 || config.bodies > kMaxBodies) {
    throw std::invalid_argument("bodies: " + std::to_string(config.bodies) + " is out of range (allowed: 0 to " +
                                std::to_string(kMaxBodies) + ")");
  }
  Random random(config.seed);
  std::vector<Body> bodies;
  LongWork work(config.bodies >= (1 << 20) ? "generating " + std::to_string(config.bodies) + " bodies" : "");
  if (config.initial == "galaxy-pair") {
    bodies = makeGalaxyPair(config.bodies, config.params, random, work);
  } else if (config.initial == "plummer") {
    bodies = makePlummer(config.bodies, config.params, random, work);
  } else if (config.initial == "two-body") {
    if (config.bodies != 2) {
      throw std::invalid_argument("bodies: two-body needs exactly 2 bodies, not " + std::to_string(config.bodies));
    }
    // Equal masses 1/2 at separation 1: v^2 / (1/2) = G (1/2) / 1^2 gives |v| = 1/2 and period 2 pi (G = 1).
    const double v = 0.5 * std::sqrt(double(config.params.G));
    bodies = {{{0.5, 0, 0}, {0, -v, 0}, 0.5}, {{-0.5, 0, 0}, {0, v, 0}, 0.5}};
  } else {
    std::string allowed;
    for (std::string_view name : kInitialConditionNames) allowed += (allowed.empty() ? "" : ", ") + std::string(name);
    throw std::invalid_argument("initial: unknown initial conditions '" + config.initial + "' (allowed: " + allowed +
                                ")");
  }

  BodyState state;
  state.posMass.reserve(bodies.size());
  state.vel.reserve(bodies.size());
  for (const Body& b : bodies) {
    state.posMass.push_back({float(b.pos.x), float(b.pos.y), float(b.pos.z), float(b.mass)});
    state.vel.push_back({float(b.vel.x), float(b.vel.y), float(b.vel.z), 0.0f});
  }
  return state;
}

void startLeapfrog(BodyState& state, const NBodyParams& params, std::vector<Float4>& accel0) {
  const std::vector<D3> accel = directSum(state, params, nullptr);
  const double half = 0.5 * double(params.dt);
  accel0.resize(state.size());
  for (std::size_t i = 0; i < state.size(); ++i) {
    Float4& v = state.vel[i];
    v.x = float(double(v.x) - accel[i].x * half);
    v.y = float(double(v.y) - accel[i].y * half);
    v.z = float(double(v.z) - accel[i].z * half);
    accel0[i] = {float(accel[i].x), float(accel[i].y), float(accel[i].z), 0.0f};
  }
}

void startLeapfrog(BodyState& state, const NBodyParams& params) {
  std::vector<Float4> accel0;
  startLeapfrog(state, params, accel0);
}

Diagnostics measure(const BodyState& state, const NBodyParams& params) {
  std::vector<double> potential;
  const std::vector<D3> accel = directSum(state, params, &potential);
  const double half = 0.5 * double(params.dt);
  Diagnostics d{};
  for (std::size_t i = 0; i < state.size(); ++i) {
    const Float4& x = state.posMass[i];
    const Float4 vh = state.vel[i];
    const D3 v = D3{vh.x, vh.y, vh.z} + accel[i] * half; // v(t) from v(t - dt/2) and a(t)
    diagnostics_math::addKinematics(d, x.w, {x.x, x.y, x.z}, {v.x, v.y, v.z});
    diagnostics_math::addPotential(d, x.w, potential[i], double(params.G));
  }
  return d;
}

} // namespace graphsim
