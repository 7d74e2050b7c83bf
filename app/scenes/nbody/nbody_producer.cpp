#include "app/scenes/nbody/nbody_producer.h"

#include <imgui.h>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "app/run/nbody_engine.h"
#include "app/scenes/nbody/nbody_controller.h"
#include "app/scenes/nbody/nbody_controls.h"
#include "app/scenes/nbody/nbody_scene.h"
#include "app/scenes/nbody/nbody_snapshot.h"
#include "app/scenes/param_panel.h"
#include "app/ui/frame_stats.h"
#include "app/ui/plot_ring.h"
#include "compute/nbody/nbody_params.h"
#include "render/render_types.h"

namespace graphsim::app {
namespace {

class NBodyProducer final : public SceneProducer {
public:
  NBodyProducer(std::unique_ptr<SceneEngine> engine, NBodyBackend& backend, const SceneSettings& settings,
                std::int64_t capacity, const ProducerRequest& request)
      : SceneProducer(nbodyScene(), std::move(engine), request.renderer, request.inject), backend_(backend),
        controller_(settings.sim, capacity), pointRadius_(settings.render.pointRadius) {}

  void styleFrame(render::FrameSubmit& submit) const override { submit.style.pointRadius = pointRadius_; }
  double applyEdits(const FrameEdits& edits) override {
    injectIntoController(inject(), edits.frame, controller_); // test hook: non-finite
    const double simTime = controller_.applyTo(backend_, edits);
    pollDiagnostics();
    return simTime;
  }
  bool* nodeSwitch(const NodeInfo& node, std::string* tooltip) override {
    if (node.diagnostics) {
      if (tooltip != nullptr)
        *tooltip = "energy, momentum and angular momentum every " + std::to_string(backend_.config().diagnosticsEvery) +
                   " frames (Stats: Diagnostics); changes no state.\nOn the GPU the node runs only on those frames "
                   "(enabled for them, disabled after); this box turns the sampling on or off";
      return &controller_.diagnosticsSwitch();
    }
    if (!stageOf(node)) {
      if (tooltip != nullptr) *tooltip = "cannot be disabled: " + node.whyNotTogglable;
      return nullptr;
    }
    if (tooltip != nullptr && stageInfo(*stageOf(node)).perSubstep && controller_.substeps() > 1)
      *tooltip = "toggles every substep instance of " + std::string(stageName(*stageOf(node)));
    return &controller_.stageSwitch(*stageOf(node));
  }

  void drawParameters(const FrameStats& stats, PanelLayout& layout) override;
  void drawStats(const FrameStats& stats) override;
  void pointAt(const glm::vec3& p, bool pressed) override {
    if (pressed) controller_.setStageEnabled(NBodyStage::Attractor, true);
    NBodyParams params = controller_.params();
    params.attractorPos[0] = p.x;
    params.attractorPos[1] = p.y;
    params.attractorPos[2] = p.z;
    controller_.setParams(params);
  }
  std::string diagnosticsSummary() const override {
    pollDiagnostics(); // after the drain: the last frame's sample may be new
    return everyFrames(diagnostics_.summary(), backend_.config().diagnosticsEvery);
  }
  SceneState saveState() override { return saveNBodyState(backend_, controller_); }
  void loadState(const SceneState& state) override {
    loadNBodyState(state, backend_, controller_);
    setSimTime(controller_.simTime());
  }
  nlohmann::json liveControls() const override { return nbodyControls(controller_, pointRadius_); }
  std::function<void()> checkControls(const JsonReader& controls) override {
    return checkNBodyControls(controls, controller_, pointRadius_);
  }

  NBodyController& controller() { return controller_; }
  NBodyBackend& backend() { return backend_; }

private:
  void drawStructural(PanelLayout& layout);
  void drawDiagnostics();
  // Takes the backend's latest diagnostics sample (never waits); a new one goes into the plots' ring, a new series
  // empties it. Const: what it updates is a cache of what the backend reported (the summary reads it after the drain).
  void pollDiagnostics() const {
    if (!diagnostics_.update(backend_.diagnostics())) return;
    if (diagnostics_.samples() == 1) {
      energyDrift_.clear();
      momentumDrift_.clear();
      angularDrift_.clear();
    }
    const DiagnosticsDrift d = diagnostics_.drift();
    energyDrift_.push(static_cast<float>(d.energy));
    momentumDrift_.push(static_cast<float>(d.momentum));
    angularDrift_.push(static_cast<float>(d.angularMomentum));
  }

  NBodyBackend& backend_; // the engine's
  NBodyController controller_;
  float pointRadius_;
  int bodiesEdit_ = 0; // structural sliders while dragged (applied on release); 0: show the controller's value
  int substepsEdit_ = 0;
  // Diagnostics (docs/DIAGNOSTICS.md): the series' first and latest sample, and the relative drift of the last
  // PlotRing::kSamples samples for the panel's plots (nothing allocates per frame). Filled by pollDiagnostics.
  mutable DiagnosticsTrack diagnostics_;
  mutable PlotRing energyDrift_, momentumDrift_, angularDrift_;
};

void NBodyProducer::drawParameters(const FrameStats& stats, PanelLayout& layout) {
  NBodyParams p = controller_.params();
  // One slider per kNBodyParams row that has one; AlwaysClamp keeps a typed value in range (softening 0 would blow up).
  // The tree's rows only where the forces stage walks a tree.
  const bool tree = usesTree(backend_.config());
  ImGui::TextUnformatted(tree ? "forces: tree (octree, quadrupoles)" : "forces: direct (every pair)");
  for (const ParamRow<NBodyParams>& row : kNBodyParams) {
    if (!row.hasSlider() || (row.only == "tree" && !tree)) continue;
    drawParamSlider(row, p);
    recordWidget(layout, "param:" + std::string(row.slider.id));
  }
  if (!(p == controller_.params())) controller_.setParams(p);
  const ImGuiSliderFlags log = ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp;
  ImGui::SliderFloat("point size", &pointRadius_, 1e-3f, 0.2f, "%.4f", log);
  recordWidget(layout, "param:point_size");
  drawStructural(layout);
  drawUpdateCounters(stats, controller_.lastStructuralChange());
}

// Structural: applied when the slider is released, not on every drag step (each is a graph update).
void NBodyProducer::drawStructural(PanelLayout& layout) {
  if (const auto n = drawReleasedSlider("substeps", substepsEdit_, controller_.substeps(), 1, 16))
    controller_.setSubsteps(*n);
  recordWidget(layout, "param:substeps");
  if (const auto n = drawReleasedSlider("bodies", bodiesEdit_, static_cast<int>(controller_.bodies()), 1,
                                        static_cast<int>(controller_.maxBodies()),
                                        ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
    controller_.setBodies(*n);
  recordWidget(layout, "param:bodies");
  const std::string capacity = nbodyCapacityLine(controller_.bodies(), controller_.maxBodies(), hasGraph());
  ImGui::TextUnformatted(capacity.c_str());
  recordWidget(layout, "stat:capacity");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "The render buffers and the simulation's arrays hold this many bodies (--max-bodies, the scene\n"
        "file's max_bodies). A body-count change within it updates kernel nodes only: no whole-graph\n"
        "update, no re-instantiation. More needs a restart with a larger --max-bodies.");
}

void NBodyProducer::drawStats(const FrameStats& stats) {
  const double n = static_cast<double>(controller_.bodies());
  if (stats.simMs > 0 && !paused()) {
    ImGui::Text("%lld bodies, %.3g interactions/s", static_cast<long long>(controller_.bodies()),
                n * n * controller_.substeps() / (stats.simMs * 1e-3));
  } else {
    ImGui::Text("%lld bodies%s", static_cast<long long>(controller_.bodies()), paused() ? " (paused)" : "");
  }
  drawDiagnostics();
}

// Energy, |P| and |L|: the latest values and the drift of each against the series' first sample (E/E0 - 1; |P - P0|
// and |L - L0| against sum m|v| and sum m|x x v|, since P0 ~ 0), over the last PlotRing::kSamples samples. A tree node,
// closed at first (the Actions section stays where it was): its label carries the energy drift.
void NBodyProducer::drawDiagnostics() {
  const int every = backend_.config().diagnosticsEvery;
  if (every == 0) {
    ImGui::TextDisabled("diagnostics off (--diagnostics-every 0)");
    return;
  }
  const std::optional<DiagnosticsSample>& last = diagnostics_.last();
  if (!last) {
    ImGui::TextDisabled(backend_.diagnosticsEnabled() ? "diagnostics: no sample yet (paused, or forces off)"
                                                      : "diagnostics: off (the Graph section's diagnostics node)");
    return;
  }
  const DiagnosticsDrift d = diagnostics_.drift();
  char label[128];
  std::snprintf(label, sizeof label, "Diagnostics: E drift %+.2e, frame %llu%s###diagnostics", d.energy,
                static_cast<unsigned long long>(last->frame), backend_.diagnosticsEnabled() ? "" : " (off)");
  if (!ImGui::TreeNode(label)) return;
  ImGui::Text("%llu samples every %d frames since frame %llu", static_cast<unsigned long long>(diagnostics_.samples()),
              every, static_cast<unsigned long long>(diagnostics_.first()->frame));
  const auto plot = [&](const char* name, const PlotRing& values, const char* format, double value, double drift) {
    char overlay[96];
    std::snprintf(overlay, sizeof overlay, format, value, drift);
    if (drawPlotRing(name, values, overlay))
      ImGui::SetTooltip(
          "drift against the series' first sample: E/E0 - 1; |P - P0| / sum m|v|; |L - L0| / sum "
          "m|x x v|\n(P0 is ~0: the presets are centred). K %.6g, U %.6g",
          last->sums.kinetic, last->sums.potential);
  };
  plot("E drift", energyDrift_, "E %.6g  drift %+.2e", last->sums.total(), d.energy);
  plot("|P| drift", momentumDrift_, "|P| %.3e  drift %.2e", magnitude(last->sums.momentum), d.momentum);
  plot("|L| drift", angularDrift_, "|L| %.6g  drift %.2e", magnitude(last->sums.angularMomentum), d.angularMomentum);
  ImGui::TreePop();
}

} // namespace

std::string nbodyCapacityLine(std::int64_t bodies, std::int64_t capacity, bool graph) {
  return "bodies " + std::to_string(bodies) + " / capacity " + std::to_string(capacity) +
         (graph ? " (changes within: node updates)" : "");
}

std::unique_ptr<SceneProducer> makeNBodyProducer(const SceneSettings& settings, const ProducerRequest& request,
                                                 std::int64_t capacity) {
  NBodyConfig sim = settings.sim;
  sim.maxBodies = capacity; // one number for the render buffers and the CUDA arrays
  if (request.cuda) {
    const std::vector<int> gpus = request.gpus.empty() ? std::vector<int>{request.cudaDevice} : request.gpus;
    return makeOver<NBodyProducer>(
        makeNBodyCudaEngine(sim, request.renderer, gpus, request.waitTimeout, request.inject, request.rank), settings,
        capacity, request);
  }
  refuseCudaOnlyFault(request.inject, "cpu");
  return makeOver<NBodyProducer>(std::make_unique<NBodyCpuEngine>(sim), settings, capacity, request);
}

FollowedRun followNBodyRank0(const SceneSettings& settings, std::int64_t capacity, int device, const ProcessRank& rank,
                             std::chrono::milliseconds waitTimeout) {
  NBodyConfig sim = settings.sim;
  sim.maxBodies = capacity; // as makeNBodyProducer on rank 0: the configurations must be the same
  NBodyCudaBackend backend(sim, device, rank, nullptr, waitTimeout);
  const NBodyCudaBackend::FollowSummary s = backend.follow();
  char line[160];
  std::snprintf(line, sizeof line, "followed rank 0 for %llu frames (%llu resets, %llu gathers, %llu messages)",
                static_cast<unsigned long long>(s.frames), static_cast<unsigned long long>(s.resets),
                static_cast<unsigned long long>(s.gathers), static_cast<unsigned long long>(s.messages));
  return FollowedRun{line, s.rank0Failed};
}

// Every producer of the n-body scene is an NBodyProducer (makeNBodyProducer is the only one that names the scene).
NBodyController* nbodyController(SceneProducer& producer) {
  if (&producer.scene() != &nbodyScene()) return nullptr;
  return &static_cast<NBodyProducer&>(producer).controller();
}

NBodyBackend* nbodyBackend(SceneProducer& producer) {
  if (&producer.scene() != &nbodyScene()) return nullptr;
  return &static_cast<NBodyProducer&>(producer).backend();
}

} // namespace graphsim::app
