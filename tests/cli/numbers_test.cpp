// Number flags of run and soak, and --interop, run as a user would: a value out of range, negative where that is not
// allowed, fractional or not a number exits 2 with one line that repeats the text as typed (CLI11 2.1 used to answer
// "got 9223372036854775807" for 99999999999999999999). bench's number flags: bench_cli_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "run_graphsim.h"

namespace graphsim::test {
namespace {

struct TypedNumber {
  const char* name;
  std::vector<std::string> args;
  const char* message; // the whole message after "graphsim: error: "
};

void PrintTo(const TypedNumber& c, std::ostream* os) { *os << c.name; }

class NumbersAsTyped : public ::testing::TestWithParam<TypedNumber> {};

TEST_P(NumbersAsTyped, ExitTwoQuotingTheText) {
  const TypedNumber& c = GetParam();
  const ProcessResult r = runGraphsim(c.args, 60);
  ASSERT_FALSE(r.timedOut) << "hung";
  ASSERT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_EQ(r.err, std::string("graphsim: error: ") + c.message + "\n");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

const char* const kSeedRange = "0..18446744073709551615";

std::vector<TypedNumber> typedNumbers() {
  const std::string seed = kSeedRange;
  static const std::vector<std::string> messages = {
      "--seed: must be " + seed + ", got -1",
      "--seed: must be " + seed + ", got 18446744073709551616",
      "--seed: must be a whole number " + seed + ", got 1e5",
      "--seed: must be " + seed + ", got -3",
  };
  return {
      {"run_frames_huge",
       {"run", "--frames", "99999999999999999999"},
       "--frames: must be 0..1000000000000, got 99999999999999999999"},
      {"run_frames_just_over",
       {"run", "--frames", "1000000000001"},
       "--frames: must be 0..1000000000000, got 1000000000001"},
      {"run_frames_negative", {"run", "--frames", "-1"}, "--frames: must be 0..1000000000000, got -1"},
      {"run_frames_hugely_negative",
       {"run", "--frames", "-99999999999999999999"},
       "--frames: must be 0..1000000000000, got -99999999999999999999"},
      {"run_frames_fraction", {"run", "--frames", "2.5"}, "--frames: must be a whole number 0..1000000000000, got 2.5"},
      {"run_frames_garbage",
       {"run", "--frames", "lots"},
       "--frames: must be a whole number 0..1000000000000, got lots"},
      {"run_frames_trailing_garbage",
       {"run", "--frames", "10x"},
       "--frames: must be a whole number 0..1000000000000, got 10x"},
      {"run_frames_hex", {"run", "--frames", "0x10"}, "--frames: must be a whole number 0..1000000000000, got 0x10"},
      {"run_frames_empty",
       {"run", "--frames", ""},
       "--frames: must be a whole number 0..1000000000000, got an empty value"},
      {"run_bodies_huge",
       {"run", "--bodies", "99999999999999999999999"},
       "--bodies: must be 1..16777216, got 99999999999999999999999"},
      {"run_bodies_zero", {"run", "--bodies", "0"}, "--bodies: must be 1..16777216, got 0"},
      {"run_bodies_negative", {"run", "--bodies", "-5"}, "--bodies: must be 1..16777216, got -5"},
      {"run_bodies_fraction", {"run", "--bodies", "1.5"}, "--bodies: must be a whole number 1..16777216, got 1.5"},
      {"run_seed_negative", {"run", "--seed", "-1"}, messages[0].c_str()},
      {"run_seed_over_64_bits", {"run", "--seed", "18446744073709551616"}, messages[1].c_str()},
      {"run_seed_exponent", {"run", "--seed", "1e5"}, messages[2].c_str()},
      {"run_gpu_huge", {"run", "--gpu", "99999999999"}, "--gpu: must be 0..2147483647, got 99999999999"},
      {"run_gpu_negative", {"run", "--gpu", "-1"}, "--gpu: must be 0..2147483647, got -1"},
      {"run_frames_in_flight", {"run", "--frames-in-flight", "9"}, "--frames-in-flight: must be 1..4, got 9"},
      {"run_frames_in_flight_fraction",
       {"run", "--frames-in-flight", "2.0"},
       "--frames-in-flight: must be a whole number 1..4, got 2.0"},
      {"run_wait_timeout_huge",
       {"run", "--wait-timeout-ms", "99999999999999999999"},
       "--wait-timeout-ms: must be 1..600000, got 99999999999999999999"},
      {"run_wait_timeout_negative", {"run", "--wait-timeout-ms", "-5"}, "--wait-timeout-ms: must be 1..600000, got -5"},
      {"run_capture_every_huge",
       {"run", "--capture-every", "99999999999999999999"},
       "--capture-every: must be 1..1000000000000, got 99999999999999999999"},
      {"run_capture_every_garbage",
       {"run", "--capture-every", "often"},
       "--capture-every: must be a whole number 1..1000000000000, got often"},
      {"soak_frames_huge",
       {"soak", "--frames", "99999999999999999999"},
       "--frames: must be 1..1000000000000, got 99999999999999999999"},
      {"soak_frames_zero", {"soak", "--frames", "0"}, "--frames: must be 1..1000000000000, got 0"},
      {"soak_bodies_one", {"soak", "--bodies", "1"}, "--bodies: must be 2..16777216, got 1"},
      {"soak_bodies_fraction", {"soak", "--bodies", "64.5"}, "--bodies: must be a whole number 2..16777216, got 64.5"},
      {"soak_seed_negative", {"soak", "--seed", "-3"}, messages[3].c_str()},
      {"soak_checkpoint_every_one",
       {"soak", "--checkpoint-every", "1"},
       "--checkpoint-every: must be 2..1000000000000, got 1"},
      {"soak_checkpoint_every_huge",
       {"soak", "--checkpoint-every", "99999999999999999999"},
       "--checkpoint-every: must be 2..1000000000000, got 99999999999999999999"},
      {"soak_gpu_garbage", {"soak", "--gpu", "first"}, "--gpu: must be a whole number 0..2147483647, got first"},
      {"soak_wait_timeout_zero", {"soak", "--wait-timeout-ms", "0"}, "--wait-timeout-ms: must be 1..600000, got 0"},
      {"run_interop_unknown",
       {"run", "--interop", "maybe"},
       "--interop: unknown mode 'maybe' (allowed: auto, on, off)"},
      {"run_interop_case", {"run", "--interop", "ON"}, "--interop: unknown mode 'ON' (allowed: auto, on, off)"},
      {"soak_interop_unknown",
       {"soak", "--interop", "maybe"},
       "--interop: unknown mode 'maybe' (allowed: auto, on, off)"},
      {"bench_interop_unknown",
       {"bench", "--backend", "cpu", "--interop", "maybe"},
       "--interop: unknown mode 'maybe' (allowed: auto, on, off)"},
  };
}

INSTANTIATE_TEST_SUITE_P(Table, NumbersAsTyped, ::testing::ValuesIn(typedNumbers()),
                         [](const auto& p) { return std::string(p.param.name); });

TEST(Numbers, LongTextIsClippedToOneShortLine) {
  const std::string typed = std::string(5000, '9');
  const ProcessResult r = runGraphsim({"run", "--frames", typed}, 60);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("--frames: must be 0..1000000000000, got " + std::string(64, '9') + "... (5000 characters)"),
            std::string::npos)
      << r.err;
  EXPECT_LT(r.err.size(), 200u);
}

TEST(Numbers, ValuesInRangeAreAccepted) {
  // A plus sign and leading zeros are still the number typed; the seed takes all 64 bits.
  const ProcessResult r = runGraphsim({"run", "--headless", "--backend", "cpu", "--bodies", "+064", "--frames", "2",
                                       "--seed", "18446744073709551615", "--frames-in-flight", "04", "--quiet"});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("2 frames of 64 bodies"), std::string::npos) << r.err;
}

// Each accepted --interop value gets past the flag: the error that follows is the next flag's (cheap: no run).
TEST(Numbers, InteropAcceptsAutoOnOff) {
  for (const char* sub : {"run", "soak"}) {
    for (const char* mode : {"auto", "on", "off"}) {
      const ProcessResult r = runGraphsim({sub, "--interop", mode, "--frames", "-1"}, 60);
      EXPECT_EQ(r.exitCode, 2) << sub << " " << mode << ": " << r.err;
      EXPECT_EQ(r.err.find("--interop"), std::string::npos) << sub << " " << mode << ": " << r.err;
      EXPECT_NE(r.err.find("--frames"), std::string::npos) << sub << " " << mode << ": " << r.err;
    }
  }
  for (const char* mode : {"auto", "on", "off"}) {
    const ProcessResult r = runGraphsim({"bench", "--backend", "cpu", "--interop", mode, "--frames", "0"}, 60);
    EXPECT_EQ(r.exitCode, 2) << mode << ": " << r.err;
    EXPECT_NE(r.err.find("--frames"), std::string::npos) << mode << ": " << r.err;
  }
}

TEST(Numbers, HelpDescribesInterop) {
  for (const char* sub : {"run", "bench", "soak"}) {
    const ProcessResult r = runGraphsim({sub, "--help"});
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_NE(r.out.find("--interop"), std::string::npos) << sub;
    EXPECT_NE(r.out.find("auto | on | off"), std::string::npos) << sub;
  }
}

} // namespace
} // namespace graphsim::test
