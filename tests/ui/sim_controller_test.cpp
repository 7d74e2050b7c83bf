// Panel logic without ImGui: what each request does to a backend (the CPU reference here). Pause and step are the
// producer's (SceneProducer), tested through an n-body producer without a renderer.
#include <gtest/gtest.h>

#include "app/scenes/nbody/nbody_controller.h"
#include "app/scenes/nbody/nbody_scene.h"
#include "compute/nbody/nbody_cpu_backend.h"

namespace graphsim::app {
namespace {

NBodyConfig smallScene() {
  NBodyConfig c;
  c.bodies = 256;
  c.seed = 3;
  return c;
}

TEST(NBodyController, ParametersReachTheBackendOnTheNextApply) {
  NBodyCpuBackend backend(smallScene());
  NBodyController controller(backend.config(), 4096);
  NBodyParams p = controller.params();
  p.G = 2.5f;
  controller.setParams(p);
  EXPECT_EQ(backend.config().params.G, 1.0f) << "applied before the frame started";
  EXPECT_GT(controller.applyTo(backend, FrameEdits{}), 0.0) << "the frame advances";
  EXPECT_EQ(backend.config().params.G, 2.5f);
}

TEST(NBodyController, PauseRunsFramesWithZeroDtAndStepAdvancesOnce) {
  SceneSettings settings = nbodyScene().defaults();
  settings.sim = smallScene();
  const std::unique_ptr<SceneProducer> producer = nbodyScene().makeProducer(settings, ProducerRequest{});
  const NBodyBackend& backend = *nbodyBackend(*producer);
  const float dt = nbodyController(*producer)->params().dt;
  std::uint64_t k = 0;
  const auto frameAdvances = [&] { // the session's start of a frame
    producer->beginFrame(k++);
    return producer->advances();
  };
  producer->togglePause();
  EXPECT_FALSE(frameAdvances());
  EXPECT_EQ(backend.config().params.dt, 0.0f);
  producer->requestStep();
  EXPECT_TRUE(frameAdvances());
  EXPECT_EQ(backend.config().params.dt, dt);
  EXPECT_FALSE(frameAdvances()) << "a step advances exactly one frame";
  producer->togglePause();
  EXPECT_TRUE(frameAdvances());
  EXPECT_EQ(backend.config().params.dt, dt);
}

TEST(NBodyController, BodiesAndSubstepsAreStructuralAndBounded) {
  NBodyCpuBackend backend(smallScene());
  NBodyController controller(backend.config(), 1024);
  controller.setBodies(512);
  controller.setSubsteps(3);
  controller.applyTo(backend, FrameEdits{});
  EXPECT_EQ(backend.config().bodies, 512);
  EXPECT_EQ(backend.config().substeps, 3);
  EXPECT_EQ(backend.state().posMass.size(), 512u);
  EXPECT_NE(controller.lastStructuralChange().find("512 bodies"), std::string::npos);
  EXPECT_THROW(controller.setBodies(1025), std::invalid_argument);
  EXPECT_THROW(controller.setBodies(0), std::invalid_argument);
  EXPECT_THROW(controller.setSubsteps(0), std::invalid_argument);
}

TEST(NBodyController, TogglesAndResetKeepTheWantedStages) {
  NBodyCpuBackend backend(smallScene());
  NBodyController controller(backend.config(), 4096);
  controller.setStageEnabled(NBodyStage::Damping, true);
  controller.setStageEnabled(NBodyStage::Boundary, false);
  controller.applyTo(backend, FrameEdits{});
  EXPECT_TRUE(backend.stageEnabled(NBodyStage::Damping));
  EXPECT_FALSE(backend.stageEnabled(NBodyStage::Boundary));
  const Float4 first = backend.state().posMass.at(0);
  controller.applyTo(backend, FrameEdits{});
  backend.step();
  controller.applyTo(backend, FrameEdits{.reset = true}); // a requested reset (SceneProducer::requestReset)
  EXPECT_EQ(backend.state().posMass.at(0), first) << "reset must restore the initial state";
  EXPECT_TRUE(backend.stageEnabled(NBodyStage::Damping)) << "reset must keep the user's toggles";
  EXPECT_FALSE(backend.stageEnabled(NBodyStage::Boundary));
}

} // namespace
} // namespace graphsim::app
