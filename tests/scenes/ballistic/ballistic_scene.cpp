// The ballistic scene's app side: its Scene (the registry entry), SceneProducer, soak and bench, all run by the
// generic code (session, panel, recording and replay, snapshots, soak loop, bench loop). It registers itself from a
// static initialiser: only binaries that link this folder (graphsim_test_scenes, the ballistic tests) have it.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <utility>

#include "app/base/errors.h"
#include "app/base/json_reader.h"
#include "app/bench/bench_producers.h"
#include "app/bench/bench_support.h"
#include "app/cli/registry.h"
#include "app/reliability/param_soak.h"
#include "app/reliability/soak.h"
#include "app/reliability/soak_random.h"
#include "app/scenes/param_json.h"
#include "app/scenes/param_panel.h"
#include "app/scenes/scene_config.h"
#include "app/ui/frame_stats.h"
#include "render/driver_info.h"
#include "render/particle_renderer.h"
#include "render/vulkan_context.h"
#include "tests/scenes/ballistic/ballistic.h"

namespace graphsim::app {
namespace {

using namespace ballistic;
using nlohmann::json;

struct Config { // the scene file's keys; the live controls are params and bounce
  std::int64_t particles = 4096;
  Params params;
  bool bounce = true;
};
Config& configOf(SceneSettings& s) { return std::any_cast<Config&>(s.config); }
const Config& configOf(const SceneSettings& s) { return std::any_cast<const Config&>(s.config); }
constexpr std::string_view kKeys[] = {"particles", "restitution", "bounce"};

void readLive(Config& c, const JsonReader& r) { // scene files and recorded controls
  readParams(r, c.params, kParams);
  r.boolean("bounce", c.bounce);
}
json liveJson(const Config& c) {
  json j = liveParamsJson(c.params, kParams);
  j["bounce"] = c.bounce;
  return j;
}
// The Graph section's list, from the rows: CPU and CUDA cannot disagree. type: "cpu" | "kernel".
std::vector<NodeInfo> nodesOf(bool bounce, const std::string& type) {
  std::vector<NodeInfo> nodes;
  for (const StepRow& row : kSteps)
    nodes.push_back({.name = std::string(row.name),
                     .type = type,
                     .togglable = row.whyNot.empty(),
                     .enabled = !row.whyNot.empty() || bounce,
                     .whyNotTogglable = std::string(row.whyNot)});
  return nodes;
}
State stateOf(const SceneState& s) {
  return {toFloat4s(requireArray(s, "pos", 4)), toFloat4s(requireArray(s, "vel", 4))};
}
const Scene& ballisticScene();

class BallisticProducer final : public SceneProducer {
public:
  BallisticProducer(std::unique_ptr<Engine> engine, const Config& c, render::ParticleRenderer* renderer)
      : SceneProducer(ballisticScene()), engine_(std::move(engine)), wanted_(c), applied_(c), renderer_(renderer),
        nodes_(nodesOf(c.bounce, engine_->name() == "cpu" ? "cpu" : "kernel")) {}

  std::optional<std::uint64_t> produce(std::uint64_t k) override {
    const auto simDone = engine_->produce(k, advance_, applied_.params, applied_.bounce);
    if (renderer_ != nullptr && !simDone)
      engine_->writeRender(reinterpret_cast<Float4*>(renderer_->mappedBodies(renderer_->slotOf(k))));
    return simDone;
  }
  void beginFrame(std::uint64_t) override { // the edits since the last frame
    if (std::exchange(reset_, false)) engine_->upload(initialState(applied_.particles)), time_ = 0;
    advance_ = !paused_ || std::exchange(step_, false);
    time_ += advance_ ? kFrameDt : 0.0f;
    if (wanted_.bounce != applied_.bounce) nodes_ = nodesOf(wanted_.bounce, nodes_.front().type);
    applied_ = wanted_;
  }
  void styleFrame(render::FrameSubmit& submit) const override {
    submit.style.pointRadius = 0.008f;
    submit.box = render::Box{glm::vec3(0.0f), glm::vec3(1.0f)};
  }
  void setNodeEnabled(const NodeInfo& node, bool on) override {
    if (node.togglable) wanted_.bounce = on;
  }
  std::string nodeTooltip(const NodeInfo& node) const override {
    return node.togglable ? std::string(kBounceMechanism) : "cannot be disabled: " + node.whyNotTogglable;
  }
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
  std::string describeState() const override { return std::to_string(count()) + " particles"; }
  SceneState saveState() override {
    const State s = engine_->download();
    json settings = liveJson(wanted_);
    settings.update({{"scene", "ballistic"}, {"particles", applied_.particles}});
    return {"ballistic",
            count(),
            0,
            time_,
            std::string(engine_->name()),
            settings.dump(),
            {floatArray("pos", s.pos), floatArray("vel", s.vel)}};
  }
  void loadState(const SceneState& state) override {
    requireSceneAndCount(state, "ballistic", count(), "particles");
    constexpr std::string_view arrays[] = {"pos", "vel"};
    requireOnlyArrays(state, arrays);
    const State s = stateOf(state);
    Config c = wanted_;
    readLive(c, JsonReader(json::parse(state.settings), sourceOf(state), ""));
    engine_->upload(s); // every check above came first
    wanted_ = c, time_ = state.simTime;
  }
  json controls() const override {
    json c = liveJson(wanted_);
    c.update({{"paused", paused_}, {"step", step_}, {"reset", reset_}});
    return c;
  }
  void setControls(const json& controls) override {
    const JsonReader r(controls, "the recorded controls", "");
    r.allowOnly({"restitution", "bounce", "paused", "step", "reset"});
    Config c = wanted_;
    readLive(c, r);
    bool paused = paused_, step = step_, reset = reset_;
    r.boolean("paused", paused), r.boolean("step", step), r.boolean("reset", reset);
    wanted_ = c, paused_ = paused, step_ = step, reset_ = reset;
  }

  // From here to the members: what a SceneProducer base (issue 27, step 3) implements once (the controller
  // protocol, forwarders to the engine, no-op capabilities). Delete when it lands.
  void waitProduced(std::uint64_t k) override { engine_->waitProduced(k); }
  void finish() override { engine_->finish(); }
  std::string_view backendName() const override { return engine_->name(); }
  std::int64_t count() const override { return applied_.particles; }
  void togglePause() override { paused_ = !paused_; }
  void requestStep() override { step_ = true; }
  void requestReset() override { reset_ = true; }
  bool paused() const override { return paused_; }
  bool advances() const override { return advance_; }
  double simTime() const override { return time_; }
  double simMs() const override { return engine_->simMs(); }
  double updateHostUs() const override { return 0; }
  UpdateCounters counters() const override { return engine_->counters(); }
  const std::vector<NodeInfo>& nodes() const override { return nodes_; }
  bool nodeTogglable(const NodeInfo& node) const override { return node.togglable; }
  bool setProfiling(bool) override { return false; }
  bool hasGraph() const override { return false; }
  void dumpGraph(const std::filesystem::path&) const override {}
  std::optional<SceneNotice> blowUp() const override { return std::nullopt; }
  void pointAt(const glm::vec3&, bool) override {}
  std::string frameDetail() const override { return {}; }

private:
  std::unique_ptr<Engine> engine_;
  Config wanted_, applied_; // wanted: the panel's, keys', recording's and soak's; applied: this frame's
  render::ParticleRenderer* renderer_;
  std::vector<NodeInfo> nodes_;
  bool paused_ = false, step_ = false, reset_ = false, advance_ = true;
  double time_ = 0; // simulated seconds of the state shown
};

// Every 5th frame a seeded move (the restitution row's soak range, or the bounce switch) through the producer's
// controls (the recording's path) and, in the same frame, to a CPU replay. Checkpoints compare the two: bit for bit
// on the CPU; on CUDA within 1e-4 of the box, and the replay then restarts from the run's state.
class BallisticSoak final : public SceneSoak {
public:
  BallisticSoak(const SceneSettings& s, const SoakOptions& o)
      : wanted_(configOf(s)), replay_(makeCpuEngine(wanted_.particles)), random_(o.seed),
        exact_(o.backend != BackendKind::Cuda) {}
  void change(std::uint64_t k, SceneProducer& run) override {
    if (k % 5 != 4) return;
    if (random_.between(0, 1) == 0) moveRandomParam(random_, kParams, wanted_.params), ++moves_;
    else wanted_.bounce = !wanted_.bounce, ++toggles_;
    json c = run.controls();
    c.update(liveJson(wanted_));
    run.setControls(c);
  }
  void afterFrame(std::uint64_t k, SceneProducer& run, bool checkpoint) override {
    replay_->produce(k, run.advances(), wanted_.params, wanted_.bounce);
    if (!checkpoint) return;
    const State got = stateOf(run.saveState()), want = replay_->download();
    const auto gap = [](const Float4& a, const Float4& b) {
      return std::max({std::fabs(double(a.x) - b.x), std::fabs(double(a.y) - b.y), std::fabs(double(a.z) - b.z)});
    };
    double diff = 0;
    for (std::size_t i = 0; i < got.pos.size(); ++i)
      diff = std::max({diff, gap(got.pos[i], want.pos[i]), gap(got.vel[i], want.vel[i])});
    worst_ = std::max(worst_, diff);
    failed_ += (exact_ ? diff != 0 : !(diff <= 1e-4)) ? 1 : 0;
    ++checkpoints_;
    if (!exact_) replay_->upload(got);
  }
  void printChanges() const override {
    std::printf("changes: %llu restitution moves, %llu bounce toggles\n", static_cast<unsigned long long>(moves_),
                static_cast<unsigned long long>(toggles_));
  }
  void printCheckpoints() const override {
    std::printf("checkpoints: %llu, failed %llu, worst difference from the CPU replay %g\n",
                static_cast<unsigned long long>(checkpoints_), static_cast<unsigned long long>(failed_), worst_);
  }
  bool passed() const override { return failed_ == 0 && checkpoints_ > 0; }

private:
  Config wanted_;
  std::unique_ptr<Engine> replay_;
  SoakRandom random_;
  bool exact_;
  std::uint64_t moves_ = 0, toggles_ = 0, checkpoints_ = 0, failed_ = 0;
  double worst_ = 0;
};

// Bench drives the scene's own producer on the generic loop (runVariant): one variant, the product path. Nothing in
// BenchAdapter is ballistic: one adapter for the product and bench producers (issue 27, step 2) replaces it.
class BenchAdapter final : public BenchProducer {
public:
  explicit BenchAdapter(std::unique_ptr<SceneProducer> p) : p_(std::move(p)) {}
  std::optional<std::uint64_t> produce(std::uint64_t k) override {
    const auto t0 = std::chrono::steady_clock::now();
    p_->beginFrame(k);
    const auto simDone = p_->produce(k);
    times_.workUs = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    if (p_->backendName() == "cpu") times_.stepMs = p_->simMs(); // CUDA: simGpuMs
    return simDone;
  }
  void waitProduced(std::uint64_t k) override { p_->waitProduced(k); }
  void finish() override { p_->finish(); }
  ProducerTimes lastTimes() const override { return times_; }
  std::optional<double> simGpuMs(std::uint64_t) const override {
    return p_->backendName() == "cuda" && p_->simMs() >= 0 ? std::optional(p_->simMs()) : std::nullopt;
  }
  UpdateCounters counters() const override { return p_->counters(); }
  std::int64_t count() const override { return p_->count(); }
  void styleFrame(render::FrameSubmit& submit) const override { p_->styleFrame(submit); }
  nlohmann::ordered_json captureSidecar(std::uint64_t frame, bool warmup, const std::string& variant) const override {
    return {{"frame", frame + 1}, {"warmup", warmup}, {"variant", variant}, {"scene", "ballistic"}};
  }

private:
  std::unique_ptr<SceneProducer> p_;
  ProducerTimes times_;
};

void runBallisticBench(const BenchOptions& o, BenchReport& report) {
  const bool cuda = o.backend == BackendKind::Cuda;
  LoopSetup setup{&o, 0, 0, nullptr, "product", ballisticScene().initialCamera(o.scene)};
  if (cuda) {
    const CudaDeviceList devices = listCudaDevices();
    const CudaDeviceInfo& info = cudaDeviceFor(o, devices);
    describeCuda(report, info, devices);
    setup.cudaDevice = info.index;
  }
  report.initial = "jittered lattice";
  report.simTimer = cuda ? "cuda-events" : "cpu-wall";
  report.dataPath = o.simOnly ? "none (--sim-only)" : cuda ? "cuda host copy" : "cpu";
  std::optional<render::VulkanContext> context;
  std::optional<render::ParticleRenderer> renderer;
  if (!o.simOnly) {
    render::DeviceRequest request;
    request.index = cuda ? std::nullopt : o.gpu;
    request.validation = o.validation;
    context.emplace(request);
    report.vulkanDevice = render::describeDriver(*context).deviceName;
    if (!cuda) report.gpu = report.vulkanDevice;
    const auto mode = cuda ? render::BodyBufferMode::Staged : render::BodyBufferMode::HostVisible;
    renderer.emplace(*context, rendererConfig(o, mode, o.framesInFlight));
  }
  render::ParticleRenderer* r = renderer ? &*renderer : nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  BenchAdapter producer(ballisticScene().makeProducer(
      o.scene, {.cuda = cuda, .renderer = r, .cudaDevice = setup.cudaDevice, .waitTimeout = o.waitTimeout}));
  Variant v{setup, r, producer, r != nullptr ? o.framesInFlight : 1};
  v.withSubmit = r != nullptr;
  v.capture = true;
  const double startup = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  addRun(report, runProduct(o, report, setup, [&] { return runVariant(v, startup); }), "product",
         "the ballistic scene's producer: fall, bounce, write_render", context ? context->validationMessages() : 0);
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
  SceneSettings defaults() const override {
    SceneSettings s;
    s.scene = "ballistic";
    s.config = Config{};
    return s;
  }
  std::int64_t count(const SceneSettings& s) const override { return configOf(s).particles; }
  void setCount(SceneSettings& s, std::int64_t n) const override { configOf(s).particles = n; }
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
  std::unique_ptr<SceneProducer> makeProducer(const SceneSettings& s, const ProducerRequest& r) const override {
    const std::int64_t n = count(s);
    if (!r.cuda) return std::make_unique<BallisticProducer>(makeCpuEngine(n), configOf(s), r.renderer);
    std::optional<InteropDesc> interop;
    if (r.renderer != nullptr && r.renderer->config().mode == render::BodyBufferMode::Exported)
      interop = r.renderer->exportInterop();
    return std::make_unique<BallisticProducer>(
        makeCudaEngine(n, r.cudaDevice, interop ? &*interop : nullptr, r.waitTimeout), configOf(s), r.renderer);
  }
  std::unique_ptr<SceneSoak> makeSoak(const SceneSettings& s, const SoakOptions& o, std::int64_t) const override {
    return std::make_unique<BallisticSoak>(s, o);
  }
  SceneSettings soakSettings(const SoakOptions& o) const override {
    SceneSettings s = defaults();
    configOf(s).particles = o.count;
    return s;
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
