// The CPU backend as the app and the panel see it: stage names, toggles, the node list, substeps, parameters, and
// the configs it refuses.
#include <gtest/gtest.h>

#include <array>
#include <stdexcept>
#include <string>

#include "compute/nbody/nbody_cpu_backend.h"
#include "unit_helpers.h"

namespace graphsim {
namespace {

using test::gravityOnly;

constexpr auto kAllStages = [] {
  std::array<NBodyStage, kStageCount> stages{};
  for (std::size_t i = 0; i < stages.size(); ++i) stages[i] = kNBodyStages[i].stage;
  return stages;
}();

// EXPECT_THROW plus a look at the message: a user must be told what was wrong and what is allowed.
template <class F>
std::string invalidArgumentMessage(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no std::invalid_argument thrown";
  return {};
}

TEST(Backend, StageNamesRoundTripAndUnknownNamesAreRejected) {
  for (NBodyStage s : kAllStages) EXPECT_EQ(stageFromName(stageName(s)), s) << stageName(s);
  EXPECT_EQ(stageName(NBodyStage::WriteRender), "write_render");
  for (const char* bad : {"", "Forces", "force", "write-render", "forces#1", "semaphore"}) {
    EXPECT_FALSE(stageFromName(bad).has_value()) << bad;
  }
  EXPECT_EQ(stageInstanceName(NBodyStage::Forces, 0), "forces");
  EXPECT_EQ(stageInstanceName(NBodyStage::Boundary, 12), "boundary#12");
}

TEST(Backend, OnlyWriteRenderIsNotTogglable) {
  for (NBodyStage s : kAllStages) {
    if (s == NBodyStage::WriteRender) {
      EXPECT_EQ(whyNotTogglable(s), "the renderer draws this buffer every frame");
    } else {
      EXPECT_TRUE(whyNotTogglable(s).empty()) << stageName(s);
    }
  }
  NBodyCpuBackend backend(gravityOnly("plummer", 16));
  const std::string message = invalidArgumentMessage([&] { backend.setStageEnabled(NBodyStage::WriteRender, false); });
  EXPECT_NE(message.find("write_render"), std::string::npos) << message;
  EXPECT_TRUE(backend.stageEnabled(NBodyStage::WriteRender));
  EXPECT_NO_THROW(backend.setStageEnabled(NBodyStage::WriteRender, true)); // applying a full enable list is no toggle
  for (NBodyStage s : kAllStages) {
    if (s == NBodyStage::WriteRender) continue;
    backend.setStageEnabled(s, false);
    EXPECT_FALSE(backend.stageEnabled(s));
    backend.setStageEnabled(s, true);
    EXPECT_TRUE(backend.stageEnabled(s));
  }
}

TEST(Backend, NodesListEveryStageInstanceInExecutionOrder) {
  NBodyConfig config = gravityOnly("plummer", 16);
  config.substeps = 3;
  NBodyCpuBackend backend(config);
  backend.setStageEnabled(NBodyStage::Damping, true);
  backend.setStageEnabled(NBodyStage::Forces, false);
  const std::vector<NodeInfo> nodes = backend.nodes();
  const std::vector<std::string> expected = {"forces",   "attractor",   "integrate",   "damping",   "boundary",
                                             "forces#1", "attractor#1", "integrate#1", "damping#1", "boundary#1",
                                             "forces#2", "attractor#2", "integrate#2", "damping#2", "boundary#2",
                                             "colour",   "write_render"};
  ASSERT_EQ(nodes.size(), expected.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_EQ(nodes[i].name, expected[i]);
    EXPECT_EQ(nodes[i].type, "cpu");
    ASSERT_GE(nodes[i].step, 0) << nodes[i].name;
    const NBodyStage stage = *stageOf(nodes[i]);
    EXPECT_EQ(nodes[i].enabled, backend.stageEnabled(stage)) << nodes[i].name;
    EXPECT_EQ(nodes[i].togglable, stage != NBodyStage::WriteRender) << nodes[i].name;
    EXPECT_EQ(nodes[i].whyNotTogglable, whyNotTogglable(stage)) << nodes[i].name;
  }
  EXPECT_FALSE(nodes[5].enabled); // forces#1
  EXPECT_TRUE(nodes[8].enabled);  // damping#1
  EXPECT_FALSE(nodes[1].enabled); // attractor: off in this config
  EXPECT_EQ(backend.counters().reinstantiations, 0u);
}

TEST(Backend, SubstepsRunTheStageListThatManyTimes) {
  // One frame of 3 substeps is three frames of 1 substep, bit for bit (colour is computed per frame either way).
  NBodyConfig one = gravityOnly("plummer", 100);
  test::enable(one, NBodyStage::Attractor);
  test::enable(one, NBodyStage::Damping);
  test::enable(one, NBodyStage::Boundary);
  one.params.boundaryRadius = 1.0f;
  NBodyConfig three = one;
  three.substeps = 3;
  NBodyCpuBackend a(one), b(three);
  for (int i = 0; i < 3; ++i) a.step();
  b.step();
  EXPECT_TRUE(a.state().posMass == b.state().posMass);
  EXPECT_TRUE(a.state().vel == b.state().vel);
}

TEST(Backend, ParamsApplyFromTheNextStep) {
  NBodyCpuBackend backend(gravityOnly("plummer", 64));
  NBodyParams params = backend.config().params;
  params.dt = 0.0f; // a zero time step moves nothing
  backend.setParams(params);
  EXPECT_EQ(backend.config().params, params);
  const BodyState before = backend.state();
  backend.step();
  EXPECT_TRUE(backend.state().posMass == before.posMass);
  params.dt = 0.002f;
  backend.setParams(params);
  backend.step();
  EXPECT_FALSE(backend.state().posMass == before.posMass);
}

TEST(Backend, InvalidConfigsThrowAndLeaveTheSceneUnchanged) {
  NBodyCpuBackend backend(gravityOnly("plummer", 32));
  const BodyState before = backend.state();
  auto resetWith = [&](auto change) {
    NBodyConfig config = backend.config();
    change(config);
    return invalidArgumentMessage([&] { backend.reset(config); });
  };
  EXPECT_NE(resetWith([](NBodyConfig& c) { c.substeps = 0; }).find("substeps"), std::string::npos);
  EXPECT_NE(resetWith([](NBodyConfig& c) { c.substeps = kMaxSubsteps + 1; }).find("substeps"), std::string::npos);
  EXPECT_NE(resetWith([](NBodyConfig& c) { c.bodies = -1; }).find("bodies"), std::string::npos);
  EXPECT_NE(resetWith([](NBodyConfig& c) { c.bodies = kMaxBodies + 1; }).find("bodies"), std::string::npos);
  EXPECT_NE(resetWith([](NBodyConfig& c) { c.scene = "fluid"; }).find("nbody"), std::string::npos);
  EXPECT_NE(resetWith([](NBodyConfig& c) { c.initial = "spiral"; }).find("galaxy-pair, plummer, two-body"),
            std::string::npos);
  EXPECT_NE(resetWith([](NBodyConfig& c) {
              c.enabled[static_cast<int>(NBodyStage::WriteRender)] = false;
            }).find("write_render"),
            std::string::npos);
  EXPECT_THROW(NBodyCpuBackend(gravityOnly("two-body", 3)), std::invalid_argument);
  EXPECT_EQ(backend.config().bodies, 32);
  EXPECT_TRUE(backend.state().posMass == before.posMass);
}

TEST(Backend, EmptySceneStepsAndRendersNothing) {
  NBodyConfig config;
  config.bodies = 0;
  NBodyCpuBackend backend(config);
  backend.step();
  BodyState state;
  std::vector<float> colour{1.0f};
  backend.download(state, colour);
  EXPECT_EQ(state.size(), 0u);
  EXPECT_TRUE(colour.empty());
  backend.writeRender(nullptr); // zero bodies: nothing is written
}

} // namespace
} // namespace graphsim
