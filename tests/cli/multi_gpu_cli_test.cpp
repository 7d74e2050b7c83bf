// --gpus (issue 16, docs/MULTI-GPU.md): what the command line refuses before any GPU work, and the exit 3 for GPUs
// that are not there. The two-GPU runs themselves are GPU tests (tests/gpu/multi_gpu_test.cpp, scripts/multi-gpu.sh).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compute/cuda_device.h"
#include "run_graphsim.h"

namespace graphsim::test {
namespace {

struct BadGpus {
  std::vector<std::string> args;
  const char* says;
};

class GpusUsage : public ::testing::TestWithParam<BadGpus> {};

TEST_P(GpusUsage, ExitsTwoNamingTheFlag) {
  std::vector<std::string> args = GetParam().args;
  if (args.front() == "run") args.emplace_back("--headless");
  args.insert(args.end(), {"--frames", "1", "--quiet"});
  const ProcessResult r = runGraphsim(args);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find(GetParam().says), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Cli, GpusUsage,
    ::testing::Values(BadGpus{{"run", "--gpus", "0,x"}, "--gpus: expected CUDA device indices"},
                      BadGpus{{"run", "--gpus", ""}, "--gpus: expected CUDA device indices"},
                      BadGpus{{"run", "--gpus", "0,,1"}, "--gpus: expected CUDA device indices"},
                      BadGpus{{"run", "--gpus", "-1"}, "--gpus"},
                      BadGpus{{"run", "--gpus", "1,0,1"}, "GPU 1 is listed twice"},
                      BadGpus{{"run", "--gpus", "0,1", "--gpu", "0"}, "--gpu and --gpus: give one"},
                      BadGpus{{"run", "--gpus", "0,1", "--backend", "cpu"}, "--gpus: needs --backend cuda"},
                      BadGpus{{"soak", "--gpus", "0,1", "--backend", "cpu"}, "--gpus: needs --backend cuda"},
                      BadGpus{{"bench", "--gpus", "0,1", "--backend", "cpu"}, "--gpus: needs --backend cuda"}));

// Without a CUDA device, asking for GPUs is an environment problem (exit 3) that says what is missing; with one, a
// GPU index past the machine's is named.
TEST(Cli, GpusThatAreNotThereExitThree) {
  const CudaDeviceList cuda = listCudaDevices();
  const std::string past = std::to_string(cuda.devices.size() + 4);
  const ProcessResult r =
      runGraphsim({"run", "--backend", "cuda", "--gpus", "0," + past, "--headless", "--frames", "1", "--quiet"});
  EXPECT_EQ(r.exitCode, 3) << r.err;
  if (cuda.devices.empty()) {
    EXPECT_NE(r.err.find("CUDA"), std::string::npos) << r.err;
  } else {
    EXPECT_NE(r.err.find("no CUDA device " + past), std::string::npos) << r.err;
  }
}

TEST(Cli, GpusIsInEveryCudaCommandsHelp) {
  for (const char* command : {"run", "soak", "bench"}) {
    const ProcessResult r = runGraphsim({command, "--help"});
    EXPECT_EQ(r.exitCode, 0) << command;
    EXPECT_NE(r.out.find("--gpus LIST"), std::string::npos) << command << ": " << r.out;
  }
}

} // namespace
} // namespace graphsim::test
