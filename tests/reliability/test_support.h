// Small helpers shared by the reliability tests.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "compute/cuda_device.h"
#include "tests/cli/run_graphsim.h"

namespace graphsim::test {

// A fresh scratch directory per test under the build tree.
inline std::filesystem::path freshDir(const std::string& name) {
  const std::filesystem::path d = std::filesystem::path(GRAPHSIM_TEST_TMP) / name;
  std::error_code ec;
  std::filesystem::permissions(d, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
  std::filesystem::remove_all(d, ec);
  std::filesystem::create_directories(d);
  return d;
}

inline bool hasCudaDevice() { return !listCudaDevices().devices.empty(); }

// Polls until the file exists or the timeout passes.
inline bool waitForFile(const std::filesystem::path& path, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!std::filesystem::exists(path)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace graphsim::test

#define GRAPHSIM_REQUIRE_CUDA_DEVICE_FOR_CLI()                                                                         \
  do {                                                                                                                 \
    const ::graphsim::CudaDeviceList cudaDevicesForSkip_ = ::graphsim::listCudaDevices();                              \
    if (cudaDevicesForSkip_.devices.empty()) GTEST_SKIP() << "no CUDA device: " << cudaDevicesForSkip_.whyNone;        \
  } while (false)
