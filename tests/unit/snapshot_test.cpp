// Snapshots (issue 15, docs/SNAPSHOTS.md): the file format (app/snapshot/snapshot_format) and the scenes' saveState /
// loadState on the CPU backend. A resume is bit-exact: 10 frames, save, load into a new run, 10 more frames gives the
// state of 20 frames in one run, for both scenes. A truncated (at every length), corrupted (every byte), foreign,
// newer, other-scene or miscounted file is refused with a message naming what is wrong, and a refused load leaves
// the running state as it was.
#include <gtest/gtest.h>

#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "app/base/errors.h"
#include "app/scenes/fluid/fluid_controller.h"
#include "app/scenes/fluid/fluid_scene.h"
#include "app/scenes/nbody/nbody_controller.h"
#include "app/scenes/nbody/nbody_scene.h"
#include "app/snapshot/snapshot.h"
#include "app/snapshot/snapshot_format.h"

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;

// Small counts: the CPU runs every frame of both halves.
SceneSettings smallSettings(const std::string& scene) {
  SceneSettings settings = loadPreset(scene);
  findScene(scene).setCount(settings, scene == "nbody" ? 128 : 1024);
  return settings;
}

std::unique_ptr<SceneProducer> cpuProducer(const SceneSettings& settings) {
  ProducerRequest request; // no renderer: the simulation alone
  return findScene(settings.scene).makeProducer(settings, request);
}

// Frames first .. first + n - 1 as the session runs them (beginFrame applies the edits, produce steps).
void runFrames(SceneProducer& producer, std::uint64_t first, int n) {
  for (std::uint64_t k = first; k < first + static_cast<std::uint64_t>(n); ++k) {
    producer.beginFrame(k);
    producer.produce(k);
  }
}

// A live edit in the first half (a parameter and a switch), so that the file must carry the edited values, not the
// preset's. n-body: forces off, so that the frames after it kick with the accelerations carried from frame 4: a
// resume that recomputed them from the positions instead would differ.
void editMidRun(SceneProducer& producer) {
  if (NBodyController* c = nbodyController(producer)) {
    NBodyParams p = c->params();
    p.dt *= 1.5f;
    p.attractorPos[0] = 0.3f;
    c->setParams(p);
    c->setStageEnabled(NBodyStage::Attractor, true);
    c->setStageEnabled(NBodyStage::Damping, true);
    c->setStageEnabled(NBodyStage::Forces, false);
  } else if (FluidController* f = fluidController(producer)) {
    fluid::FluidParams p = f->params();
    p.viscosity = 0.11f;
    p.gravity[0] = 0.7f;
    f->setParams(p);
    f->setEnabled(fluid::FluidToggle::Obstacle, false);
  }
}

// Where two states first differ, bit for bit ("" when they do not).
std::string firstDifference(const SceneState& a, const SceneState& b) {
  if (a.scene != b.scene || a.count != b.count) return "scene or count";
  if (std::bit_cast<std::uint64_t>(a.simTime) != std::bit_cast<std::uint64_t>(b.simTime))
    return "simTime " + std::to_string(a.simTime) + " vs " + std::to_string(b.simTime);
  if (a.settings != b.settings) return "settings\n" + a.settings + "\n" + b.settings;
  if (a.arrays.size() != b.arrays.size()) return "array count";
  for (std::size_t i = 0; i < a.arrays.size(); ++i) {
    const StateArray &x = a.arrays[i], &y = b.arrays[i];
    if (x.name != y.name || x.components != y.components || x.values.size() != y.values.size())
      return "array " + x.name + " shape";
    for (std::size_t v = 0; v < x.values.size(); ++v)
      if (std::bit_cast<std::uint32_t>(x.values[v]) != std::bit_cast<std::uint32_t>(y.values[v]))
        return "array " + x.name + " value " + std::to_string(v) + ": " + std::to_string(x.values[v]) + " vs " +
               std::to_string(y.values[v]);
  }
  return {};
}

// The UsageError message of f(), or "" when it does not throw one.
template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return {};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<std::byte> withChecksum(std::vector<std::byte> bytes) {
  const std::uint64_t sum = fnv1a64(std::span(bytes).first(bytes.size() - 8));
  for (int i = 0; i < 8; ++i) bytes[bytes.size() - 8 + static_cast<std::size_t>(i)] = std::byte(sum >> (8 * i));
  return bytes;
}

void putU32(std::vector<std::byte>& bytes, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes[at + static_cast<std::size_t>(i)] = std::byte(v >> (8 * i));
}

class TempDir {
public:
  TempDir() : path_(fs::temp_directory_path() / ("graphsim-snapshot-" + std::to_string(::getpid()))) {
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

private:
  fs::path path_;
};

// ---- the format ----

TEST(SnapshotFormat, RoundTripKeepsEveryFieldAndEveryBit) {
  SceneState state;
  state.scene = "nbody";
  state.count = 3;
  state.frame = 1234567890123ull;
  state.simTime = 0.1 + 0.2;
  state.backend = "cpu";
  state.settings = R"({"scene":"nbody","bodies":3})";
  const float nan = std::bit_cast<float>(0x7fc12345u); // a NaN with a payload
  state.arrays.push_back({"a", 2, {1.0f, -0.0f, nan, std::numeric_limits<float>::infinity(), 1e-45f, -3.5f}});
  state.arrays.push_back({"b", 1, {7.0f, 8.0f, 9.0f}});
  const std::vector<std::byte> bytes = encodeSnapshot(state);
  EXPECT_EQ(std::memcmp(bytes.data(), kSnapshotMagic.data(), 8), 0);
  const SceneState back = decodeSnapshot(bytes, "test");
  EXPECT_EQ(firstDifference(state, back), "");
  EXPECT_EQ(back.frame, state.frame);
  EXPECT_EQ(back.backend, "cpu");
  EXPECT_EQ(back.source, "test");
  EXPECT_EQ(encodeSnapshot(back), bytes);
  // Little-endian, field by field: the version 1 at offset 8, the file length at 12.
  EXPECT_EQ(bytes[8], std::byte{1});
  EXPECT_EQ(bytes[9], std::byte{0});
  EXPECT_EQ(static_cast<std::size_t>(bytes[12]) | static_cast<std::size_t>(bytes[13]) << 8, bytes.size());
}

TEST(SnapshotFormat, EncodeRefusesAStateItCannotHold) {
  SceneState state;
  state.scene = "nbody";
  state.count = 2;
  state.arrays.push_back({"a", 4, {1.0f}}); // not count x components
  EXPECT_THROW(encodeSnapshot(state), std::invalid_argument);
}

// A saved n-body state of 128 bodies, as bytes.
std::vector<std::byte> savedNBody() {
  const std::unique_ptr<SceneProducer> run = cpuProducer(smallSettings("nbody"));
  runFrames(*run, 0, 2);
  return encodeSnapshot(run->saveState());
}

// The header's length up to the first array value, from the file's own fields.
std::size_t headerEnd(const std::vector<std::byte>& bytes) {
  const SceneState state = decodeSnapshot(bytes, "test");
  std::size_t payload = 0;
  for (const StateArray& a : state.arrays) payload += 4 * a.values.size();
  return bytes.size() - 8 - payload;
}

TEST(SnapshotFormat, EveryTruncationIsRefusedNamingWhereTheFileWasCut) {
  const std::vector<std::byte> bytes = savedNBody();
  const std::size_t header = headerEnd(bytes), checksum = bytes.size() - 8;
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    const std::string what = refusal([&] { decodeSnapshot(std::span(bytes).first(cut), "--load-state x.gss"); });
    ASSERT_TRUE(what.rfind("--load-state x.gss: ", 0) == 0) << cut << ": " << what;
    const char* where = cut == 0         ? "is empty"
                        : cut < 8        ? "inside the magic"
                        : cut < 12       ? "inside the format version"
                        : cut < 20       ? "inside the file length"
                        : cut < header   ? "inside the header"
                        : cut < checksum ? "inside the payload (array '"
                                         : "inside the checksum";
    ASSERT_TRUE(contains(what, where)) << "cut at " << cut << " of " << bytes.size() << ": " << what;
    if (cut > 0) {
      ASSERT_TRUE(contains(what, "truncated")) << cut << ": " << what;
    }
  }
}

TEST(SnapshotFormat, EveryFlippedByteIsRefused) {
  const std::vector<std::byte> bytes = savedNBody();
  for (std::size_t at = 0; at < bytes.size(); ++at) {
    std::vector<std::byte> bad = bytes;
    bad[at] ^= std::byte{0x10};
    const std::string what = refusal([&] { decodeSnapshot(bad, "f.gss"); });
    const char* expected = at < 8    ? "not a graphsim snapshot"
                           : at < 12 ? "format version"
                           : at < 20 ? "bytes" // the length: "truncated: ... bytes" or "... bytes after ..."
                                     : "checksum mismatch";
    ASSERT_TRUE(contains(what, expected)) << "byte " << at << ": " << what;
  }
}

TEST(SnapshotFormat, ForeignNewerAndLongerFilesAreRefused) {
  std::vector<std::byte> bytes = savedNBody();
  const auto decode = [](const std::vector<std::byte>& b) { return refusal([&] { decodeSnapshot(b, "s.gss"); }); };

  std::vector<std::byte> png = bytes;
  const unsigned char pngMagic[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  std::memcpy(png.data(), pngMagic, 8);
  EXPECT_TRUE(contains(decode(png), "s.gss: is not a graphsim snapshot")) << decode(png);

  std::vector<std::byte> newer = bytes;
  putU32(newer, 8, kSnapshotVersion + 1);
  EXPECT_TRUE(contains(decode(withChecksum(newer)), "format version 2 is newer than this graphsim reads (1)"))
      << decode(withChecksum(newer));
  std::vector<std::byte> older = bytes;
  putU32(older, 8, 0);
  EXPECT_TRUE(contains(decode(withChecksum(older)), "format version 0 is not one this graphsim reads"));

  std::vector<std::byte> longer = bytes;
  longer.push_back(std::byte{0});
  EXPECT_TRUE(contains(decode(longer), "1 bytes after the")) << decode(longer);
}

TEST(SnapshotFormat, ACountThatDoesNotMatchThePayloadIsRefused) {
  std::vector<std::byte> bytes = savedNBody();
  // The count is the i64 after the scene name: 20 + 4 + strlen("nbody"). A consistent checksum: only the count is off.
  const std::size_t countAt = 20 + 4 + 5;
  ASSERT_EQ(bytes[countAt], std::byte{128});
  bytes[countAt] = std::byte{100};
  const std::string what = refusal([&] { decodeSnapshot(withChecksum(bytes), "c.gss"); });
  EXPECT_TRUE(contains(what, "c.gss: count mismatch: the header's count is 100, but array 'posMass' holds 512 values"))
      << what;
}

// A header that passes the checksum but breaks the format's limits (a crafted file) is malformed, not trusted.
TEST(SnapshotFormat, AHeaderOverTheLimitsIsMalformed) {
  std::vector<std::byte> bytes = savedNBody();
  putU32(bytes, 20, 1000); // the scene name's length
  const std::string what = refusal([&] { decodeSnapshot(withChecksum(bytes), "m.gss"); });
  EXPECT_TRUE(contains(what, "m.gss: malformed header: the scene name is longer than the format's limit of 64 bytes"))
      << what;
}

// Issue 31: a checksummed NaN simulated time and a frame counter of 2^64 - 1 (whose resumed frames wrapped) loaded.
TEST(SnapshotFormat, ANonFiniteTimeAndAFrameCounterPastTheLimitAreMalformed) {
  const std::vector<std::byte> saved = savedNBody();
  const std::size_t frameAt = 24 + std::string("nbody").size() + 8, timeAt = frameAt + 8; // after name and count
  const auto put64 = [](std::vector<std::byte>& bytes, std::size_t at, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes[at + static_cast<std::size_t>(i)] = std::byte(v >> (8 * i));
  };
  std::vector<std::byte> nan = saved, wraps = saved;
  put64(nan, timeAt, std::bit_cast<std::uint64_t>(std::numeric_limits<double>::quiet_NaN()));
  put64(wraps, frameAt, std::numeric_limits<std::uint64_t>::max());
  std::string what = refusal([&] { decodeSnapshot(withChecksum(nan), "n.gss"); });
  EXPECT_TRUE(contains(what, "n.gss: malformed header: the simulated time is nan, not a finite number >= 0")) << what;
  what = refusal([&] { decodeSnapshot(withChecksum(wraps), "w.gss"); });
  EXPECT_TRUE(contains(what,
                       "w.gss: malformed header: the frame counter 18446744073709551615 is over the format's "
                       "limit of 4611686018427387904"))
      << what;
}

// ---- the scenes ----

class SnapshotResume : public ::testing::TestWithParam<const char*> {};

TEST_P(SnapshotResume, TenFramesSavedLoadedAndTenMoreEqualTwentyBitForBit) {
  const SceneSettings settings = smallSettings(GetParam());
  TempDir dir;

  // A: 20 frames in one run, with an edit after frame 4.
  const std::unique_ptr<SceneProducer> a = cpuProducer(settings);
  runFrames(*a, 0, 5);
  editMidRun(*a);
  runFrames(*a, 5, 15);
  const SceneState endA = a->saveState();

  // B: the first 10 frames (the same edit), saved to a file.
  const std::unique_ptr<SceneProducer> b = cpuProducer(settings);
  runFrames(*b, 0, 5);
  editMidRun(*b);
  runFrames(*b, 5, 5);
  const fs::path file = dir.path() / "half.gss";
  writeSnapshotFile(file, b->saveState());

  // C: a new run made from the file's settings (as --load-state does), loaded, 10 more frames numbered from 0.
  const SceneState half = readSnapshotFile(file);
  const SceneSettings resumed = settingsOfSnapshot(half);
  EXPECT_EQ(findScene(resumed.scene).count(resumed), findScene(settings.scene).count(settings));
  const std::unique_ptr<SceneProducer> c = cpuProducer(resumed);
  c->loadState(half);
  runFrames(*c, 0, 10);
  const SceneState endC = c->saveState();

  EXPECT_EQ(firstDifference(endA, endC), "");
  EXPECT_TRUE(encodeSnapshot(endA) == encodeSnapshot(endC)) << "the two runs' files differ";
  // And the state did move: 20 frames are not 10.
  EXPECT_NE(firstDifference(half, endC), "");
}

INSTANTIATE_TEST_SUITE_P(Scenes, SnapshotResume, ::testing::Values("nbody", "fluid"));

// A refused load leaves the run as it was: the same state, and the next frame the same as a run that never saw it.
void expectRefusedAndUnchanged(SceneProducer& run, SceneProducer& reference, const SceneState& bad,
                               const std::string& words) {
  const std::vector<std::byte> before = encodeSnapshot(run.saveState());
  const std::string what = refusal([&] { run.loadState(bad); });
  EXPECT_TRUE(contains(what, words)) << "expected \"" << words << "\" in: " << what;
  EXPECT_TRUE(encodeSnapshot(run.saveState()) == before) << "a refused load changed the state (" << words << ")";
  runFrames(run, 100, 1);
  runFrames(reference, 100, 1);
  EXPECT_EQ(firstDifference(run.saveState(), reference.saveState()), "") << words;
}

TEST(SnapshotLoad, MismatchedStatesAreRefusedBeforeAnythingChanges) {
  const SceneSettings nbody = smallSettings("nbody");
  const std::unique_ptr<SceneProducer> run = cpuProducer(nbody), reference = cpuProducer(nbody);
  runFrames(*run, 0, 3);
  runFrames(*reference, 0, 3);
  const SceneState good = run->saveState();

  const std::unique_ptr<SceneProducer> fluid = cpuProducer(smallSettings("fluid"));
  SceneState otherScene = fluid->saveState();
  otherScene.source = "--load-state f.gss";
  expectRefusedAndUnchanged(*run, *reference, otherScene,
                            "--load-state f.gss: holds a state of the fluid scene, but this run's scene is nbody");

  SceneSettings more = nbody;
  more.sim.bodies = 256;
  SceneState otherCount = cpuProducer(more)->saveState();
  expectRefusedAndUnchanged(*run, *reference, otherCount, "holds 256 bodies, but this run has 128");

  SceneState missing = good;
  missing.arrays.pop_back();
  expectRefusedAndUnchanged(*run, *reference, missing, "has no array 'accel'");

  SceneState unknown = good;
  unknown.arrays.push_back({"spin", 1, std::vector<float>(128)});
  expectRefusedAndUnchanged(*run, *reference, unknown, "array 'spin' this graphsim does not know");

  SceneState shape = good;
  shape.arrays[1].components = 2;
  shape.arrays[1].values.resize(256);
  expectRefusedAndUnchanged(*run, *reference, shape, "array 'vel' has 2 components per element, expected 4");

  SceneState settingsCount = good;
  settingsCount.settings.replace(settingsCount.settings.find("\"bodies\":128"), 12, "\"bodies\":127");
  expectRefusedAndUnchanged(*run, *reference, settingsCount,
                            "count mismatch: the header says 128 bodies, its settings 127");

  SceneState badSettings = good;
  badSettings.settings = R"({"scene":"nbody","bodies":128,"params":{"dt":-1}})";
  expectRefusedAndUnchanged(*run, *reference, badSettings, "params.dt must be in");

  SceneState substeps = good;
  substeps.settings.replace(substeps.settings.find("\"substeps\":1"), 12, "\"substeps\":2");
  expectRefusedAndUnchanged(*run, *reference, substeps, "holds a state of 2 substeps per frame, this run has 1");
}

TEST(SnapshotLoad, AFluidStateOfAnotherBoxIsRefused) {
  const SceneSettings settings = smallSettings("fluid");
  const std::unique_ptr<SceneProducer> run = cpuProducer(settings), reference = cpuProducer(settings);
  SceneSettings wide = settings;
  fluidConfig(wide).params.boxSize[0] = 2.0f;
  expectRefusedAndUnchanged(*run, *reference, cpuProducer(wide)->saveState(), "holds a state with another box");
}

TEST(SnapshotLoad, AnUnknownSceneIsNamed) {
  SceneState state = cpuProducer(smallSettings("nbody"))->saveState();
  state.scene = "plasma";
  state.source = "--load-state p.gss";
  const SceneState back = decodeSnapshot(encodeSnapshot(state), "--load-state p.gss");
  EXPECT_TRUE(contains(refusal([&] { settingsOfSnapshot(back); }),
                       "--load-state p.gss: holds a state of the scene 'plasma', which this graphsim does not have"));
}

TEST(SnapshotFile, MissingAndDirectoryPathsGetThePathMessages) {
  TempDir dir;
  EXPECT_EQ(refusal([&] { readSnapshotFile(dir.path() / "none.gss"); }),
            "--load-state " + (dir.path() / "none.gss").string() + ": no such file");
  EXPECT_TRUE(contains(refusal([&] { readSnapshotFile(dir.path()); }), "is a directory, expected a snapshot file"));
  const fs::path underFile = dir.path() / "file" / "x.gss";
  writeSnapshotFile(dir.path() / "file", cpuProducer(smallSettings("nbody"))->saveState());
  EXPECT_TRUE(contains(refusal([&] { readSnapshotFile(underFile); }), "is a file, not a directory"))
      << refusal([&] { readSnapshotFile(underFile); });
}

} // namespace
} // namespace graphsim::app
