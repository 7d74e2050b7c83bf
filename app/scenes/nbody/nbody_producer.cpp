#include "app/scenes/nbody/nbody_producer.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "app/run/frame_stats.h"
#include "app/run/sim_controller.h"
#include "app/scenes/nbody/nbody_scene.h"
#include "render/render_types.h"

namespace graphsim::app {
namespace {

class NBodyProducer final : public SceneProducer {
public:
  NBodyProducer(std::unique_ptr<SimProducer> sim, const SceneSettings& settings, std::int64_t capacity,
                const FaultPlan& inject)
      : sim_(std::move(sim)), controller_(settings.sim, capacity), pointRadius_(settings.render.pointRadius),
        inject_(inject) {}

  // FrameProducer
  std::optional<std::uint64_t> produce(std::uint64_t k) override { return sim_->produce(k); }
  bool gpuOrdered() const override { return sim_->gpuOrdered(); }
  void waitProduced(std::uint64_t k) override { sim_->waitProduced(k); }
  void finish() override { sim_->finish(); }

  std::string_view backendName() const override { return sim_->backend().name(); }
  std::int64_t count() const override { return sim_->backend().config().bodies; }
  void beginFrame(std::uint64_t k) override {
    injectIntoController(inject_, k, controller_); // test hook: non-finite
    sim_->setAdvance(controller_.applyTo(sim_->backend()));
  }
  void styleFrame(render::FrameSubmit& submit) const override { submit.style.pointRadius = pointRadius_; }

  void togglePause() override { controller_.togglePause(); }
  void requestStep() override { controller_.requestStep(); }
  void requestReset() override { controller_.requestReset(); }
  bool paused() const override { return controller_.paused(); }
  bool advances() const override { return sim_->advances(); }
  double simTime() const override { return controller_.simTime(); }

  double simMs() const override { return sim_->simMs(); }
  double updateHostUs() const override { return sim_->updateHostUs(); }
  UpdateCounters counters() const override { return sim_->backend().counters(); }
  const std::vector<NodeInfo>& nodes() const override { return sim_->backend().nodes(); }
  bool nodeTogglable(const NodeInfo& node) const override { return node.togglable && node.stage.has_value(); }
  void setNodeEnabled(const NodeInfo& node, bool enabled) override {
    if (nodeTogglable(node)) controller_.setStageEnabled(*node.stage, enabled);
  }
  std::string nodeTooltip(const NodeInfo& node) const override {
    if (!nodeTogglable(node)) return "cannot be disabled: " + node.whyNotTogglable;
    if (stageInfo(*node.stage).perSubstep && controller_.substeps() > 1)
      return "toggles every substep instance of " + std::string(stageName(*node.stage));
    return {};
  }
  bool setProfiling(bool on) override { return sim_->backend().setProfiling(on); }
  bool hasGraph() const override { return sim_->hasGraph(); }
  void dumpGraph(const std::filesystem::path& path) const override { sim_->dumpGraph(path); }
  std::optional<SceneNotice> blowUp() const override {
    const std::optional<BlowUp> b = sim_->backend().blowUp();
    if (!b) return std::nullopt;
    return SceneNotice{"the simulation blew up in frame " + std::to_string(b->frame + 1) + ", stage " +
                           stageInstanceName(b->stage, b->substep) + ": " + b->what +
                           " (softening too small for dt, or dt too large for the closest encounters)",
                       "Paused. R resets the scene; lower dt or raise the softening."};
  }

  void drawParameters(const FrameStats& stats, PanelLayout& layout) override;
  void drawStats(const FrameStats& stats) override;
  void pointAt(const glm::vec3& p, bool pressed) override {
    if (pressed) controller_.setStageEnabled(Stage::Attractor, true);
    NBodyParams params = controller_.params();
    params.attractorPos[0] = p.x;
    params.attractorPos[1] = p.y;
    params.attractorPos[2] = p.z;
    controller_.setParams(params);
  }
  std::string describeState() const override { return std::to_string(count()) + " bodies"; }
  std::string frameDetail() const override { return {}; }

  SimController& controller() { return controller_; }
  SimBackend& backend() { return sim_->backend(); }

private:
  void drawStructural(PanelLayout& layout);

  std::unique_ptr<SimProducer> sim_;
  SimController controller_;
  float pointRadius_;
  FaultPlan inject_;
  int bodiesEdit_ = 0; // structural sliders while dragged (applied on release); 0: show the controller's value
  int substepsEdit_ = 0;
};

void NBodyProducer::drawParameters(const FrameStats& stats, PanelLayout& layout) {
  NBodyParams p = controller_.params();
  // AlwaysClamp: a value typed with Ctrl+click stays in the slider's range too (softening 0 would blow up).
  const ImGuiSliderFlags log = ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp;
  const ImGuiSliderFlags clamp = ImGuiSliderFlags_AlwaysClamp;
  ImGui::SliderFloat("dt", &p.dt, 1e-5f, 1e-2f, "%.5f", log);
  recordWidget(layout, "param:dt");
  ImGui::SliderFloat("G", &p.G, 0.01f, 10.0f, "%.3f", log);
  recordWidget(layout, "param:G");
  ImGui::SliderFloat("softening", &p.softening, 1e-3f, 1.0f, "%.4f", log);
  recordWidget(layout, "param:softening");
  ImGui::SliderFloat("damping", &p.damping, 0.0f, 5.0f, "%.3f", clamp);
  recordWidget(layout, "param:damping");
  ImGui::SliderFloat("attractor", &p.attractorStrength, 0.0f, 50.0f, "%.2f", clamp);
  recordWidget(layout, "param:attractor");
  ImGui::SliderFloat3("attractor pos", p.attractorPos, -10.0f, 10.0f, "%.2f", clamp);
  recordWidget(layout, "param:attractor_pos");
  ImGui::SliderFloat("colour scale", &p.colourScale, 0.05f, 10.0f, "%.2f", log);
  recordWidget(layout, "param:colour_scale");
  if (!(p == controller_.params())) controller_.setParams(p);
  ImGui::SliderFloat("point size", &pointRadius_, 1e-3f, 0.2f, "%.4f", log);
  recordWidget(layout, "param:point_size");
  drawStructural(layout);
  drawUpdateCounters(stats, controller_.lastStructuralChange());
}

// Structural: applied when the slider is released, not on every drag step (each is a graph update).
void NBodyProducer::drawStructural(PanelLayout& layout) {
  int substeps = substepsEdit_ > 0 ? substepsEdit_ : controller_.substeps();
  if (ImGui::SliderInt("substeps", &substeps, 1, 16)) substepsEdit_ = substeps;
  recordWidget(layout, "param:substeps");
  if (ImGui::IsItemDeactivatedAfterEdit()) {
    controller_.setSubsteps(substeps);
    substepsEdit_ = 0;
  }
  int bodies = bodiesEdit_ > 0 ? bodiesEdit_ : static_cast<int>(controller_.bodies());
  if (ImGui::SliderInt("bodies", &bodies, 1, static_cast<int>(controller_.maxBodies()), "%d",
                       ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
    bodiesEdit_ = bodies;
  recordWidget(layout, "param:bodies");
  if (ImGui::IsItemDeactivatedAfterEdit()) {
    controller_.setBodies(bodies);
    bodiesEdit_ = 0;
  }
  const std::string capacity = nbodyCapacityLine(controller_.bodies(), controller_.maxBodies(), sim_->hasGraph());
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
  if (stats.simMs > 0 && !controller_.paused()) {
    ImGui::Text("%lld bodies, %.3g interactions/s", static_cast<long long>(controller_.bodies()),
                n * n * controller_.substeps() / (stats.simMs * 1e-3));
  } else {
    ImGui::Text("%lld bodies%s", static_cast<long long>(controller_.bodies()), controller_.paused() ? " (paused)" : "");
  }
}

} // namespace

std::string nbodyCapacityLine(std::int64_t bodies, std::int64_t capacity, bool graph) {
  return "bodies " + std::to_string(bodies) + " / capacity " + std::to_string(capacity) +
         (graph ? " (changes within: node updates)" : "");
}

std::unique_ptr<SceneProducer> makeNBodyProducer(std::unique_ptr<SimProducer> sim, const SceneSettings& settings,
                                                 std::int64_t capacity, const FaultPlan& inject) {
  return std::make_unique<NBodyProducer>(std::move(sim), settings, capacity, inject);
}

SimController* nbodyController(SceneProducer& producer) {
  auto* p = dynamic_cast<NBodyProducer*>(&producer);
  return p != nullptr ? &p->controller() : nullptr;
}

SimBackend* nbodyBackend(SceneProducer& producer) {
  auto* p = dynamic_cast<NBodyProducer*>(&producer);
  return p != nullptr ? &p->backend() : nullptr;
}

} // namespace graphsim::app
