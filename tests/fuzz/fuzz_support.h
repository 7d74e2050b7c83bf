// What the fuzz targets of tests/fuzz share (issue 31): the input as a file for the path-based readers, the one
// exception an input may raise, and the small CPU producer a run would start with.
//
// Each target is one LLVMFuzzerTestOneInput. Built twice from the same sources (tests/fuzz/CMakeLists.txt): with
// libFuzzer (GRAPHSIM_FUZZ, scripts/fuzz.sh), and in every other build with replay_main.cpp, which runs the target's
// checked-in corpus as a ctest test. An input error is a UsageError (exit 2, app/main.cpp); any other exception
// escapes the target and aborts, as would a crash, a sanitizer report, a hang or a huge allocation: each is a bug.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>

#include "app/base/errors.h"
#include "app/scenes/scene.h"

namespace graphsim::fuzz {

// The bytes as a file: one memfd per process (memory, no name shared between parallel workers), rewritten per
// input and named /proc/self/fd/N, which stat() sees as a regular file of the input's size and ifstream reopens.
// The path stays the same for the process: messages that quote it are the same for every input.
const std::filesystem::path& inputFile(std::span<const std::uint8_t> bytes);

// Runs `body`; a UsageError (bad input, exit 2) is the expected way out, everything else propagates (a bug).
template <class Body>
void refusalsOnly(Body&& body) {
  try {
    body();
  } catch (const app::UsageError&) {
  }
}

// Runs of at most this many elements also make the CPU producer (compute only, no renderer) that a run of the
// settings starts with, and what the run does with it before its first frame (a snapshot's loadState, a replay's
// recorded controls): larger ones would make an execution slow, not find more.
inline constexpr std::int64_t kMaxProducerCount = 256;

// The CPU producer for `settings` (no renderer: the simulation alone), or nullptr when the count or the capacity
// of its buffers is over kMaxProducerCount / the scene's default capacity.
std::unique_ptr<app::SceneProducer> makeSmallCpuProducer(const app::SceneSettings& settings);

} // namespace graphsim::fuzz
