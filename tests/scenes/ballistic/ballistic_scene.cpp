// The ballistic scene's app side: its Scene (the registry entry), SceneProducer, soak and bench, all run by the
// generic code (session, panel, recording and replay, snapshots, soak loop, bench loop). It registers itself from a
// static initialiser: only binaries that link this folder (graphsim_test_scenes, the ballistic tests) have it.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "app/base/errors.h"
#include "app/base/json_reader.h"
#include "app/bench/bench_support.h"
#include "app/cli/registry.h"
#include "app/reliability/param_soak.h"
#include "app/reliability/soak.h"
#include "app/reliability/soak_checks.h"
#include "app/scenes/param_json.h"
#include "app/scenes/param_panel.h"
#include "app/scenes/scene_config.h"
#include "tests/scenes/ballistic/ballistic.h"

namespace graphsim::app {
namespace {

using namespace ballistic;
using nlohmann::json;

Config& configOf(SceneSettings& s) { return std::any_cast<Config&>(s.config); }
constexpr std::string_view kKeys[] = {"particles", "restitution", "bounce"};
struct Rules { // BackendEngine's: the count, and the notice of a blow-up (none: the state stays finite)
  static std::int64_t count(const Config& c) { return c.particles; }
  static std::optional<SceneNotice> notice(int) { return std::nullopt; }
};
template <class Backend>
using Engine = BackendEngine<Backend, Rules>;

void readLive(Config& c, const JsonReader& r) { // scene files and recorded controls
  readParams(r, c.params, kParams);
  r.boolean("bounce", c.bounce);
}
json liveJson(const Config& c) {
  json j = liveParamsJson(c.params, kParams);
  j["bounce"] = c.bounce;
  return j;
}
void styleBox(render::FrameSubmit& submit) {
  submit.style.pointRadius = 0.008f;
  submit.box = render::Box{glm::vec3(0.0f), glm::vec3(1.0f)};
}
const Scene& ballisticScene();

// wanted_: the panel's, keys', recording's and soak's controls; applyEdits hands them to the backend each frame.
template <class Backend>
class BallisticProducer final : public SceneProducer {
public:
  BallisticProducer(std::unique_ptr<SceneEngine> e, Backend& backend, const Config& c, const ProducerRequest& q)
      : SceneProducer(ballisticScene(), std::move(e), q.renderer, q.inject), backend_(backend), wanted_(c) {}

  double applyEdits(const FrameEdits& e) override {
    if (e.reset) backend_.setState(initialState(wanted_.particles)), time_ = 0;
    backend_.apply(wanted_.params, wanted_.bounce, e.advance);
    return time_ += e.advance ? kFrameDt : 0.0f;
  }
  bool* nodeSwitch(const NodeInfo& node, std::string* tooltip) override {
    if (tooltip != nullptr)
      *tooltip =
          "off: particles leave the box. CUDA: node enable/disable of the bounce kernel (cudaGraphNodeSetEnabled)";
    return node.step == kBounce ? &wanted_.bounce : nullptr;
  }
  json liveControls() const override { return liveJson(wanted_); }
  std::function<void()> checkControls(const JsonReader& r) override {
    r.allowOnly({"restitution", "bounce", "paused", "step", "reset"});
    Config c = wanted_;
    readLive(c, r);
    return [this, c] { wanted_ = c; };
  }
  void styleFrame(render::FrameSubmit& submit) const override { styleBox(submit); }
  void drawParameters(const FrameStats& stats, PanelLayout& layout) override {
    for (const ParamRow<Params>& row : kParams) {
      drawParamSlider(row, wanted_.params);
      recordWidget(layout, "param:" + std::string(row.slider.id));
    }
    ImGui::Checkbox("bounce##toggle", &wanted_.bounce);
    recordWidget(layout, "toggle:bounce");
    drawUpdateCounters(stats, "");
  }
  void drawStats(const FrameStats&) override { ImGui::Text("%s", describeState().c_str()); }
  void pointAt(const glm::vec3&, bool) override {}
  SceneState saveState() override {
    const State s = backend_.state();
    json settings = liveJson(wanted_);
    settings.update({{"scene", "ballistic"}, {"particles", wanted_.particles}});
    std::vector<StateArray> arrays{floatArray("pos", s.pos), floatArray("vel", s.vel)};
    return {"ballistic", count(), 0, simTime(), std::string(backendName()), settings.dump(), std::move(arrays)};
  }
  void loadState(const SceneState& state) override {
    requireSceneAndCount(state, "ballistic", count(), "particles");
    constexpr std::string_view arrays[] = {"pos", "vel"};
    requireOnlyArrays(state, arrays);
    const State s{toFloat4s(requireArray(state, "pos", 4)), toFloat4s(requireArray(state, "vel", 4))};
    Config c = wanted_;
    readLive(c, JsonReader(json::parse(state.settings), sourceOf(state), ""));
    backend_.setState(s); // every check above came first
    wanted_ = c, time_ = state.simTime;
    setSimTime(time_);
  }

private:
  Backend& backend_; // the engine's
  Config wanted_;
  double time_ = 0; // simulated seconds of the state shown
};

// Every 5th frame a seeded move, a row with a soak range or the bounce switch; ReplaySoak replays and compares it.
class BallisticSoak final : public ReplaySoak {
public:
  BallisticSoak(const SceneSettings& s, const SoakOptions& o)
      : ReplaySoak(ballisticScene(), s, o, 1e-4), wanted_(std::any_cast<const Config&>(s.config)) {}
  void change(std::uint64_t k, SceneProducer& run) override {
    if (k % 5 != 4) return;
    if (random_.between(0, 1) == 0) moveRandomParam(random_, kParams, wanted_.params), ++moves_;
    else wanted_.bounce = !wanted_.bounce, ++toggles_;
    setControls(run, liveJson(wanted_));
  }
  void printChanges() const override {
    std::printf("changes: %llu restitution moves, %llu bounce toggles\n", static_cast<unsigned long long>(moves_),
                static_cast<unsigned long long>(toggles_));
  }

private:
  Config wanted_;
  std::uint64_t moves_ = 0, toggles_ = 0;
};

// Bench: the product alone (runProductBench), CUDA on the host-copy path.
void runBallisticBench(const BenchOptions& o, BenchReport& report) {
  report.initial = "jittered lattice";
  const Config& c = std::any_cast<const Config&>(o.scene.config);
  const auto make = [&](render::ParticleRenderer* r, int device) -> std::unique_ptr<BenchProducer> {
    std::unique_ptr<SceneEngine> e;
    if (o.backend == BackendKind::Cuda)
      e = std::make_unique<Engine<CudaBackend>>(c, device, std::nullopt, o.waitTimeout);
    else e = std::make_unique<Engine<CpuBackend>>(c);
    return std::make_unique<EngineBenchProducer>(std::move(e), r, "ballistic", styleBox);
  };
  runProductBench(o, report, ballisticScene(), make, "the ballistic scene's producer: fall, bounce, write_render");
}

class BallisticScene final : public Scene {
public:
  BallisticScene()
      : Scene({.name = "ballistic",
               .description = "test scene: particles falling and bouncing in a box (two stages, one parameter, "
                              "one toggle)",
               .countNoun = "particles",
               .maxCount = kMaxParticles,
               .jsonKeys = kKeys,
               .soakDefaultCount = 1024}) {}
  void applyJson(SceneSettings& s, const JsonReader& r) const override {
    r.integer("particles", configOf(s).particles, 1, kMaxParticles);
    readLive(configOf(s), r);
  }
  SceneSettings defaults() const override { return {.scene = "ballistic", .config = Config{}}; }
  Fields fields(SceneSettings& s) const override { return {.count = &configOf(s).particles}; }
  void checkCount(const SceneSettings& s, std::uint32_t f, const std::string& flag, std::size_t) const override {
    if (count(s) < 1 || count(s) > kMaxParticles)
      throw UsageError(flag + ": must be 1.." + std::to_string(kMaxParticles) + ", got " + std::to_string(count(s)));
    checkHostMemory(count(s), 64.0 + 16.0 * f, flag, "particles");
  }
  void checkSettings(const SceneSettings&) const override {}
  render::Camera initialCamera(const SceneSettings& s) const override {
    if (s.render.cameraGiven) return s.render.camera;
    const float aspect = static_cast<float>(s.render.width) / static_cast<float>(s.render.height);
    return render::frameBox(render::Box{glm::vec3(0.0f), glm::vec3(1.0f)}, aspect);
  }
  std::int64_t renderCapacity(const SceneSettings& s) const override { return count(s); }
  std::unique_ptr<SceneProducer> makeProducer(const SceneSettings& s, const ProducerRequest& q) const override {
    const Config& c = std::any_cast<const Config&>(s.config);
    if (!q.cuda) return makeOver<BallisticProducer<CpuBackend>>(std::make_unique<Engine<CpuBackend>>(c), c, q);
    const auto interop = interopFor(feedPath(true, q.renderer), q.renderer, q.inject);
    return makeOver<BallisticProducer<CudaBackend>>(
        std::make_unique<Engine<CudaBackend>>(c, q.cudaDevice, interop, q.waitTimeout), c, q);
  }
  std::unique_ptr<SceneSoak> makeSoak(const SceneSettings& s, const SoakOptions& o, std::int64_t) const override {
    return std::make_unique<BallisticSoak>(s, o);
  }
  void runBench(const BenchOptions& o, BenchReport& report) const override { runBallisticBench(o, report); }
  std::optional<CostEstimate> estimateCost(const SceneSettings&, bool) const override { return std::nullopt; }
};

const Scene& ballisticScene() {
  static const BallisticScene scene;
  return scene;
}
[[maybe_unused]] const bool kRegistered = (registerTestScene(ballisticScene()), true);

} // namespace
} // namespace graphsim::app
