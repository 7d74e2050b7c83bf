#include "app/scenes/fluid/fluid_producer.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "app/base/errors.h"
#include "app/scenes/fluid/fluid_controls.h"
#include "app/scenes/fluid/fluid_scene.h"
#include "app/scenes/fluid/fluid_snapshot.h"
#include "app/scenes/param_panel.h"
#include "app/ui/frame_stats.h"
#include "app/ui/plot_ring.h"
#include "render/particle_renderer.h"

namespace graphsim::app {
namespace {

using fluid::FluidToggle;

const fluid::FluidToggleInfo* toggleNamed(std::string_view name) {
  for (const fluid::FluidToggleInfo& row : fluid::kFluidToggles)
    if (row.name == name) return &row;
  return nullptr;
}

// The obstacle inside the box (validateFluidParams: centre within [R, box - R] per axis, R <= half the box).
void clampObstacle(fluid::FluidParams& p) {
  const float half = 0.5f * std::min({p.boxSize[0], p.boxSize[1], p.boxSize[2]});
  p.obstacleRadius = std::clamp(p.obstacleRadius, 0.0f, half);
  for (int a = 0; a < 3; ++a)
    p.obstacleCentre[a] = std::clamp(p.obstacleCentre[a], p.obstacleRadius, p.boxSize[a] - p.obstacleRadius);
}

class FluidProducer final : public SceneProducer {
public:
  FluidProducer(std::unique_ptr<SceneEngine> engine, fluid::FluidBackend& backend, std::int64_t capacity,
                const ProducerRequest& request)
      : SceneProducer(fluidScene(), std::move(engine), request.renderer, request.inject), backend_(backend),
        controller_(backend.config(), capacity) {}

  void styleFrame(render::FrameSubmit& submit) const override { styleFluidFrame(backend_.config(), submit); }
  double applyEdits(const FrameEdits& edits) override {
    controller_.frameDone(backend_.lastFrame());
    controller_.applyTo(backend_, edits);
    pollDiagnostics();
    if (inject().fault == Fault::NonFinite && edits.frame == inject().frame) injectNonFinite();
    return controller_.simTime();
  }
  // A node is switched by the toggle of its name (obstacle, colour); the other toggles are kernel arguments. The
  // diagnostics node by the sampling's switch.
  bool* nodeSwitch(const NodeInfo& node, std::string* tooltip) override {
    if (node.diagnostics) {
      if (tooltip != nullptr)
        *tooltip = "mass, max density deviation, max compression and max speed every " +
                   std::to_string(backend_.config().diagnosticsEvery) +
                   " frames (Stats: Diagnostics); changes no state.\nOn the GPU the node (after the WHILE node) runs "
                   "only on those frames (enabled for them, disabled after); this box turns the sampling on or off";
      return &controller_.diagnosticsSwitch();
    }
    const fluid::FluidToggleInfo* row = toggleNamed(node.name);
    if (row == nullptr) return nullptr;
    if (tooltip != nullptr) *tooltip = row->mechanism;
    return &controller_.toggleSwitch(row->toggle);
  }

  void drawParameters(const FrameStats& stats, PanelLayout& layout) override;
  void drawStats(const FrameStats& stats) override;
  void pointAt(const glm::vec3& p, bool pressed) override {
    if (pressed) controller_.setEnabled(FluidToggle::Obstacle, true);
    fluid::FluidParams params = controller_.params();
    const fluid::FluidConfig& config = backend_.config();
    for (int a = 0; a < 3; ++a) params.boxSize[a] = config.params.boxSize[a];
    params.obstacleCentre[0] = p.x;
    params.obstacleCentre[1] = p.y;
    params.obstacleCentre[2] = p.z;
    clampObstacle(params);
    controller_.setParams(params);
  }
  // "last frame 12 substeps, dt 1.39 ms" from the backend's (asynchronous) last frame (DFSPH: and its density
  // solve's iterations per substep, mean and most); empty before the first.
  std::string frameDetail() const override {
    const std::optional<fluid::FluidFrameInfo> f = backend_.lastFrame();
    if (!f) return {};
    char text[160];
    int n = std::snprintf(text, sizeof text, "last frame %d substep%s, dt %.3f ms", f->substeps,
                          f->substeps == 1 ? "" : "s", 1e3 * static_cast<double>(f->lastDt));
    if (f->density.total > 0 && f->substeps > 0 && n > 0)
      std::snprintf(text + n, sizeof text - static_cast<std::size_t>(n), ", density iterations %.1f (max %d)",
                    static_cast<double>(f->density.total) / f->substeps, f->density.max);
    return text;
  }
  std::string diagnosticsSummary() const override {
    pollDiagnostics(); // after the drain: the last frame's sample may be new
    return everyFrames(diagnostics_.summary(), backend_.config().diagnosticsEvery);
  }
  SceneState saveState() override { return saveFluidState(backend_, controller_); }
  void loadState(const SceneState& state) override { loadFluidState(state, backend_, controller_); }
  nlohmann::json liveControls() const override { return fluidControls(controller_); }
  std::function<void()> checkControls(const JsonReader& controls) override {
    return checkFluidControls(controls, backend_.config(), controller_);
  }

  FluidController& controller() { return controller_; }
  fluid::FluidBackend& backend() { return backend_; }

private:
  void drawPhysics(PanelLayout& layout);
  void drawToggles(PanelLayout& layout);
  void drawCount(PanelLayout& layout);
  void drawDiagnostics();
  // Takes the backend's latest diagnostics sample (never waits); a new one goes into the plots, a new series empties
  // them. Const: what it updates is a cache of what the backend reported (the summary reads it after the drain).
  void pollDiagnostics() const {
    if (!diagnostics_.update(backend_.diagnostics())) return;
    if (diagnostics_.samples() == 1) {
      for (PlotRing* ring : {&massChange_, &deviation_, &compression_, &speed_}) ring->clear();
    }
    const fluid::FluidDiagnosticSums& s = diagnostics_.last()->sums;
    massChange_.push(static_cast<float>(diagnostics_.massChange()));
    deviation_.push(static_cast<float>(100.0 * s.maxDensityDeviation));
    compression_.push(static_cast<float>(100.0 * s.maxCompression));
    speed_.push(static_cast<float>(s.maxSpeed));
  }

  // --inject non-finite: one particle's velocity becomes NaN before the frame (CUDA: downloaded after the frames in
  // flight and uploaded again, so frame K's graph starts from it).
  void injectNonFinite() {
    fluid::FluidState state;
    backend_.download(state);
    state.vel.front().x = std::numeric_limits<float>::quiet_NaN();
    backend_.setState(std::move(state));
  }

  fluid::FluidBackend& backend_; // the engine's
  FluidController controller_;
  int particlesEdit_ = 0; // the count slider while dragged (applied on release); 0: show the controller's
  // Diagnostics (docs/DIAGNOSTICS.md): the series' first and latest sample and its peaks, and the last
  // PlotRing::kSamples values of each quantity for the panel's plots. Filled by pollDiagnostics.
  mutable fluid::FluidDiagnosticsTrack diagnostics_;
  mutable PlotRing massChange_, deviation_, compression_, speed_;
};

// One slider per kFluidParams row that has one (its label, its "param:<id>" for the scripted UI tests), then the
// rule between fields (the obstacle inside the box); applied at the next frame when anything changed.
void FluidProducer::drawPhysics(PanelLayout& layout) {
  fluid::FluidParams p = controller_.params();
  const fluid::FluidConfig& config = backend_.config();
  for (int a = 0; a < 3; ++a) p.boxSize[a] = config.params.boxSize[a];
  for (const ParamRow<fluid::FluidParams>& row : fluid::kFluidParams) {
    if (!row.hasSlider()) continue;
    drawParamSlider(row, p);
    recordWidget(layout, "param:" + std::string(row.slider.id));
  }
  clampObstacle(p);
  if (p != controller_.params()) controller_.setParams(p);
}

void FluidProducer::drawToggles(PanelLayout& layout) {
  for (const fluid::FluidToggleInfo& row : fluid::kFluidToggles) {
    bool on = controller_.wanted(row.toggle);
    char id[64];
    std::snprintf(id, sizeof id, "%.*s##toggle", static_cast<int>(row.name.size()), row.name.data());
    if (ImGui::Checkbox(id, &on)) controller_.setEnabled(row.toggle, on);
    char key[64];
    std::snprintf(key, sizeof key, "toggle:%.*s", static_cast<int>(row.name.size()), row.name.data());
    recordWidget(layout, key);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%.*s\n%.*s", static_cast<int>(row.effect.size()), row.effect.data(),
                        static_cast<int>(row.mechanism.size()), row.mechanism.data());
    ImGui::SameLine();
    ImGui::TextDisabled("%.*s", static_cast<int>(row.mechanism.size()), row.mechanism.data());
  }
}

// Structural: the count is applied when the slider is released (a reset: new lattice, spacing, radius, grid).
void FluidProducer::drawCount(PanelLayout& layout) {
  if (const auto n = drawReleasedSlider("particles", particlesEdit_, static_cast<int>(controller_.particles()), 64,
                                        static_cast<int>(controller_.maxParticles()),
                                        ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
    controller_.setParticles(*n);
  recordWidget(layout, "param:particles");
  const fluid::FluidConfig& config = backend_.config();
  ImGui::Text("particle radius %.2f mm (derived from the count)",
              1e3 * 0.5 * static_cast<double>(config.params.spacing));
}

void FluidProducer::drawParameters(const FrameStats& stats, PanelLayout& layout) {
  drawPhysics(layout);
  drawCount(layout);
  drawToggles(layout);
  int solver = static_cast<int>(controller_.solver()); // the graph's SWITCH: a node update, no rebuild
  if (ImGui::Combo("solver", &solver, "wcsph (weakly compressible)\0dfsph (incompressible)\0"))
    controller_.setSolver(static_cast<fluid::FluidSolver>(solver));
  if (const std::optional<fluid::FluidFrameInfo> f = backend_.lastFrame()) {
    ImGui::Text("last frame %llu: %d substeps, dt %.3f ms, covered %.2f ms", static_cast<unsigned long long>(f->frame),
                f->substeps, 1e3 * static_cast<double>(f->lastDt), 1e3 * static_cast<double>(f->covered));
    if (f->covered < 0.999f * backend_.config().frameDt && f->substeps > 0) // a capped frame: slow motion
      ImGui::TextColored(ImVec4(1.0f, 0.75f, 0.0f, 1.0f), "the frame hit max substeps: it covered %.0f %% of frameDt",
                         100.0 * static_cast<double>(f->covered / backend_.config().frameDt));
    if (f->density.total > 0 && f->substeps > 0)
      ImGui::Text(
          "dfsph iterations per substep: density %.1f (max %d), divergence %.1f; peak compression %.2f %%, "
          "average density error %.3f %%",
          static_cast<double>(f->density.total) / f->substeps, f->density.max,
          static_cast<double>(f->divergence.total) / f->substeps, 100.0 * static_cast<double>(f->peakCompression),
          100.0 * f->densityError);
    if (f->substeps > 0)
      ImGui::Text(
          "re-sorts: %d of %d steps (the re-sort IF: neighbour lists kept while no particle moved half the "
          "skin)",
          f->resorts, f->substeps);
  } else {
    ImGui::TextDisabled("last frame: not known yet");
  }
  drawUpdateCounters(stats, controller_.lastStructuralChange());
}

void FluidProducer::drawStats(const FrameStats& stats) {
  const std::optional<fluid::FluidFrameInfo> f = backend_.lastFrame();
  if (stats.simMs > 0 && !paused() && f) {
    ImGui::Text("%lld particles, %.3g particle-steps/s", static_cast<long long>(count()),
                static_cast<double>(count()) * f->substeps / (stats.simMs * 1e-3));
  } else {
    ImGui::Text("%lld particles%s", static_cast<long long>(count()), paused() ? " (paused)" : "");
  }
  drawDiagnostics();
}

// Mass, max density deviation, max compression and max speed: the latest values over the last PlotRing::kSamples
// samples, and each one's peak over the series. A tree node, closed at first; its label carries the compression and
// the speed.
void FluidProducer::drawDiagnostics() {
  const fluid::FluidBackend& backend = backend_;
  const int every = backend.config().diagnosticsEvery;
  if (every == 0) {
    ImGui::TextDisabled("diagnostics off (--diagnostics-every 0)");
    return;
  }
  const std::optional<fluid::FluidDiagnosticsSample>& last = diagnostics_.last();
  if (!last) {
    ImGui::TextDisabled(backend.diagnosticsEnabled() ? "diagnostics: no sample yet (paused)"
                                                     : "diagnostics: off (the Graph section's diagnostics node)");
    return;
  }
  const fluid::FluidDiagnosticSums& s = last->sums;
  const fluid::FluidDiagnosticSums& peak = diagnostics_.peak();
  char label[160];
  std::snprintf(label, sizeof label, "Diagnostics: compression %.2f %%, max speed %.3g m/s, frame %llu%s###diagnostics",
                100.0 * s.maxCompression, s.maxSpeed, static_cast<unsigned long long>(last->frame),
                backend.diagnosticsEnabled() ? "" : " (off)");
  if (!ImGui::TreeNode(label)) return;
  ImGui::Text("%llu samples every %d frames since frame %llu; %llu particles counted",
              static_cast<unsigned long long>(diagnostics_.samples()), every,
              static_cast<unsigned long long>(diagnostics_.first()->frame), s.particles);
  const auto plot = [&](const char* name, const PlotRing& values, const char* overlay, const char* what) {
    if (drawPlotRing(name, values, overlay))
      ImGui::SetTooltip("%s\nover the particles whose position, velocity and density are finite", what);
  };
  char overlay[96];
  std::snprintf(overlay, sizeof overlay, "M %.6g kg  change %+.2e", s.mass, diagnostics_.massChange());
  plot("mass", massChange_, overlay, "M / M0 - 1, M = m x particles counted (a non-finite particle leaves it)");
  std::snprintf(overlay, sizeof overlay, "%.3f %%  peak %.3f %%", 100.0 * s.maxDensityDeviation,
                100.0 * peak.maxDensityDeviation);
  plot("density deviation", deviation_, overlay,
       "max |rho/rho0 - 1| [%]: at the free surface rho is low (missing neighbours), so this stays high;\n"
       "it is not the solver's error (Parameters: average density error)");
  std::snprintf(overlay, sizeof overlay, "%.3f %%  peak %.3f %%", 100.0 * s.maxCompression,
                100.0 * peak.maxCompression);
  plot("compression", compression_, overlay, "max (rho/rho0 - 1) [%]: what the stiffness keeps small (~1 %)");
  std::snprintf(overlay, sizeof overlay, "%.3f m/s  peak %.3f m/s", s.maxSpeed, peak.maxSpeed);
  plot("max speed", speed_, overlay, "max |v| [m/s]");
  ImGui::TreePop();
}

} // namespace

SceneNotice FluidRules::notice(const fluid::FluidBlowUp& b) {
  return SceneNotice{"the simulation blew up in " + fluid::describe(b),
                     "Paused. R resets the scene; lower the stiffness or the CFL number, or raise max substeps."};
}

std::unique_ptr<FluidCudaEngine> makeFluidCudaEngine(const fluid::FluidConfig& config,
                                                     render::ParticleRenderer* renderer, int device,
                                                     fluid::FluidCudaOptions options, const FaultPlan& inject) {
  const std::optional<InteropDesc> interop = interopFor(feedPath(true, renderer), renderer, inject);
  auto engine = std::make_unique<FluidCudaEngine>(config, device, interop ? &*interop : nullptr, options);
  armKernelFailure(inject, engine->backend()); // test hook: kernel-fail
  return engine;
}

std::unique_ptr<SceneProducer> makeFluidProducer(const SceneSettings& settings, const ProducerRequest& request,
                                                 std::int64_t capacity) {
  if (request.cuda) {
    fluid::FluidCudaOptions options;
    options.waitTimeout = request.waitTimeout;
    return makeOver<FluidProducer>(
        makeFluidCudaEngine(fluidConfig(settings), request.renderer, request.cudaDevice, options, request.inject),
        capacity, request);
  }
  refuseCudaOnlyFault(request.inject, "cpu");
  return makeOver<FluidProducer>(std::make_unique<FluidCpuEngine>(fluidConfig(settings)), capacity, request);
}

void styleFluidFrame(const fluid::FluidConfig& config, render::FrameSubmit& submit) {
  const float* box = config.params.boxSize;
  submit.style.pointRadius = fluid::particleRadius(config.params);
  submit.style.palette = render::Palette::Fluid;
  submit.style.colourScale = 1.0f; // the colour stage already scaled the attribute into [0, 1]
  submit.box = render::Box{glm::vec3(0.0f), glm::vec3(box[0], box[1], box[2])};
  const float* centre = config.params.obstacleCentre;
  if (config.enabled[static_cast<std::size_t>(fluid::FluidToggle::Obstacle)] && config.params.obstacleRadius > 0.0f)
    submit.obstacle = render::Sphere{glm::vec3(centre[0], centre[1], centre[2]), config.params.obstacleRadius};
}

// Every producer of the fluid scene is a FluidProducer (makeFluidProducer is the only one that names the scene).
FluidController* fluidController(SceneProducer& producer) {
  if (&producer.scene() != &fluidScene()) return nullptr;
  return &static_cast<FluidProducer&>(producer).controller();
}

fluid::FluidBackend* fluidBackend(SceneProducer& producer) {
  if (&producer.scene() != &fluidScene()) return nullptr;
  return &static_cast<FluidProducer&>(producer).backend();
}

} // namespace graphsim::app
