#include "app/scenes/fluid/fluid_producer.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "app/base/errors.h"
#include "app/run/frame_producer.h" // dumpThroughWriter
#include "app/scenes/fluid/fluid_controls.h"
#include "app/scenes/fluid/fluid_scene.h"
#include "app/scenes/fluid/fluid_snapshot.h"
#include "app/scenes/param_panel.h"
#include "app/ui/frame_stats.h"
#include "app/ui/plot_ring.h"
#include "compute/fluid/fluid_cpu_backend.h"
#include "render/particle_renderer.h"

namespace graphsim::app {
namespace {

using fluid::FluidToggle;

class FluidCpuEngine final : public FluidEngine {
public:
  FluidCpuEngine(const fluid::FluidConfig& config, render::ParticleRenderer* renderer)
      : sim_(config), renderer_(renderer) {}

  fluid::FluidBackend& backend() override { return sim_; }
  std::optional<std::uint64_t> produce(std::uint64_t k, bool advance) override {
    if (advance) {
      const auto t0 = std::chrono::steady_clock::now();
      sim_.stepFrame(k); // a blow-up report names the loop's frame k
      simMs_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    if (renderer_ != nullptr)
      sim_.writeRender(reinterpret_cast<Float4*>(renderer_->mappedBodies(renderer_->slotOf(k))));
    return std::nullopt; // written by the host before the submit
  }
  void waitProduced(std::uint64_t) override {}
  void finish() override {}
  double simMs() const override { return simMs_; }
  double updateHostUs() const override { return 0; }
  bool hasGraph() const override { return false; }
  void dumpGraph(const std::filesystem::path&) const override {}
  bool injectNonFinite() override {
    fluid::FluidState state = sim_.state();
    state.vel.front().x = std::numeric_limits<float>::quiet_NaN();
    sim_.setState(std::move(state));
    return true;
  }

private:
  fluid::FluidCpuBackend sim_;
  render::ParticleRenderer* renderer_;
  double simMs_ = -1;
};

// Interop: the graph writes the slot and signals simDone = k + 1. Host copy: the host waits for the frame and
// copies it into the slot's staging buffer. Compute only (no renderer): launches alone.
class FluidCudaEngine final : public FluidEngine {
public:
  FluidCudaEngine(const fluid::FluidConfig& config, render::ParticleRenderer* renderer, int device,
                  fluid::FluidCudaOptions options, const FaultPlan& inject)
      : renderer_(renderer), interop_(interopFor(renderer, inject)),
        sim_(config, device, interop_ ? &*interop_ : nullptr, options), inject_(inject) {
    if (inject.fault == Fault::KernelFail)
      throw UsageError("--inject kernel-fail: the fluid scene's CUDA graph has no kernel-fail hook (n-body only)");
  }

  fluid::FluidBackend& backend() override { return sim_; }
  fluid::FluidCudaBackend* cudaBackend() override { return &sim_; }
  fluid::FluidCudaBackend& cuda() { return sim_; }
  std::optional<std::uint64_t> produce(std::uint64_t k, bool) override {
    if (renderer_ == nullptr) {
      sim_.launchFrame(k);
      return std::nullopt;
    }
    const FrameProtocol& protocol = renderer_->protocol();
    if (!launchesFrame(inject_, k)) return protocol.simDoneSignalled(k); // test hook: cuda-semaphore-stall
    sim_.launchFrame(k);
    if (interop_) return protocol.simDoneSignalled(k);
    sim_.copyRenderOutput(reinterpret_cast<Float4*>(renderer_->mappedBodies(protocol.slot(k))));
    return std::nullopt;
  }
  void waitProduced(std::uint64_t k) override { sim_.waitForFrame(k); }
  void finish() override { sim_.synchronize(); }
  double simMs() const override { return sim_.lastSimGpuMs(); }
  double updateHostUs() const override { return sim_.lastUpdateHostUs(); }
  bool hasGraph() const override { return true; }
  void dumpGraph(const std::filesystem::path& path) const override {
    dumpThroughWriter([&](const std::filesystem::path& file) { sim_.dumpGraphDot(file); }, path);
  }
  bool injectNonFinite() override { return false; }

private:
  static std::optional<InteropDesc> interopFor(render::ParticleRenderer* renderer, const FaultPlan& inject) {
    if (renderer == nullptr || renderer->config().mode != render::BodyBufferMode::Exported) return std::nullopt;
    InteropDesc interop = renderer->exportInterop();
    injectIntoInterop(inject, interop); // test hook: import-fail
    return interop;
  }

  render::ParticleRenderer* renderer_;
  std::optional<InteropDesc> interop_; // the fds belong to sim_ once it is constructed
  fluid::FluidCudaBackend sim_;
  FaultPlan inject_;
};

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
  FluidProducer(std::unique_ptr<FluidEngine> engine, std::int64_t capacity, const FaultPlan& inject)
      : SceneProducer(fluidScene()), engine_(std::move(engine)), controller_(engine_->backend().config(), capacity),
        inject_(inject) {}

  std::optional<std::uint64_t> produce(std::uint64_t k) override { return engine_->produce(k, advance_); }
  void waitProduced(std::uint64_t k) override { engine_->waitProduced(k); }
  void finish() override { engine_->finish(); }

  std::string_view backendName() const override { return engine_->backend().name(); }
  std::int64_t count() const override { return engine_->backend().config().particles; }
  void beginFrame(std::uint64_t k) override {
    controller_.frameDone(engine_->backend().lastFrame());
    advance_ = controller_.applyTo(engine_->backend());
    pollDiagnostics();
    if (inject_.fault == Fault::NonFinite && k == inject_.frame && !engine_->injectNonFinite())
      throw UsageError("--inject non-finite: the fluid scene injects it on the cpu backend only");
  }
  void styleFrame(render::FrameSubmit& submit) const override { styleFluidFrame(engine_->backend().config(), submit); }

  void togglePause() override { controller_.togglePause(); }
  void requestStep() override { controller_.requestStep(); }
  void requestReset() override { controller_.requestReset(); }
  bool paused() const override { return controller_.paused(); }
  bool advances() const override { return advance_; }
  double simTime() const override { return controller_.simTime(); }

  double simMs() const override { return engine_->simMs(); }
  double updateHostUs() const override { return engine_->updateHostUs(); }
  UpdateCounters counters() const override { return engine_->backend().counters(); }
  const std::vector<NodeInfo>& nodes() const override { return engine_->backend().nodes(); }
  // A node is switched by the toggle of its name (obstacle, colour); the other toggles are kernel arguments. The
  // diagnostics node by the sampling's switch.
  bool nodeTogglable(const NodeInfo& node) const override {
    return node.togglable && (node.diagnostics || toggleNamed(node.name) != nullptr);
  }
  void setNodeEnabled(const NodeInfo& node, bool enabled) override {
    if (node.diagnostics && node.togglable) {
      controller_.setDiagnosticsEnabled(enabled);
    } else if (const fluid::FluidToggleInfo* row = toggleNamed(node.name); row != nullptr && node.togglable) {
      controller_.setEnabled(row->toggle, enabled);
    }
  }
  std::string nodeTooltip(const NodeInfo& node) const override {
    if (!node.togglable) return "cannot be disabled: " + node.whyNotTogglable;
    if (node.diagnostics) {
      return "mass, max density error, max compression and max speed every " +
             std::to_string(engine_->backend().config().diagnosticsEvery) +
             " frames (Stats: Diagnostics); changes no state.\nOn the GPU the node (after the WHILE node) runs only on "
             "those frames (enabled for them, disabled after); this box turns the sampling on or off";
    }
    if (const fluid::FluidToggleInfo* row = toggleNamed(node.name)) return std::string(row->mechanism);
    return {};
  }
  bool setProfiling(bool) override { return false; }
  bool hasGraph() const override { return engine_->hasGraph(); }
  void dumpGraph(const std::filesystem::path& path) const override { engine_->dumpGraph(path); }
  std::optional<SceneNotice> blowUp() const override {
    const std::optional<fluid::FluidBlowUp> b = engine_->backend().blowUp();
    if (!b) return std::nullopt;
    return SceneNotice{"the simulation blew up in " + fluid::describe(*b),
                       "Paused. R resets the scene; lower the stiffness or the CFL number, or raise max substeps."};
  }

  void drawParameters(const FrameStats& stats, PanelLayout& layout) override;
  void drawStats(const FrameStats& stats) override;
  void pointAt(const glm::vec3& p, bool pressed) override {
    if (pressed) controller_.setEnabled(FluidToggle::Obstacle, true);
    fluid::FluidParams params = controller_.params();
    const fluid::FluidConfig& config = engine_->backend().config();
    for (int a = 0; a < 3; ++a) params.boxSize[a] = config.params.boxSize[a];
    params.obstacleCentre[0] = p.x;
    params.obstacleCentre[1] = p.y;
    params.obstacleCentre[2] = p.z;
    clampObstacle(params);
    controller_.setParams(params);
  }
  std::string describeState() const override { return std::to_string(count()) + " particles"; }
  std::string frameDetail() const override { return fluidFrameDetail(engine_->backend()); }
  std::string diagnosticsSummary() const override {
    pollDiagnostics(); // after the drain: the last frame's sample may be new
    const std::string line = diagnostics_.summary();
    if (line.empty()) return {};
    return line + " (every " + std::to_string(engine_->backend().config().diagnosticsEvery) + " frames)";
  }
  SceneState saveState() override { return saveFluidState(engine_->backend(), controller_); }
  void loadState(const SceneState& state) override { loadFluidState(state, engine_->backend(), controller_); }
  nlohmann::json controls() const override { return fluidControls(controller_); }
  void setControls(const nlohmann::json& controls) override {
    applyFluidControls(controls, engine_->backend().config(), controller_);
  }

  FluidController& controller() { return controller_; }
  fluid::FluidBackend& backend() { return engine_->backend(); }

private:
  void drawPhysics(PanelLayout& layout);
  void drawToggles(PanelLayout& layout);
  void drawCount(PanelLayout& layout);
  void drawDiagnostics();
  // Takes the backend's latest diagnostics sample (never waits); a new one goes into the plots, a new series empties
  // them. Const: what it updates is a cache of what the backend reported (the summary reads it after the drain).
  void pollDiagnostics() const {
    if (!diagnostics_.update(engine_->backend().diagnostics())) return;
    if (diagnostics_.samples() == 1) {
      for (PlotRing* ring : {&massChange_, &densityError_, &compression_, &speed_}) ring->clear();
    }
    const fluid::FluidDiagnosticSums& s = diagnostics_.last()->sums;
    massChange_.push(static_cast<float>(diagnostics_.massChange()));
    densityError_.push(static_cast<float>(100.0 * s.maxDensityError));
    compression_.push(static_cast<float>(100.0 * s.maxCompression));
    speed_.push(static_cast<float>(s.maxSpeed));
  }

  std::unique_ptr<FluidEngine> engine_;
  FluidController controller_;
  FaultPlan inject_;
  bool advance_ = true;
  int particlesEdit_ = 0; // the count slider while dragged (applied on release); 0: show the controller's
  // Diagnostics (docs/DIAGNOSTICS.md): the series' first and latest sample and its peaks, and the last
  // PlotRing::kSamples values of each quantity for the panel's plots. Filled by pollDiagnostics.
  mutable fluid::FluidDiagnosticsTrack diagnostics_;
  mutable PlotRing massChange_, densityError_, compression_, speed_;
};

// One slider per kFluidParams row that has one (its label, its "param:<id>" for the scripted UI tests), then the
// rule between fields (the obstacle inside the box); applied at the next frame when anything changed.
void FluidProducer::drawPhysics(PanelLayout& layout) {
  fluid::FluidParams p = controller_.params();
  const fluid::FluidConfig& config = engine_->backend().config();
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
  int particles = particlesEdit_ > 0 ? particlesEdit_ : static_cast<int>(controller_.particles());
  if (ImGui::SliderInt("particles", &particles, 64, static_cast<int>(controller_.maxParticles()), "%d",
                       ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
    particlesEdit_ = particles;
  recordWidget(layout, "param:particles");
  if (ImGui::IsItemDeactivatedAfterEdit()) {
    controller_.setParticles(particles);
    particlesEdit_ = 0;
  }
  const fluid::FluidConfig& config = engine_->backend().config();
  ImGui::Text("particle radius %.2f mm (derived from the count)",
              1e3 * 0.5 * static_cast<double>(config.params.spacing));
}

void FluidProducer::drawParameters(const FrameStats& stats, PanelLayout& layout) {
  drawPhysics(layout);
  drawCount(layout);
  drawToggles(layout);
  if (const std::optional<fluid::FluidFrameInfo> f = engine_->backend().lastFrame()) {
    ImGui::Text("last frame %llu: %d substeps, dt %.3f ms, covered %.2f ms", static_cast<unsigned long long>(f->frame),
                f->substeps, 1e3 * static_cast<double>(f->lastDt), 1e3 * static_cast<double>(f->covered));
  } else {
    ImGui::TextDisabled("last frame: not known yet");
  }
  drawUpdateCounters(stats, controller_.lastStructuralChange());
}

void FluidProducer::drawStats(const FrameStats& stats) {
  const std::optional<fluid::FluidFrameInfo> f = engine_->backend().lastFrame();
  if (stats.simMs > 0 && !controller_.paused() && f) {
    ImGui::Text("%lld particles, %.3g particle-steps/s", static_cast<long long>(count()),
                static_cast<double>(count()) * f->substeps / (stats.simMs * 1e-3));
  } else {
    ImGui::Text("%lld particles%s", static_cast<long long>(count()), controller_.paused() ? " (paused)" : "");
  }
  drawDiagnostics();
}

// Mass, max density error, max compression and max speed: the latest values over the last PlotRing::kSamples
// samples, and each one's peak over the series. A tree node, closed at first; its label carries the compression and
// the speed.
void FluidProducer::drawDiagnostics() {
  const fluid::FluidBackend& backend = engine_->backend();
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
  std::snprintf(overlay, sizeof overlay, "%.3f %%  peak %.3f %%", 100.0 * s.maxDensityError,
                100.0 * peak.maxDensityError);
  plot("density error", densityError_, overlay,
       "max |rho/rho0 - 1| [%]: at the free surface rho is low (missing neighbours), so this stays high");
  std::snprintf(overlay, sizeof overlay, "%.3f %%  peak %.3f %%", 100.0 * s.maxCompression,
                100.0 * peak.maxCompression);
  plot("compression", compression_, overlay, "max (rho/rho0 - 1) [%]: what the stiffness keeps small (~1 %)");
  std::snprintf(overlay, sizeof overlay, "%.3f m/s  peak %.3f m/s", s.maxSpeed, peak.maxSpeed);
  plot("max speed", speed_, overlay, "max |v| [m/s]");
  ImGui::TreePop();
}

} // namespace

std::unique_ptr<FluidEngine> makeFluidCpuEngine(const fluid::FluidConfig& config, render::ParticleRenderer* renderer) {
  return std::make_unique<FluidCpuEngine>(config, renderer);
}

std::unique_ptr<FluidEngine> makeFluidCudaEngine(const fluid::FluidConfig& config, render::ParticleRenderer* renderer,
                                                 int device, fluid::FluidCudaOptions options, const FaultPlan& inject) {
  return std::make_unique<FluidCudaEngine>(config, renderer, device, options, inject);
}

std::unique_ptr<SceneProducer> makeFluidProducer(std::unique_ptr<FluidEngine> engine, const SceneSettings&,
                                                 std::int64_t capacity, const FaultPlan& inject) {
  return std::make_unique<FluidProducer>(std::move(engine), capacity, inject);
}

void styleFluidFrame(const fluid::FluidConfig& config, render::FrameSubmit& submit) {
  const float* box = config.params.boxSize;
  submit.style.pointRadius = fluid::particleRadius(config.params);
  submit.style.palette = render::Palette::Fluid;
  submit.style.colourScale = 1.0f; // the colour stage already scaled the attribute into [0, 1]
  submit.box = render::Box{glm::vec3(0.0f), glm::vec3(box[0], box[1], box[2])};
}

std::string fluidFrameDetail(const fluid::FluidBackend& backend) {
  const std::optional<fluid::FluidFrameInfo> f = backend.lastFrame();
  if (!f) return {};
  char text[96];
  std::snprintf(text, sizeof text, "last frame %d substep%s, dt %.3f ms", f->substeps, f->substeps == 1 ? "" : "s",
                1e3 * static_cast<double>(f->lastDt));
  return text;
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
