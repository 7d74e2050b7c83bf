// Snapshots on the command line (issue 15, docs/SNAPSHOTS.md), run as a user would: --save-state after the last
// frame, --load-state to resume, and the resumed run's file equal byte for byte to one run of the same total length,
// for both scenes on the CPU backend and, where a CUDA device exists, on the CUDA backend (issue 27). A truncated,
// corrupted, foreign, newer, miscounted or other-scene file and flags that contradict the file are refused with exit 2
// and a message naming what is wrong, before any frame runs.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

#include "compute/cuda_device.h"
#include "run_graphsim.h"

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// One directory per process (ctest runs the tests of this file in parallel, each in its own process), removed when
// the process ends.
fs::path processDir() { return fs::path(GRAPHSIM_TEST_TMP) / ("snapshots_" + std::to_string(::getpid())); }
struct RemoveProcessDir {
  ~RemoveProcessDir() {
    std::error_code ec;
    fs::remove_all(processDir(), ec);
  }
} removeProcessDir;

fs::path testDir() {
  fs::create_directories(processDir());
  return processDir();
}

std::vector<unsigned char> readBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeBytes(const fs::path& path, const std::vector<unsigned char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// The format's checksum (app/snapshot/snapshot_format.h): FNV-1a 64 of every byte before the last 8, little-endian.
std::vector<unsigned char> withChecksum(std::vector<unsigned char> bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i + 8 < bytes.size(); ++i) {
    h ^= bytes[i];
    h *= 0x100000001b3ull;
  }
  for (int i = 0; i < 8; ++i)
    bytes[bytes.size() - 8 + static_cast<std::size_t>(i)] = static_cast<unsigned char>(h >> (8 * i));
  return bytes;
}

std::vector<std::string> sceneRun(const std::string& scene, const std::string& backend, int frames) {
  return {"run",
          "--backend",
          backend,
          "--headless",
          "--scene",
          scene,
          scene == "nbody" ? "--bodies" : "--particles",
          scene == "nbody" ? "256" : "1000",
          "--frames",
          std::to_string(frames),
          "--quiet"};
}

ProcessResult run(std::vector<std::string> args, std::initializer_list<std::string> more) {
  args.insert(args.end(), more);
  return runGraphsim(args, 300);
}

// A small saved n-body state (64 bodies, 2 frames).
fs::path savedNBody(const std::string& name) {
  const fs::path file = testDir() / name;
  const ProcessResult r = runGraphsim({"run", "--backend", "cpu", "--headless", "--bodies", "64", "--frames", "2",
                                       "--quiet", "--save-state", file.string()},
                                      300);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  return file;
}

TEST(SnapshotCli, RunHelpNamesTheFlagsAndF5) {
  const ProcessResult r = runGraphsim({"run", "--help"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* part : {"--save-state", "--load-state", "F5 save state"})
    EXPECT_TRUE(contains(r.out, part)) << "run --help lacks " << part << ":\n" << r.out;
}

class SnapshotResumeCli : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(SnapshotResumeCli, TenFramesAndTenResumedEqualTwentyByteForByte) {
  const std::string scene = std::get<0>(GetParam()), backend = std::get<1>(GetParam());
  if (backend == "cuda") {
    const CudaDeviceList cuda = listCudaDevices();
    if (cuda.devices.empty()) GTEST_SKIP() << "the cuda variant needs a CUDA device: " << cuda.whyNone;
  }
  const fs::path dir = testDir();
  const std::string stem = scene + "_" + backend;
  const fs::path whole = dir / (stem + "_20.gss"), half = dir / (stem + "_10.gss"),
                 resumed = dir / (stem + "_10_10.gss");
  for (const fs::path& p : {whole, half, resumed}) fs::remove(p);

  const ProcessResult a = run(sceneRun(scene, backend, 20), {"--save-state", whole.string()});
  ASSERT_EQ(a.exitCode, 0) << a.err;
  const ProcessResult b = run(sceneRun(scene, backend, 10), {"--save-state", half.string()});
  ASSERT_EQ(b.exitCode, 0) << b.err;
  EXPECT_TRUE(contains(b.err, "graphsim: saved the " + scene + " state of ")) << b.err;
  // No --scene, no count and no --backend: all three come from the file (auto resumes on the backend that saved it).
  const ProcessResult c = runGraphsim({"run", "--headless", "--load-state", half.string(), "--frames", "10", "--quiet",
                                       "--save-state", resumed.string()},
                                      300);
  ASSERT_EQ(c.exitCode, 0) << c.err;
  EXPECT_TRUE(contains(c.err, "graphsim: resumed the " + scene + " state of ")) << c.err;
  EXPECT_TRUE(contains(c.err, " after frame 10, ")) << c.err;
  EXPECT_TRUE(contains(c.err, " after frame 20, ")) << "the header counts on from the loaded frame: " << c.err;

  const std::vector<unsigned char> twenty = readBytes(whole), tenAndTen = readBytes(resumed);
  ASSERT_GT(twenty.size(), 100u);
  EXPECT_TRUE(twenty == tenAndTen) << "the resumed run's state differs from the uninterrupted run's (" << twenty.size()
                                   << " vs " << tenAndTen.size() << " bytes)";
  EXPECT_FALSE(readBytes(half) == twenty) << "10 frames and 20 frames saved the same state";
}

INSTANTIATE_TEST_SUITE_P(ScenesAndBackends, SnapshotResumeCli,
                         ::testing::Combine(::testing::Values("nbody", "fluid"), ::testing::Values("cpu", "cuda")),
                         [](const auto& test) {
                           return std::string(std::get<0>(test.param)) + "_" + std::get<1>(test.param);
                         });

// A refused --load-state: exit 2, the words, and nothing run (the --save-state output is not written).
void expectRefused(const std::vector<std::string>& args, const std::string& words) {
  const fs::path out = testDir() / "refused_out.gss";
  fs::remove(out);
  std::vector<std::string> all = args;
  all.insert(all.end(), {"--headless", "--frames", "1", "--quiet", "--save-state", out.string()});
  const ProcessResult r = runGraphsim(all, 120);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, words)) << "expected \"" << words << "\" in: " << r.err;
  EXPECT_FALSE(fs::exists(out)) << "a refused load still ran and saved: " << r.err;
}

TEST(SnapshotCli, TruncatedCorruptedForeignNewerAndMiscountedFilesAreRefused) {
  const fs::path good = savedNBody("good.gss");
  const std::vector<unsigned char> bytes = readBytes(good);
  ASSERT_GT(bytes.size(), 1000u);
  const fs::path bad = testDir() / "bad.gss";
  const auto refused = [&](const std::vector<unsigned char>& file, const std::string& words) {
    writeBytes(bad, file);
    expectRefused({"run", "--load-state", bad.string()}, words);
  };

  refused({}, "is empty, not a graphsim snapshot");
  refused({bytes.begin(), bytes.begin() + 5}, "truncated: its 5 bytes end inside the magic");
  refused({bytes.begin(), bytes.begin() + 40},
          "truncated: 40 of the " + std::to_string(bytes.size()) + " bytes its header gives, cut inside the header");
  refused({bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(bytes.size() / 2)},
          "cut inside the payload (array '");
  refused({bytes.begin(), bytes.end() - 3}, "cut inside the checksum");

  std::vector<unsigned char> flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x01;
  refused(flipped, "corrupted: checksum mismatch");

  std::vector<unsigned char> foreign = bytes;
  foreign[1] = 'P';
  refused(foreign, "is not a graphsim snapshot");

  std::vector<unsigned char> newer = bytes;
  newer[8] = 2;
  refused(withChecksum(newer), "format version 2 is newer than this graphsim reads (1)");

  // The count (i64 after the magic, version, length and the scene name "nbody"), with a checksum that fits.
  std::vector<unsigned char> miscounted = bytes;
  ASSERT_EQ(miscounted[29], 64);
  miscounted[29] = 63;
  refused(withChecksum(miscounted), "count mismatch: the header's count is 63, but array 'posMass' holds 256 values");

  std::vector<unsigned char> longer = bytes;
  longer.push_back(0);
  refused(longer, "1 bytes after the");
}

TEST(SnapshotCli, MissingAndDirectoryPathsAreRefused) {
  expectRefused({"run", "--load-state", (testDir() / "no-such.gss").string()}, "no-such.gss: no such file");
  expectRefused({"run", "--load-state", testDir().string()}, "is a directory, expected a snapshot file");
  expectRefused({"run", "--load-state", ""}, "--load-state: empty path");
}

TEST(SnapshotCli, FlagsThatContradictTheFileAreRefused) {
  const std::string file = savedNBody("contradicted.gss").string();
  expectRefused({"run", "--load-state", file, "--scene", "fluid"},
                "--scene fluid contradicts --load-state " + file + ", which holds a state of the nbody scene");
  expectRefused({"run", "--load-state", file, "--bodies", "65"},
                "--bodies 65 contradicts --load-state " + file + ", which holds 64 bodies");
  expectRefused({"run", "--load-state", file, "--particles", "1000"}, "--particles: the nbody scene counts bodies");
  expectRefused({"run", "--load-state", file, "--config", file}, "--config: the scene's parameters come from");
  expectRefused({"run", "--load-state", file, "--seed", "7"}, "--seed: the state comes from");

  // What agrees with the file is fine.
  const ProcessResult same = runGraphsim(
      {"run", "--headless", "--load-state", file, "--scene", "nbody", "--bodies", "64", "--frames", "1", "--quiet"},
      300);
  EXPECT_EQ(same.exitCode, 0) << same.err;
}

TEST(SnapshotCli, AFluidFileIsRefusedForAnotherScene) {
  const fs::path file = testDir() / "fluid_small.gss";
  const ProcessResult r = run(sceneRun("fluid", "cpu", 1), {"--save-state", file.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  expectRefused({"run", "--load-state", file.string(), "--scene", "nbody"}, "which holds a state of the fluid scene");
  expectRefused({"run", "--load-state", file.string(), "--bodies", "1000"},
                "--bodies: the fluid scene counts particles");
}

TEST(SnapshotCli, SaveStatePathsAreCheckedBeforeTheRun) {
  const fs::path dir = testDir();
  const auto refusedSave = [](const std::vector<std::string>& more, const std::string& words) {
    std::vector<std::string> args = {"run", "--backend", "cpu", "--headless", "--bodies",
                                     "64",  "--frames",  "1",   "--quiet"};
    args.insert(args.end(), more.begin(), more.end());
    const ProcessResult r = runGraphsim(args, 120);
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_TRUE(contains(r.err, words)) << "expected \"" << words << "\" in: " << r.err;
  };
  refusedSave({"--save-state", dir.string()}, "--save-state " + dir.string() + ": is a directory");
  refusedSave({"--save-state", (dir / "missing" / "x.gss").string()}, "does not exist");
  refusedSave({"--save-state", (dir / "same.png").string(), "--capture", (dir / "same.png").string()},
              "name the same file");
}

} // namespace
} // namespace graphsim::test
