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
  std::string name;
  std::vector<std::string> args;
  std::string message; // the whole message after "graphsim: error: "
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

// The last two arguments are the flag and its text. A number out of range: "FLAG: must be RANGE, got TEXT".
TypedNumber outOfRange(const char* name, const std::vector<std::string>& args, const std::string& range) {
  const std::string& flag = args[args.size() - 2];
  return {name, args, flag + ": must be " + range + ", got " + args.back()};
}

// Not a whole number (a fraction, an exponent, letters): "FLAG: must be a whole number RANGE, got TEXT".
TypedNumber notWhole(const char* name, const std::vector<std::string>& args, const std::string& range) {
  const std::string& flag = args[args.size() - 2];
  return {name, args, flag + ": must be a whole number " + range + ", got " + args.back()};
}

std::vector<TypedNumber> typedNumbers() {
  // Each flag's range as the message states it.
  const std::string runFrames = "0..1000000000000", soakFrames = "1..1000000000000";
  const std::string runBodies = "1..16777216", soakBodies = "2..16777216", framesInFlight = "1..4";
  const std::string seed = "0..18446744073709551615", gpu = "0..2147483647", timeout = "1..600000";
  const std::string captureEvery = "1..1000000000000", checkpointEvery = "2..1000000000000";
  const std::string unknownInterop = "--interop: unknown mode 'maybe' (allowed: auto, on, off)";
  return {
      outOfRange("run_frames_huge", {"run", "--frames", "99999999999999999999"}, runFrames),
      outOfRange("run_frames_just_over", {"run", "--frames", "1000000000001"}, runFrames),
      outOfRange("run_frames_negative", {"run", "--frames", "-1"}, runFrames),
      outOfRange("run_frames_hugely_negative", {"run", "--frames", "-99999999999999999999"}, runFrames),
      notWhole("run_frames_fraction", {"run", "--frames", "2.5"}, runFrames),
      notWhole("run_frames_garbage", {"run", "--frames", "lots"}, runFrames),
      notWhole("run_frames_trailing_garbage", {"run", "--frames", "10x"}, runFrames),
      notWhole("run_frames_hex", {"run", "--frames", "0x10"}, runFrames),
      {"run_frames_empty",
       {"run", "--frames", ""},
       "--frames: must be a whole number 0..1000000000000, got an empty value"},
      outOfRange("run_bodies_huge", {"run", "--bodies", "99999999999999999999999"}, runBodies),
      outOfRange("run_bodies_zero", {"run", "--bodies", "0"}, runBodies),
      outOfRange("run_bodies_negative", {"run", "--bodies", "-5"}, runBodies),
      notWhole("run_bodies_fraction", {"run", "--bodies", "1.5"}, runBodies),
      outOfRange("run_seed_negative", {"run", "--seed", "-1"}, seed),
      outOfRange("run_seed_over_64_bits", {"run", "--seed", "18446744073709551616"}, seed),
      notWhole("run_seed_exponent", {"run", "--seed", "1e5"}, seed),
      outOfRange("run_gpu_huge", {"run", "--gpu", "99999999999"}, gpu),
      outOfRange("run_gpu_negative", {"run", "--gpu", "-1"}, gpu),
      outOfRange("run_frames_in_flight", {"run", "--frames-in-flight", "9"}, framesInFlight),
      notWhole("run_frames_in_flight_fraction", {"run", "--frames-in-flight", "2.0"}, framesInFlight),
      outOfRange("run_wait_timeout_huge", {"run", "--wait-timeout-ms", "99999999999999999999"}, timeout),
      outOfRange("run_wait_timeout_negative", {"run", "--wait-timeout-ms", "-5"}, timeout),
      outOfRange("run_capture_every_huge", {"run", "--capture-every", "99999999999999999999"}, captureEvery),
      notWhole("run_capture_every_garbage", {"run", "--capture-every", "often"}, captureEvery),
      outOfRange("soak_frames_huge", {"soak", "--frames", "99999999999999999999"}, soakFrames),
      outOfRange("soak_frames_zero", {"soak", "--frames", "0"}, soakFrames),
      outOfRange("soak_bodies_one", {"soak", "--bodies", "1"}, soakBodies),
      notWhole("soak_bodies_fraction", {"soak", "--bodies", "64.5"}, soakBodies),
      outOfRange("soak_seed_negative", {"soak", "--seed", "-3"}, seed),
      outOfRange("soak_checkpoint_every_one", {"soak", "--checkpoint-every", "1"}, checkpointEvery),
      outOfRange("soak_checkpoint_every_huge", {"soak", "--checkpoint-every", "99999999999999999999"}, checkpointEvery),
      notWhole("soak_gpu_garbage", {"soak", "--gpu", "first"}, gpu),
      outOfRange("soak_wait_timeout_zero", {"soak", "--wait-timeout-ms", "0"}, timeout),
      {"run_interop_unknown", {"run", "--interop", "maybe"}, unknownInterop},
      {"run_interop_case", {"run", "--interop", "ON"}, "--interop: unknown mode 'ON' (allowed: auto, on, off)"},
      {"soak_interop_unknown", {"soak", "--interop", "maybe"}, unknownInterop},
      {"bench_interop_unknown", {"bench", "--backend", "cpu", "--interop", "maybe"}, unknownInterop},
  };
}

INSTANTIATE_TEST_SUITE_P(Table, NumbersAsTyped, ::testing::ValuesIn(typedNumbers()),
                         [](const auto& p) { return p.param.name; });

TEST(Numbers, LongTextIsClippedToOneShortLine) {
  const std::string typed = std::string(5000, '9');
  const ProcessResult r = runGraphsim({"run", "--frames", typed}, 60);
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_NE(r.err.find("--frames: must be 0..1000000000000, got " + std::string(77, '9') + "... (5000 characters)"),
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
