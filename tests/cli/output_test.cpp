// The output writer (app/io/output_file.h) under the failures a user meets: a full device, a full file system, a
// directory or a missing directory at the path, a FIFO with and without a reader. Once at the unit level, then for
// every output kind the app writes (run --capture PNG, bench --json, --csv, --frame-log), as a user would run it.
//
// Never /dev/full itself: as root a rename over it would replace the machine's device. A node of the same device
// (char 1:7) in a scratch directory stands in; the tests that need mknod or a tmpfs mount skip, with the reason,
// where the process may not do either.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/io/output_file.h"
#include "run_graphsim.h"

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A directory of this test's own (ctest runs tests in parallel), emptied first. A tmpfs an earlier, killed run left
// mounted in it is detached before the directory is removed.
fs::path scratch() {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(test->test_suite_name()) + "." + test->name();
  for (char& c : name) c = c == '/' ? '_' : c;
  const fs::path dir = fs::path(GRAPHSIM_TEST_TMP) / "output" / name;
  ::umount2((dir / "fs").c_str(), MNT_DETACH);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeFile(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

// Every name in dir: after a failed write, only what was there before may remain (no temporary).
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A character device node for /dev/full's device at path, or the reason there cannot be one here.
std::string makeFullDevice(const fs::path& path) {
  if (::mknod(path.c_str(), S_IFCHR | 0666, ::makedev(1, 7)) != 0) {
    return std::string("mknod of a /dev/full node failed: ") + std::strerror(errno) + " (needs root)";
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return std::string("a device node cannot be opened here: ") + std::strerror(errno) + " (nodev mount?)";
  ::close(fd);
  return {};
}

// A 64 KiB tmpfs at dir/fs, detached when this goes out of scope.
class SmallTmpfs {
public:
  explicit SmallTmpfs(const fs::path& parent) : dir_(parent / "fs") {
    fs::create_directories(dir_);
    if (::mount("tmpfs", dir_.c_str(), "tmpfs", 0, "size=64k") != 0) {
      whyNot_ = std::string("cannot mount a tmpfs: ") + std::strerror(errno) + " (needs root or CAP_SYS_ADMIN)";
    }
  }
  ~SmallTmpfs() {
    if (whyNot_.empty()) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  SmallTmpfs(const SmallTmpfs&) = delete;
  SmallTmpfs& operator=(const SmallTmpfs&) = delete;

  const std::string& whyNot() const { return whyNot_; }
  const fs::path& dir() const { return dir_; }
  // Fills the file system with dir/filler until the kernel says ENOSPC, then gives back `room` bytes.
  void fill(off_t room) const {
    const fs::path filler = dir_ / "filler";
    const int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0) << std::strerror(errno);
    const std::vector<char> page(4096, 'f');
    off_t size = 0;
    for (ssize_t n; (n = ::write(fd, page.data(), page.size())) > 0;) size += n;
    EXPECT_EQ(errno, ENOSPC);
    EXPECT_EQ(::ftruncate(fd, size > room ? size - room : 0), 0);
    ::close(fd);
  }

private:
  fs::path dir_;
  std::string whyNot_;
};

// Reads a FIFO until its writer closes it, on a thread. The read end is opened before the writer runs (non-blocking:
// a FIFO open for reading blocks until a writer comes, and the writer refuses a FIFO nobody has open for reading).
class FifoReader {
public:
  explicit FifoReader(const fs::path& fifo) : fd_(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)) {
    if (fd_ >= 0) thread_ = std::thread([this] { readUntilWriterCloses(); });
  }
  ~FifoReader() {
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }
  FifoReader(const FifoReader&) = delete;
  FifoReader& operator=(const FifoReader&) = delete;

  bool opened() const { return fd_ >= 0; }
  std::string bytes() {
    if (thread_.joinable()) thread_.join();
    return bytes_;
  }

private:
  void readUntilWriterCloses() {
    // Until a writer has come, poll() does not report the FIFO ready (no POLLHUP for a writer that never was); once
    // ready, a read of 0 bytes is the writer's close.
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (Clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char buffer[4096];
      const ssize_t n = ::read(fd_, buffer, sizeof buffer);
      if (n == 0) return;
      if (n > 0) bytes_.append(buffer, static_cast<std::size_t>(n));
    }
  }
  int fd_;
  std::string bytes_;
  std::thread thread_;
};

std::string outputErrorOf(const fs::path& path, const std::string& bytes) {
  try {
    app::writeOutput(path, bytes);
  } catch (const app::OutputError& e) {
    return e.what();
  }
  return "no error";
}

// --- the writer itself ------------------------------------------------------------------------------------------

TEST(WriteOutput, ReplacesAFileLeavingNoTemporary) {
  const fs::path dir = scratch();
  app::writeOutput(dir / "out.txt", std::string_view("first"));
  app::writeOutput(dir / "out.txt", std::string_view("second, longer"));
  EXPECT_EQ(readFile(dir / "out.txt"), "second, longer");
  EXPECT_EQ(listing(dir), std::vector<std::string>{"out.txt"});
}

TEST(WriteOutput, NameAtTheLengthLimitStillWrites) { // `.<name>.tmp<pid>` would pass NAME_MAX: a shorter temporary
  const fs::path dir = scratch();
  const std::string name(250, 'n');
  app::writeOutput(dir / name, std::string_view("long"));
  EXPECT_EQ(readFile(dir / name), "long");
  EXPECT_EQ(listing(dir), std::vector<std::string>{name});
}

TEST(WriteOutput, SymlinkToAFileKeepsTheLink) {
  const fs::path dir = scratch();
  writeFile(dir / "target.txt", "old");
  fs::create_symlink("target.txt", dir / "link.txt");
  app::writeOutput(dir / "link.txt", std::string_view("new"));
  EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
  EXPECT_EQ(readFile(dir / "target.txt"), "new");
}

TEST(WriteOutput, FullDeviceFailsWithNoSpace) {
  const fs::path dir = scratch();
  if (const std::string why = makeFullDevice(dir / "full"); !why.empty()) GTEST_SKIP() << why;
  EXPECT_EQ(outputErrorOf(dir / "full", "bytes"), (dir / "full").string() + ": No space left on device");
  EXPECT_TRUE(fs::is_character_file(dir / "full")) << "the device node must not be replaced";
}

TEST(WriteOutput, FullFileSystemKeepsTheEarlierFileAndNoTemporary) {
  const fs::path dir = scratch();
  const SmallTmpfs tmpfs(dir);
  if (!tmpfs.whyNot().empty()) GTEST_SKIP() << tmpfs.whyNot();
  const fs::path path = tmpfs.dir() / "out.bin";
  writeFile(path, "earlier output");
  tmpfs.fill(4096); // one page of room, so the write below fails part-way, not on its first byte
  EXPECT_EQ(outputErrorOf(path, std::string(64 * 1024, 'x')), path.string() + ": No space left on device");
  EXPECT_EQ(readFile(path), "earlier output");
  EXPECT_EQ(listing(tmpfs.dir()), (std::vector<std::string>{"filler", "out.bin"}));
}

TEST(WriteOutput, DirectoryAndMissingDirectoryAreNamed) {
  const fs::path dir = scratch();
  fs::create_directory(dir / "sub");
  EXPECT_EQ(outputErrorOf(dir / "sub", "x"), (dir / "sub").string() + ": is a directory");
  EXPECT_EQ(outputErrorOf(dir / "missing" / "out.txt", "x"),
            (dir / "missing" / "out.txt").string() + ": directory " + (dir / "missing").string() + " does not exist");
  EXPECT_EQ(listing(dir), std::vector<std::string>{"sub"});
  EXPECT_TRUE(fs::is_empty(dir / "sub"));
}

TEST(WriteOutput, FifoWithoutReaderFailsAtOnce) {
  const fs::path fifo = scratch() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0) << std::strerror(errno);
  const auto start = Clock::now();
  EXPECT_EQ(outputErrorOf(fifo, "bytes"), fifo.string() + ": FIFO has no reader");
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(500));
}

TEST(WriteOutput, FifoWithReaderReceivesTheBytes) {
  const fs::path fifo = scratch() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0) << std::strerror(errno);
  FifoReader reader(fifo);
  ASSERT_TRUE(reader.opened()) << std::strerror(errno);
  const std::string bytes(200 * 1024, 'b'); // more than a pipe holds: the writer waits for the reader
  app::writeOutput(fifo, bytes);
  EXPECT_EQ(reader.bytes(), bytes);
}

TEST(WriteOutput, FifoReaderLeavingIsAnErrorNotSigpipe) {
  const fs::path fifo = scratch() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0) << std::strerror(errno);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0) << std::strerror(errno);
  std::thread leaver([reader] { // reads nothing; leaves once the writer has filled the pipe
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ::close(reader);
  });
  const std::string error = outputErrorOf(fifo, std::string(1024 * 1024, 'b'));
  leaver.join();
  EXPECT_EQ(error, fifo.string() + ": the reader went away (Broken pipe)");
}

// --- every output kind, through the graphsim binary --------------------------------------------------------------

struct OutputKind {
  const char* name;
  const char* file; // run --capture insists on .png
  std::vector<std::string> (*args)(const std::string& path);
  const char* startsWith; // what a complete output of this kind begins with
};

void PrintTo(const OutputKind& kind, std::ostream* out) { *out << kind.name; } // ctest names: "GetParam() = json"

std::vector<std::string> benchArgs(const char* flag, const std::string& path) {
  return {"bench",    "--backend", "cpu",        "--bodies", "64", "--frames", "3",
          "--warmup", "0",         "--variants", "none",     flag, path};
}

const OutputKind kKinds[] = {
    {"png", "out.png",
     [](const std::string& p) {
       return std::vector<std::string>{"run", "--headless", "--backend", "cpu",       "--bodies",
                                       "64",  "--frames",   "2",         "--capture", p};
     },
     "\x89PNG\r\n\x1a\n"},
    {"json", "out.json", [](const std::string& p) { return benchArgs("--json", p); }, "{"},
    {"csv", "out.csv", [](const std::string& p) { return benchArgs("--csv", p); }, "variant,status,"},
    {"frame_log", "frames.csv", [](const std::string& p) { return benchArgs("--frame-log", p); }, "variant,frame,"},
};

class OutputKindTest : public ::testing::TestWithParam<OutputKind> {
protected:
  ProcessResult run(const fs::path& path) const { return runGraphsim(GetParam().args(path.string()), 60); }
  void expectOutputError(const ProcessResult& r, const fs::path& path, const std::string& reason) const {
    ASSERT_FALSE(r.timedOut) << "hung:\n" << r.err;
    EXPECT_EQ(r.exitCode, 1) << r.err;
    EXPECT_TRUE(contains(r.err, "graphsim: cannot write output: " + path.string() + ": " + reason)) << r.err;
  }
};

TEST_P(OutputKindTest, FullDeviceExitsOne) {
  const fs::path dir = scratch();
  const fs::path path = dir / GetParam().file;
  if (const std::string why = makeFullDevice(path); !why.empty()) GTEST_SKIP() << why;
  expectOutputError(run(path), path, "No space left on device");
  EXPECT_TRUE(fs::is_character_file(path));
}

TEST_P(OutputKindTest, FullFileSystemExitsOneKeepingTheEarlierFile) {
  const fs::path dir = scratch();
  const SmallTmpfs tmpfs(dir);
  if (!tmpfs.whyNot().empty()) GTEST_SKIP() << tmpfs.whyNot();
  const fs::path path = tmpfs.dir() / GetParam().file;
  writeFile(path, "earlier output");
  tmpfs.fill(0);
  expectOutputError(run(path), path, "No space left on device");
  EXPECT_EQ(readFile(path), "earlier output");
  EXPECT_EQ(listing(tmpfs.dir()), (std::vector<std::string>{"filler", GetParam().file}));
}

// Both are caught before the run starts (exit 2, usage), so a typo does not cost a whole run.
TEST_P(OutputKindTest, DirectoryIsRefusedUpFront) {
  const fs::path path = scratch() / GetParam().file;
  fs::create_directory(path);
  const ProcessResult r = run(path);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, path.string() + ": is a directory")) << r.err;
  EXPECT_TRUE(fs::is_empty(path));
}

TEST_P(OutputKindTest, MissingDirectoryIsRefusedUpFront) {
  const fs::path dir = scratch() / "missing";
  const ProcessResult r = run(dir / GetParam().file);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "directory " + dir.string() + " does not exist")) << r.err;
  EXPECT_FALSE(fs::exists(dir));
}

TEST_P(OutputKindTest, FifoWithoutReaderExitsOne) {
  const fs::path path = scratch() / GetParam().file;
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0) << std::strerror(errno);
  expectOutputError(run(path), path, "FIFO has no reader"); // a writer waiting for a reader would time out
}

TEST_P(OutputKindTest, FifoWithReaderReceivesTheOutput) {
  const fs::path path = scratch() / GetParam().file;
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0) << std::strerror(errno);
  FifoReader reader(path);
  ASSERT_TRUE(reader.opened()) << std::strerror(errno);
  const ProcessResult r = run(path);
  ASSERT_FALSE(r.timedOut) << r.err;
  EXPECT_EQ(r.exitCode, 0) << r.err;
  const std::string bytes = reader.bytes();
  EXPECT_EQ(bytes.rfind(GetParam().startsWith, 0), 0u) << "begins with: " << bytes.substr(0, 40);
  if (std::string(GetParam().name) == "json") {
    EXPECT_FALSE(nlohmann::json::parse(bytes, nullptr, false).is_discarded()) << "incomplete JSON";
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, OutputKindTest, ::testing::ValuesIn(kKinds),
                         [](const ::testing::TestParamInfo<OutputKind>& kind) { return kind.param.name; });

} // namespace
} // namespace graphsim::test
