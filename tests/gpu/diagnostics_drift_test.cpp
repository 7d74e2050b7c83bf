// The drift per 1,000 frames of the presets on the CUDA backend (docs/DIAGNOSTICS.md's table): each preset's scene,
// stages and parameters (app/scenes' loadPreset), compute-only, 1,000 frames sampled every 10 by the graph's
// diagnostics node, three frames queued as the frame loop keeps them. Prints one line per preset for the table; the
// checks only catch a broken sample (a bound system, finite values, a drift far beyond the leapfrog's).
//   build/bin/gpu_tests --gtest_filter='DiagnosticsDrift.*'
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "app/scenes/scene.h"
#include "compute/nbody/nbody_cuda_backend.h"
#include "compute/nbody/nbody_cuda_instruments.h"
#include "compute/nbody/nbody_diagnostics.h"
#include "tests/gpu/gpu_test_support.h"

namespace graphsim {
namespace {

struct Preset {
  const char* name; // what the docs call it
  const char* scene;
  const char* initial; // overrides the preset's initial conditions (plummer.json is nbody.json's with "plummer")
  float dt, softening; // plummer.json's parameters over nbody.json's; 0: the preset's
};

TEST(DiagnosticsDrift, PresetsOverAThousandFrames) {
  GRAPHSIM_REQUIRE_CUDA_DEVICE();
  for (const Preset& p : {Preset{"nbody.json (galaxy-pair)", "nbody", nullptr, 0.0f, 0.0f},
                          Preset{"plummer.json", "nbody", "plummer", 0.002f, 0.02f}}) {
    NBodyConfig config = app::loadPreset(p.scene).sim;
    if (p.initial != nullptr) config.initial = p.initial;
    if (p.dt > 0) config.params.dt = p.dt;
    if (p.softening > 0) config.params.softening = p.softening;
    config.diagnosticsEvery = 10;
    NBodyCudaBackend sim(config, 0);
    DiagnosticsTrack track;
    constexpr std::uint64_t kFrames = 1000;
    for (std::uint64_t k = 0; k < kFrames; ++k) {
      if (k >= 3) NBodyCudaInstruments::waitForFrame(sim, k - 3);
      sim.launchFrame(k);
      track.update(sim.diagnostics());
    }
    sim.synchronize();
    track.update(sim.diagnostics());
    ASSERT_EQ(track.samples(), 100u) << p.name;
    const DiagnosticsDrift d = *track.driftPer1000Frames();
    std::printf("[ measured ] %s, %lld bodies, cuda: drift per 1000 frames E %.2e, P %.2e, L %.2e | %s\n", p.name,
                static_cast<long long>(config.bodies), d.energy, d.momentum, d.angularMomentum,
                track.summary().c_str());
    EXPECT_LT(track.first()->sums.total(), 0.0) << p.name;
    EXPECT_TRUE(std::isfinite(d.energy) && std::isfinite(d.momentum) && std::isfinite(d.angularMomentum)) << p.name;
    EXPECT_LT(std::abs(d.energy), 1e-2) << p.name;
  }
}

} // namespace
} // namespace graphsim
