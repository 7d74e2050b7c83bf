// Rank 0's commands to the other ranks of a job of one process per GPU (compute/nbody/rank_commands.h): a reset's
// numbers survive the trip and keep each rank's own strings, the fingerprint tells configurations apart, a long list
// splits over messages in order, and a message that is not the one due (another sequence, not a rank message, a
// count beyond it, an unknown kind or stage) is refused with a line saying why.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/nbody/rank_commands.h"

namespace graphsim {
namespace {

NBodyConfig sampleConfig() {
  NBodyConfig c;
  c.initial = "plummer";
  c.bodies = 12345;
  c.maxBodies = 20000;
  c.seed = 7;
  c.substeps = 3;
  c.diagnosticsEvery = 10;
  c.params.dt = 0.002f;
  c.params.attractorPos[1] = 0.5f;
  c.enabled[static_cast<int>(NBodyStage::Attractor)] = true;
  return c;
}

TEST(RankCommands, ResetCarriesTheNumbersAndKeepsTheRanksOwnStrings) {
  const NBodyConfig sent = sampleConfig();
  NBodyConfig mine; // this rank's own scene and initial conditions, other numbers
  mine.initial = "plummer";
  const NBodyConfig got = configAfter(mine, resetCommand(sent));
  EXPECT_EQ(got.initial, "plummer");
  EXPECT_EQ(got.bodies, sent.bodies);
  EXPECT_EQ(got.maxBodies, sent.maxBodies);
  EXPECT_EQ(got.seed, sent.seed);
  EXPECT_EQ(got.substeps, sent.substeps);
  EXPECT_EQ(got.diagnosticsEvery, sent.diagnosticsEvery);
  EXPECT_TRUE(got.params == sent.params);
  EXPECT_EQ(got.enabled, sent.enabled);
  EXPECT_EQ(configFingerprint(got), configFingerprint(sent));
}

TEST(RankCommands, FingerprintTellsConfigurationsApart) {
  const NBodyConfig base = sampleConfig();
  const std::uint64_t f = configFingerprint(base);
  EXPECT_EQ(f, configFingerprint(sampleConfig())); // a pure function of the configuration
  NBodyConfig c = base;
  c.initial = "galaxy-pair";
  EXPECT_NE(configFingerprint(c), f);
  c = base;
  c.seed = 8;
  EXPECT_NE(configFingerprint(c), f);
  c = base;
  c.bodies += 1;
  EXPECT_NE(configFingerprint(c), f);
  c = base;
  c.params.softening *= 1.0001f;
  EXPECT_NE(configFingerprint(c), f);
  c = base;
  c.enabled[static_cast<int>(NBodyStage::Damping)] = !c.enabled[static_cast<int>(NBodyStage::Damping)];
  EXPECT_NE(configFingerprint(c), f);
}

TEST(RankCommands, ALongListGoesAsSeveralMessagesInOrder) {
  ASSERT_GE(kCommandsPerMessage, 8u) << "a frame's usual commands fit one message";
  std::vector<RankCommand> commands;
  for (std::uint64_t i = 0; i < 2 * kCommandsPerMessage + 3; ++i)
    commands.push_back(RankCommand{.kind = RankCommandKind::Frame, .value = i});
  std::span<const RankCommand> rest(commands);
  std::uint32_t sequence = 5;
  std::vector<RankCommand> received;
  int messages = 0;
  do {
    RankMessage m;
    const std::size_t sent = encodeRankMessage(rest, sequence, m);
    rest = rest.subspan(sent);
    const std::vector<RankCommand> got = decodeRankMessage(m, sequence++);
    received.insert(received.end(), got.begin(), got.end());
    ++messages;
  } while (!rest.empty());
  EXPECT_EQ(messages, 3);
  ASSERT_EQ(received.size(), commands.size());
  for (std::size_t i = 0; i < received.size(); ++i) EXPECT_EQ(received[i].value, i);
}

TEST(RankCommands, AnEmptyListIsOneEmptyMessage) {
  RankMessage m;
  EXPECT_EQ(encodeRankMessage({}, 0, m), 0u);
  EXPECT_TRUE(decodeRankMessage(m, 0).empty());
}

// The error's text, or "" when decoding succeeded.
std::string refusal(const RankMessage& m, std::uint32_t expected) {
  try {
    decodeRankMessage(m, expected);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(RankCommands, RefusesAMessageThatIsNotTheOneDue) {
  const RankCommand stage{.kind = RankCommandKind::Stage, .flag = 1, .stage = 2};
  RankMessage m;
  encodeRankMessage(std::span(&stage, 1), 3, m);
  ASSERT_EQ(refusal(m, 3), "");
  EXPECT_NE(refusal(m, 4).find("rank message 3 where 4 was due"), std::string::npos) << refusal(m, 4);

  RankMessage garbage{};
  EXPECT_NE(refusal(garbage, 0).find("not a graphsim rank message"), std::string::npos);

  RankMessage tooMany = m;
  const std::uint32_t count = static_cast<std::uint32_t>(kCommandsPerMessage) + 1;
  std::memcpy(tooMany.data() + offsetof(RankMessageHeader, count), &count, sizeof count);
  EXPECT_NE(refusal(tooMany, 3).find("do not fit the message"), std::string::npos) << refusal(tooMany, 3);

  RankCommand bad = stage;
  bad.stage = static_cast<std::uint8_t>(kStageCount);
  encodeRankMessage(std::span(&bad, 1), 0, m);
  EXPECT_NE(refusal(m, 0).find("stage 7 does not exist"), std::string::npos) << refusal(m, 0);
  bad = stage;
  bad.kind = static_cast<RankCommandKind>(99);
  encodeRankMessage(std::span(&bad, 1), 0, m);
  EXPECT_NE(refusal(m, 0).find("unknown command 99"), std::string::npos) << refusal(m, 0);
}

} // namespace
} // namespace graphsim
