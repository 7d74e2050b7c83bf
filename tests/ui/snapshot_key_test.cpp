// F5 and the panel's "Save state" button (issue 15, docs/SNAPSHOTS.md): a snapshot of the frame's state beside the
// captures, graphsim_state_<frame>.gss, holding exactly the state after that frame (the same as a run of that many
// frames without a window). CPU backend on the headless twin with the panel, input injected as in the scripted UI
// test.
#include <gtest/gtest.h>

#include <unistd.h>

#include <bit>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app/run/session.h"
#include "app/scenes/scene_config.h"
#include "app/snapshot/snapshot.h"
#include "app/ui/keys.h"
#include "app/ui/window.h"

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;

RunOptions panelOptions(const fs::path& dir) {
  RunOptions options;
  options.scene = loadPreset("nbody");
  options.scene.sim.bodies = 1024;
  options.scene.render.height = 1200; // the panel's Actions section within the window, below the other sections
  options.headless = true;
  options.panel = true;
  options.validation = true;
  options.frames = 1000;               // an upper bound: the test stops ticking earlier, so no --capture is written
  options.capture = dir / "frame.png"; // F5 writes beside the captures
  return options;
}

std::vector<fs::path> stateFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("graphsim_state_", 0) == 0) files.push_back(e.path());
  return files;
}

// The state after `frames` frames of the same scene without a window.
SceneState reference(const SceneSettings& settings, std::uint64_t frames) {
  const std::unique_ptr<SceneProducer> run = findScene(settings.scene).makeProducer(settings, ProducerRequest{});
  for (std::uint64_t k = 0; k < frames; ++k) {
    run->beginFrame(k);
    run->produce(k);
  }
  return run->saveState();
}

bool sameBits(const SceneState& a, const SceneState& b) {
  if (a.settings != b.settings || a.arrays.size() != b.arrays.size() ||
      std::bit_cast<std::uint64_t>(a.simTime) != std::bit_cast<std::uint64_t>(b.simTime))
    return false;
  for (std::size_t i = 0; i < a.arrays.size(); ++i) {
    if (a.arrays[i].values.size() != b.arrays[i].values.size()) return false;
    for (std::size_t v = 0; v < a.arrays[i].values.size(); ++v)
      if (std::bit_cast<std::uint32_t>(a.arrays[i].values[v]) != std::bit_cast<std::uint32_t>(b.arrays[i].values[v]))
        return false;
  }
  return true;
}

void expectOneSnapshotOfItsFrame(const fs::path& dir, const RunOptions& options) {
  const std::vector<fs::path> files = stateFiles(dir);
  ASSERT_EQ(files.size(), 1u) << "expected one graphsim_state_<frame>.gss in " << dir;
  const SceneState saved = readSnapshotFile(files.front());
  const std::string name = files.front().filename().string(); // graphsim_state_000004.gss
  EXPECT_EQ(name, "graphsim_state_" + std::string(6 - std::to_string(saved.frame).size(), '0') +
                      std::to_string(saved.frame) + ".gss");
  EXPECT_EQ(saved.scene, "nbody");
  EXPECT_EQ(saved.count, 1024);
  EXPECT_EQ(saved.backend, "cpu");
  EXPECT_TRUE(sameBits(saved, reference(options.scene, saved.frame)))
      << "the state in " << name << " is not the state after frame " << saved.frame;
}

class SnapshotKey : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::path(GRAPHSIM_TEST_TMP) / ("snapshot_key_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(SnapshotKey, F5SavesTheFramesStateBesideTheCaptures) {
  const RunOptions options = panelOptions(dir_);
  HeadlessWindow window(options.scene.render.width, options.scene.render.height);
  Session session(options, BackendKind::Cpu, window);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(session.tick());
  window.inject({-1, -1, {}, 0, {keys::kF5}});
  window.inject({-1, -1, {}, 0, {}});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(session.tick());
  EXPECT_EQ(session.finish().validationMessages, 0u);
  expectOneSnapshotOfItsFrame(dir_, options);
}

TEST_F(SnapshotKey, TheSaveStateButtonDoesTheSame) {
  const RunOptions options = panelOptions(dir_);
  HeadlessWindow window(options.scene.render.width, options.scene.render.height);
  Session session(options, BackendKind::Cpu, window);
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(session.tick()); // the panel lays itself out
  ASSERT_TRUE(session.layout().count("action:save_state")) << "the Actions section has no Save state button";
  const WidgetRect button = session.layout().at("action:save_state");
  window.inject({button.cx(), button.cy(), {false, false, false}, 0, {}});
  window.inject({button.cx(), button.cy(), {true, false, false}, 0, {}});
  window.inject({button.cx(), button.cy(), {false, false, false}, 0, {}});
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(session.tick());
  EXPECT_EQ(session.finish().validationMessages, 0u);
  expectOneSnapshotOfItsFrame(dir_, options);
}

} // namespace
} // namespace graphsim::app
