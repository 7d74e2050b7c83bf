// `graphsim --version`: "graphsim <version> (git <short hash>[-dirty])", or "(git unknown)" outside a checkout. The
// binary's own line, and app/cli/version.cmake (which writes it at every build) on scratch trees: a clean and a
// changed git checkout, and a folder that is only part of another repository.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <system_error>

#include "run_graphsim.h"

namespace graphsim::test {
namespace {

namespace fs = std::filesystem;

const std::regex kCommit("[0-9a-f]{7,40}(-dirty)?|unknown");

std::string escaped(const std::string& literal) { return std::regex_replace(literal, std::regex(R"([.])"), R"(\.)"); }

// A fresh scratch folder per test (ctest runs the tests of this binary in parallel processes), removed after it.
class Scratch {
public:
  explicit Scratch(const std::string& name)
      : dir_(fs::path(GRAPHSIM_TEST_TMP) / "version" / (name + "." + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
    fs::remove(dir_.parent_path() / (dir_.filename().string() + ".version.h"), ignored);
  }
  const fs::path& dir() const { return dir_; }

private:
  fs::path dir_;
};

int shell(const std::string& command) { return std::system(command.c_str()); }

bool haveGit() { return shell("git --version >/dev/null 2>&1") == 0; }

// The script runs under the cmake that configured the build: not there when the tests run on another machine (the
// GPU machine gets the test binaries alone).
#define GRAPHSIM_REQUIRE_BUILD_TOOLS()                                                                                 \
  do {                                                                                                                 \
    if (!fs::exists(GRAPHSIM_CMAKE)) GTEST_SKIP() << GRAPHSIM_CMAKE << " is not on this machine";                      \
    if (!fs::exists(std::string(GRAPHSIM_SOURCE_DIR) + "/app/cli/version.cmake"))                                      \
      GTEST_SKIP() << "the source tree is not on this machine";                                                        \
  } while (false)

// The commit version.cmake finds for `source`: what goes between "(git " and ")".
std::string scriptCommit(const fs::path& source) {
  const fs::path out = source.parent_path() / (source.filename().string() + ".version.h");
  const std::string command = std::string("'") + GRAPHSIM_CMAKE + "' -DSOURCE_DIR='" + source.string() +
                              "' -DVERSION=1.2.3 -DIN='" + GRAPHSIM_SOURCE_DIR + "/app/cli/version.h.in' -DOUT='" +
                              out.string() + "' -P '" + GRAPHSIM_SOURCE_DIR + "/app/cli/version.cmake'";
  EXPECT_EQ(shell(command), 0) << command;
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  std::smatch m;
  const std::string header = text.str();
  if (!std::regex_search(header, m, std::regex(R"re(kVersionLine = "graphsim 1\.2\.3 \(git ([^)]*)\)")re"))) {
    ADD_FAILURE() << "no version line in " << out << ":\n" << header;
    return {};
  }
  return m[1];
}

TEST(Version, PrintsVersionAndCommit) {
  const ProcessResult r = runGraphsim({"--version"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::regex line("graphsim " + escaped(GRAPHSIM_PROJECT_VERSION) + R"( \(git ([^)]*)\)\n)");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(r.out, m, line)) << "got: " << r.out;
  const std::string commit = m[1];
  EXPECT_TRUE(std::regex_match(commit, kCommit)) << commit;
}

TEST(Version, CleanChangedAndNewCommit) {
  GRAPHSIM_REQUIRE_BUILD_TOOLS();
  if (!haveGit()) GTEST_SKIP() << "git is not installed";
  const Scratch scratch("checkout");
  const fs::path& repo = scratch.dir();
  const std::string git = "git -C '" + repo.string() + "' -c user.name=test -c user.email=test@example.invalid ";
  ASSERT_EQ(shell(git + "init -q && echo a > '" + repo.string() + "/file' && " + git + "add file && " + git +
                  "commit -q -m one"),
            0);
  const std::string clean = scriptCommit(repo);
  EXPECT_TRUE(std::regex_match(clean, std::regex("[0-9a-f]{7,40}"))) << clean;
  std::ofstream(repo / "untracked") << "x"; // untracked files do not make a tree dirty (as git describe --dirty)
  EXPECT_EQ(scriptCommit(repo), clean);
  std::ofstream(repo / "file") << "b";
  EXPECT_EQ(scriptCommit(repo), clean + "-dirty");
  ASSERT_EQ(shell(git + "commit -q -a -m two"), 0);
  const std::string next = scriptCommit(repo); // a new commit: a new hash, and clean again
  EXPECT_TRUE(std::regex_match(next, std::regex("[0-9a-f]{7,40}"))) << next;
  EXPECT_NE(next, clean);
}

TEST(Version, UnknownWhenNotTheTopOfACheckout) {
  GRAPHSIM_REQUIRE_BUILD_TOOLS();
  // The scratch folder lies in the build tree: outside any checkout, or inside graphsim's own (whose commit it is not).
  const Scratch scratch("plain");
  EXPECT_EQ(scriptCommit(scratch.dir()), "unknown");
}

} // namespace
} // namespace graphsim::test
