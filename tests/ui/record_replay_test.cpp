// Session recording and replay (issue 15, docs/RECORDING.md): a panel session scripted the way a user drives it
// (a node unticked and ticked again, the dt slider dragged, Space, S, a camera drag, A held over the scene, F12,
// F1) is recorded with `--record` semantics, then replayed by `graphsim replay` in a child process: every checkpoint
// must be bit-identical on the backend that recorded it. CPU everywhere; CUDA where a CUDA device exists.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <string>

#include "app/io/output_file.h"
#include "app/record/session_record.h"
#include "app/run/session.h"
#include "app/scenes/nbody/nbody_controller.h"
#include "app/scenes/nbody/nbody_scene.h"
#include "app/ui/keys.h"
#include "app/ui/window.h"
#include "compute/cuda_device.h"
#include "tests/cli/run_graphsim.h"

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;

fs::path freshDir(const std::string& name) {
  const fs::path dir = fs::path(GRAPHSIM_TEST_TMP) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

RunOptions recordOptions(const fs::path& file) {
  RunOptions options;
  options.scene = loadPreset("nbody");
  options.scene.sim.bodies = 1024;
  options.scene.render.width = 1280; // the CUDA panel (more graph nodes) must fit, its dt slider included
  options.scene.render.height = 720;
  options.headless = true;
  options.panel = true;
  options.frames = 80;
  options.record = file;
  options.recordCheckpointEvery = 10;
  return options;
}

void tick(Session& session, int n) {
  for (int i = 0; i < n; ++i) ASSERT_TRUE(session.tick());
}

void click(HeadlessWindow& window, float x, float y) {
  window.inject({x, y, {false, false, false}, 0, {}});
  window.inject({x, y, {true, false, false}, 0, {}});
  window.inject({x, y, {false, false, false}, 0, {}});
}

void key(HeadlessWindow& window, float x, float y, int code) {
  window.inject({x, y, {}, 0, {code}});
  window.inject({x, y, {}, 0, {}});
}

class RecordReplay : public ::testing::TestWithParam<BackendKind> {};

TEST_P(RecordReplay, AScriptedPanelSessionReplaysBitForBitAtEveryCheckpoint) {
  const BackendKind backend = GetParam();
  const bool cuda = backend == BackendKind::Cuda;
  if (cuda) {
    const CudaDeviceList devices = listCudaDevices();
    if (devices.devices.empty()) GTEST_SKIP() << "no CUDA device: " << devices.whyNone;
  }
  const fs::path dir = freshDir(cuda ? "record-cuda" : "record-cpu");
  const fs::path file = dir / "session.json";
  RunOptions options = recordOptions(file);
  options.capture = dir / "unused.png"; // the F12 capture lands beside it
  {
    HeadlessWindow window(options.scene.render.width, options.scene.render.height);
    Session session(options, backend, window);
    ASSERT_NO_FATAL_FAILURE(tick(session, 2));
    const PanelLayout layout = session.layout();
    ASSERT_TRUE(layout.count("node:integrate") && layout.count("param:dt"));
    const WidgetRect node = layout.at("node:integrate");
    click(window, node.cx(), node.cy()); // frames 2-4: untick integrate
    ASSERT_NO_FATAL_FAILURE(tick(session, 6));
    click(window, node.cx(), node.cy()); // tick it again
    ASSERT_NO_FATAL_FAILURE(tick(session, 6));
    const WidgetRect dt = session.layout().at("param:dt"); // where it is now: the panel's lines move as it runs
    ASSERT_LT(dt.cy(), static_cast<float>(options.scene.render.height)) << "the dt slider is below the window";
    window.inject({dt.cx(), dt.cy(), {false, false, false}, 0, {}});
    window.inject({dt.cx(), dt.cy(), {true, false, false}, 0, {}});
    window.inject({dt.cx() + 30, dt.cy(), {true, false, false}, 0, {}});
    window.inject({dt.cx() + 30, dt.cy(), {false, false, false}, 0, {}});
    ASSERT_NO_FATAL_FAILURE(tick(session, 6));
    const float sx = 1000, sy = 400;   // over the scene, away from the panel
    key(window, sx, sy, keys::kSpace); // pause
    ASSERT_NO_FATAL_FAILURE(tick(session, 4));
    key(window, sx, sy, keys::kS); // one step
    ASSERT_NO_FATAL_FAILURE(tick(session, 4));
    key(window, sx, sy, keys::kSpace); // resume
    ASSERT_NO_FATAL_FAILURE(tick(session, 4));
    window.inject({sx, sy, {true, false, false}, 0, {}}); // a left drag orbits the camera
    window.inject({sx + 40, sy + 10, {true, false, false}, 0, {}});
    window.inject({sx + 40, sy + 10, {false, false, false}, 0, {}});
    ASSERT_NO_FATAL_FAILURE(tick(session, 4));
    window.inject({sx, sy, {}, 0, {keys::kA}}); // hold A: the attractor follows the mouse
    window.inject({sx + 20, sy, {}, 0, {keys::kA}});
    window.inject({sx + 20, sy, {}, 0, {}});
    ASSERT_NO_FATAL_FAILURE(tick(session, 4));
    key(window, sx, sy, keys::kF12); // this frame captured without the panel
    ASSERT_NO_FATAL_FAILURE(tick(session, 4));
    key(window, sx, sy, keys::kF1); // the panel hides
    while (session.tick()) {
    }
    const RunSummary summary = session.finish();
    EXPECT_EQ(summary.frames, 80u);
  }

  const SessionRecording recording = readSessionRecording(file);
  EXPECT_EQ(recording.frames, 80u);
  EXPECT_EQ(recording.backend, cuda ? "cuda" : "cpu");
  EXPECT_EQ(recording.checkpoints.size(), 8u);
  bool toggled = false, paused = false, stepped = false, camera = false, capture = false, panel = false, dt = false,
       attractor = false;
  for (const RecordedEvent& e : recording.events) {
    const nlohmann::json& live = e.controls.is_null() ? nlohmann::json() : e.controls.value("live", nlohmann::json());
    toggled |= live.contains("stages") && live["stages"].contains("integrate");
    dt |= live.contains("params") && live["params"].contains("dt");
    attractor |= live.contains("params") && live["params"].contains("attractor_pos");
    paused |= !e.controls.is_null() && e.controls.contains("paused");
    stepped |= !e.controls.is_null() && e.controls.value("step", false);
    camera |= e.camera.has_value();
    capture |= e.sceneCapture;
    panel |= e.panelVisible.has_value() && !*e.panelVisible;
  }
  EXPECT_TRUE(toggled) << "no integrate toggle recorded";
  EXPECT_TRUE(dt) << "no dt change recorded";
  EXPECT_TRUE(paused) << "no pause recorded";
  EXPECT_TRUE(stepped) << "no step recorded";
  EXPECT_TRUE(camera) << "no camera move recorded";
  EXPECT_TRUE(attractor) << "no attractor drag recorded";
  EXPECT_TRUE(capture) << "no F12 capture recorded";
  EXPECT_TRUE(panel) << "no panel hiding recorded";

  const fs::path replayDir = freshDir(cuda ? "replay-cuda" : "replay-cpu");
  const test::ProcessResult r = test::runGraphsim({"replay", file.string(), "--headless", "--quiet", "--validation",
                                                   "--capture", (replayDir / "last.png").string()},
                                                  300);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("replay: 8 of 8 checkpoints compared: 8 bit-identical"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("validation messages: 0"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(replayDir / "last.png"));
  bool recapture = false; // the recording's F12 happens again, beside --capture
  for (const auto& entry : fs::directory_iterator(replayDir))
    recapture |= entry.path().filename().string().rfind("graphsim_frame_", 0) == 0;
  EXPECT_TRUE(recapture) << "the replay did not repeat the F12 capture";
}

INSTANTIATE_TEST_SUITE_P(Backends, RecordReplay, ::testing::Values(BackendKind::Cpu, BackendKind::Cuda),
                         [](const auto& c) { return c.param == BackendKind::Cpu ? "cpu" : "cuda"; });

// What `graphsim replay` refuses, with exit 2 and a message naming the problem.
TEST(RecordReplayRefusals, RecordingsThatCannotBeReplayedAreExitTwo) {
  const fs::path dir = freshDir("replay-refusals");
  const fs::path file = dir / "s.json";
  ASSERT_EQ(test::runGraphsim({"run", "--headless", "--backend", "cpu", "--bodies", "256", "--frames", "12", "--record",
                               file.string(), "--quiet"})
                .exitCode,
            0);
  SessionRecording recording = readSessionRecording(file);
  nlohmann::ordered_json json = toJson(recording);

  auto write = [&](const std::string& name, const nlohmann::ordered_json& j) {
    const fs::path p = dir / name;
    writeOutput(p, j.dump());
    return p.string();
  };
  nlohmann::ordered_json newer = json;
  newer["version"] = kSessionFormatVersion + 1;
  nlohmann::ordered_json otherScene = json;
  otherScene["scene"] = "smoke";
  nlohmann::ordered_json mismatched = json;
  mismatched["settings"]["scene"] = "fluid";
  nlohmann::ordered_json unordered = json;
  unordered["events"] = nlohmann::ordered_json::array({{{"frame", 5}}, {{"frame", 3}}});
  // Issue 31: frame counts past run's cap (one that wrapped to -1 never ended), events and checkpoints past the last
  // frame or out of order (a replay used to drop them silently or compare "0 of 3").
  nlohmann::ordered_json wrapped = json, tooMany = json, lateEvent = json, twice = json, lateCheckpoint = json;
  wrapped["frames"] = std::numeric_limits<std::uint64_t>::max();
  tooMany["frames"] = 10'000'000'000'000;
  lateEvent["events"] = nlohmann::ordered_json::array({{{"frame", 12}}});
  ASSERT_GE(json["checkpoints"].size(), 1u);
  const nlohmann::ordered_json last = json["checkpoints"].back();
  twice["checkpoints"] = nlohmann::ordered_json::array({last, last});
  nlohmann::ordered_json beyond = last;
  beyond["frame"] = 12;
  lateCheckpoint["checkpoints"] = nlohmann::ordered_json::array({beyond});
  // Controls nested 100,000 deep (200 KB): replay used to die of SIGSEGV walking them.
  nlohmann::ordered_json placeholder = json;
  placeholder["controls"] = 0;
  std::string deep = placeholder.dump();
  const std::string key = "\"controls\":0";
  ASSERT_NE(deep.find(key), std::string::npos);
  deep.replace(deep.find(key), key.size(), "\"controls\":" + std::string(100000, '[') + std::string(100000, ']'));
  const fs::path deepFile = dir / "deep.json";
  writeOutput(deepFile, deep);
  struct Case {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"replay", write("newer.json", newer)}, "is format version 2, newer than this graphsim reads (1)"},
      {{"replay", write("smoke.json", otherScene)},
       "a recording of the smoke scene, which this graphsim does not have"},
      {{"replay", write("mismatch.json", mismatched)}, "its settings are of another scene"},
      {{"replay", write("unordered.json", unordered)}, "must be after the previous event's frame 5"},
      {{"replay", write("wrapped.json", wrapped)}, "frames must be an integer in [0, 1000000000000]"},
      {{"replay", write("toomany.json", tooMany)}, "frames must be an integer in [0, 1000000000000]"},
      {{"replay", write("late-event.json", lateEvent)}, "is 12, past the recording's last frame 11"},
      {{"replay", write("twice.json", twice)}, "must be after the previous checkpoint's frame 11"},
      {{"replay", write("late-checkpoint.json", lateCheckpoint)}, "is 12, past the recording's last frame 11"},
      {{"replay", deepFile.string()}, "controls nests more than 64 levels deep"},
      {{"replay", file.string(), "--scene", "fluid"}, "is a recording of the nbody scene"},
      {{"replay", write("garbage.json", nlohmann::ordered_json::array())}, "is not a recorded graphsim session"},
      {{"replay", (dir / "absent.json").string()}, "absent.json: no such file"},
      {{"replay", file.string(), "--tolerance", "-1"}, "--tolerance: must be a number in 0..1"},
      {{"run", "--headless", "--record-checkpoint-every", "5"}, "--record-checkpoint-every: needs --record FILE"},
  };
  for (const Case& c : cases) {
    const test::ProcessResult r = test::runGraphsim(c.args);
    EXPECT_EQ(r.exitCode, 2) << c.args[1] << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args[1] << ": " << r.err;
  }

  // A recording whose run is not what its settings say (dt edited by hand) replays, but its checkpoints differ:
  // exit 1, naming the first frame that differs.
  nlohmann::ordered_json edited = json;
  edited["settings"]["params"]["dt"] = 0.002;
  const test::ProcessResult r = test::runGraphsim({"replay", write("edited.json", edited), "--headless", "--quiet"});
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_NE(r.err.find("0 bit-identical"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("first: frame 12: positions differ by"), std::string::npos) << r.err;
}

// Issue 31: a recorded change the scene refuses (a count whose dam-break block does not fit, an unknown key) exits 2
// before the first frame (no capture written), naming the file and the event. It used to run frames first and then
// say "internal error" without either.
TEST(RecordReplayRefusals, ABadRecordedChangeFailsBeforeTheFirstFrameNamingTheEvent) {
  const fs::path dir = freshDir("replay-bad-controls");
  const fs::path file = dir / "fluid.json";
  ASSERT_EQ(test::runGraphsim({"run", "--headless", "--backend", "cpu", "--scene", "fluid", "--particles", "1000",
                               "--frames", "4", "--record", file.string(), "--quiet"})
                .exitCode,
            0);
  nlohmann::ordered_json json = toJson(readSessionRecording(file));
  struct Case {
    nlohmann::ordered_json live;
    std::string says;
  } cases[] = {
      {{{"particles", 64}}, "events[1] (frame 2): controls: live: fluid scene: particles = 64: the dam-break block"},
      {{{"viscosty", 0.1}}, "events[1] (frame 2): controls: live.viscosty is not a known key"},
  };
  for (const Case& c : cases) {
    json["events"] = nlohmann::ordered_json::array(
        {{{"frame", 1}, {"controls", {{"paused", false}}}}, {{"frame", 2}, {"controls", {{"live", c.live}}}}});
    const fs::path bad = dir / "bad.json";
    writeOutput(bad, json.dump());
    const fs::path captures = dir / "frames";
    fs::remove_all(captures);
    fs::create_directories(captures);
    const test::ProcessResult r = test::runGraphsim(
        {"replay", bad.string(), "--headless", "--capture", (captures / "f.png").string(), "--capture-every", "1"});
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("replay " + bad.string() + ": " + c.says), std::string::npos) << r.err;
    EXPECT_TRUE(fs::is_empty(captures)) << "frames ran before the refusal: " << r.err;
  }
}

} // namespace
} // namespace graphsim::app
