// SceneProducer's part shared by every scene (app/scenes/scene.h): the feed, pause, step and reset, the simulated
// time, the node switches and the controls' common keys.
#include <nlohmann/json.hpp>

#include "app/base/json_reader.h"
#include "app/scenes/scene.h"

namespace graphsim::app {

SceneProducer::SceneProducer(const Scene& scene, std::unique_ptr<SceneEngine> engine,
                             render::ParticleRenderer* renderer, const FaultPlan& inject)
    : scene_(scene), engine_(std::move(engine)), feed_(*engine_, renderer, inject), inject_(inject) {}

SceneProducer::~SceneProducer() = default;

void SceneProducer::beginFrame(std::uint64_t k) {
  const FrameEdits edits{.frame = k, .reset = resetRequested_, .advance = !paused_ || stepRequested_};
  simTime_ = applyEdits(edits); // a throw leaves the requests pending, as the panel left them
  resetRequested_ = false;
  stepRequested_ = false;
  advance_ = edits.advance;
}

void SceneProducer::setNodeEnabled(const NodeInfo& node, bool enabled) {
  if (!node.togglable) return;
  if (bool* wanted = nodeSwitch(node, nullptr)) *wanted = enabled;
}

std::string SceneProducer::nodeTooltip(const NodeInfo& node) {
  if (!node.togglable) return "cannot be disabled: " + node.whyNotTogglable;
  std::string tooltip;
  nodeSwitch(node, &tooltip);
  return tooltip;
}

std::string SceneProducer::describeState() const {
  return std::to_string(count()) + " " + std::string(scene_.countNoun());
}

nlohmann::json SceneProducer::controls() const {
  nlohmann::json controls = liveControls();
  controls["paused"] = paused_;
  controls["step"] = stepRequested_;
  controls["reset"] = resetRequested_;
  return controls;
}

void SceneProducer::setControls(const nlohmann::json& controls) {
  const JsonReader r(controls, "the recorded controls", "");
  const std::function<void()> apply = checkControls(r);
  bool paused = paused_, step = false, reset = false;
  r.boolean("paused", paused);
  r.boolean("step", step);
  r.boolean("reset", reset);
  apply();
  paused_ = paused;
  stepRequested_ = stepRequested_ || step;
  resetRequested_ = resetRequested_ || reset;
}

void SceneProducer::checkRecordedControls(const nlohmann::json& controls, const std::string& source) {
  const JsonReader r(controls, source, "");
  checkControls(r); // what it would apply is dropped
  bool flag = false;
  for (const char* key : {"paused", "step", "reset"}) r.boolean(key, flag);
}

} // namespace graphsim::app
