// The stage table (compute/nbody/nbody.h) is the one list of stages: names, which run per substep, which may be
// disabled, the CPU backend's node list and the stage and substep each NodeInfo carries all come from it. The node list
// is one cached vector: reading it again, after a toggle or after a profiled frame, reuses its storage and allocates
// nothing.
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "allocation_count.h"
#include "compute/nbody/nbody_cpu_backend.h"
#include "unit_helpers.h"

namespace graphsim {
namespace {

using test::gravityOnly;
using test::startCountingAllocations;
using test::stopCountingAllocations;

static_assert(stageFromName("write_render") == NBodyStage::WriteRender);
static_assert(!stageFromName("forces#1").has_value());
static_assert(stageInstanceCount(1) == kStageCount);

TEST(StageTable, NamesAndHelpersRoundTripThroughTheTable) {
  for (std::size_t i = 0; i < kNBodyStages.size(); ++i) {
    const NBodyStageInfo& row = kNBodyStages[i];
    EXPECT_EQ(static_cast<std::size_t>(row.stage), i) << row.name;
    EXPECT_EQ(kStageNames[i], row.name);
    EXPECT_EQ(stageName(row.stage), row.name);
    EXPECT_EQ(&stageInfo(row.stage), &row);
    EXPECT_EQ(stageFromName(row.name), row.stage) << row.name;
    EXPECT_EQ(whyNotTogglable(row.stage), row.whyNotTogglable) << row.name;
    EXPECT_EQ(row.togglable(), row.whyNotTogglable.empty()) << row.name;
    EXPECT_EQ(stageInstanceName(row.stage, 0), std::string(row.name));
    // Instance names are shown, never parsed back: "forces#2" is no stage name.
    for (int s = 1; s < 4; ++s) EXPECT_FALSE(stageFromName(stageInstanceName(row.stage, s)).has_value());
  }
  int perSubstep = 0;
  for (const NBodyStageInfo& row : kNBodyStages) perSubstep += row.perSubstep ? 1 : 0;
  EXPECT_EQ(kSubstepStageCount, perSubstep);
  EXPECT_EQ(stageInstanceCount(3), 3 * perSubstep + (kStageCount - perSubstep));
}

TEST(StageTable, ForEachStageInstanceRunsPerSubstepRowsEverySubstepThenTheRestOnce) {
  std::vector<std::pair<NBodyStage, int>> seen;
  forEachStageInstance(3, [&](NBodyStage stage, int substep) { seen.emplace_back(stage, substep); });
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(stageInstanceCount(3)));
  std::size_t i = 0;
  for (int s = 0; s < 3; ++s) {
    for (const NBodyStageInfo& row : kNBodyStages) {
      if (row.perSubstep) {
        EXPECT_EQ(seen[i++], std::make_pair(row.stage, s)) << row.name;
      }
    }
  }
  for (const NBodyStageInfo& row : kNBodyStages) {
    if (!row.perSubstep) {
      EXPECT_EQ(seen[i++], std::make_pair(row.stage, 0)) << row.name;
    }
  }
}

TEST(StageTable, DrivesTheCpuBackendsNodeList) {
  for (int substeps : {1, 2, 4}) {
    NBodyConfig config = gravityOnly("plummer", 16);
    config.substeps = substeps;
    NBodyCpuBackend backend(config);
    const std::vector<NodeInfo>& nodes = backend.nodes();
    ASSERT_EQ(nodes.size(), static_cast<std::size_t>(stageInstanceCount(substeps)));
    std::size_t i = 0;
    forEachStageInstance(substeps, [&](NBodyStage stage, int substep) {
      const NodeInfo& n = nodes[i++];
      const NBodyStageInfo& row = stageInfo(stage);
      EXPECT_EQ(stageOf(n), stage) << n.name;
      EXPECT_EQ(n.substep, substep) << n.name;
      EXPECT_EQ(n.name, stageInstanceName(stage, substep));
      EXPECT_EQ(n.type, "cpu");
      EXPECT_EQ(n.togglable, row.togglable()) << n.name;
      EXPECT_EQ(n.whyNotTogglable, row.whyNotTogglable) << n.name;
      EXPECT_EQ(n.enabled, config.enabled[static_cast<std::size_t>(stage)]) << n.name;
      EXPECT_LT(n.ms, 0.0) << n.name << ": not profiled";
    });
  }
}

TEST(StageTable, DecidesWhichStagesMayBeDisabled) {
  for (const NBodyStageInfo& row : kNBodyStages) {
    NBodyCpuBackend backend(gravityOnly("plummer", 16));
    NBodyConfig config = gravityOnly("plummer", 16);
    config.enabled[static_cast<std::size_t>(row.stage)] = false;
    if (row.togglable()) {
      EXPECT_NO_THROW(backend.setStageEnabled(row.stage, false)) << row.name;
      EXPECT_FALSE(backend.stageEnabled(row.stage)) << row.name;
      EXPECT_NO_THROW(validateSceneConfig(config)) << row.name;
      continue;
    }
    for (const auto& attempt : {std::function<void()>([&] { backend.setStageEnabled(row.stage, false); }),
                                std::function<void()>([&] { validateSceneConfig(config); })}) {
      try {
        attempt();
        ADD_FAILURE() << row.name << " was disabled";
      } catch (const std::invalid_argument& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find(row.name), std::string::npos) << message;
        EXPECT_NE(message.find(row.whyNotTogglable), std::string::npos) << message;
      }
    }
    EXPECT_TRUE(backend.stageEnabled(row.stage)) << row.name;
  }
}

TEST(NodeList, ReadingItAgainReusesItsStorageAndAllocatesNothing) {
  NBodyConfig config = gravityOnly("plummer", 32);
  config.substeps = 2;
  NBodyCpuBackend backend(config);
  const std::vector<NodeInfo>& nodes = backend.nodes();
  const NodeInfo* storage = nodes.data();
  const char* name = nodes[3].name.c_str();

  startCountingAllocations();
  const std::vector<NodeInfo>& again = backend.nodes();
  EXPECT_EQ(stopCountingAllocations(), 0u);
  EXPECT_EQ(&again, &nodes);
  EXPECT_EQ(again.data(), storage);
  EXPECT_EQ(again[3].name.c_str(), name);

  // A toggle updates the enable states in place.
  backend.setStageEnabled(NBodyStage::Attractor, true);
  startCountingAllocations();
  backend.nodes();
  EXPECT_EQ(stopCountingAllocations(), 0u);
  EXPECT_EQ(nodes.data(), storage);
  for (const NodeInfo& n : nodes) {
    if (stageOf(n) == NBodyStage::Attractor) {
      EXPECT_TRUE(n.enabled) << n.name;
    }
  }

  // A profiled frame updates the times in place (write_render's once the renderer's buffer is written).
  ASSERT_TRUE(backend.setProfiling(true));
  backend.step();
  std::vector<Float4> out(static_cast<std::size_t>(backend.config().bodies));
  backend.writeRender(out.data());
  startCountingAllocations();
  backend.nodes();
  EXPECT_EQ(stopCountingAllocations(), 0u);
  EXPECT_EQ(nodes.data(), storage);
  for (const NodeInfo& n : nodes) EXPECT_GE(n.ms, 0.0) << n.name;
  ASSERT_TRUE(backend.setProfiling(false));
  for (const NodeInfo& n : backend.nodes()) EXPECT_LT(n.ms, 0.0) << n.name;

  // A reset with the same substeps keeps the structure (enable states from the new config); another substep count
  // rebuilds it.
  backend.reset(config);
  EXPECT_EQ(backend.nodes().data(), storage);
  for (const NodeInfo& n : nodes) {
    if (stageOf(n) == NBodyStage::Attractor) {
      EXPECT_FALSE(n.enabled) << n.name;
    }
  }
  config.substeps = 3;
  backend.reset(config);
  startCountingAllocations();
  const std::size_t rebuiltSize = backend.nodes().size();
  EXPECT_GT(stopCountingAllocations(), 0u) << "a rebuilt list allocates: the counts above would have seen one";
  ASSERT_EQ(rebuiltSize, static_cast<std::size_t>(stageInstanceCount(3)));
  EXPECT_EQ(stageOf(nodes.back()), NBodyStage::WriteRender);
  EXPECT_EQ(nodes[2 * kSubstepStageCount].substep, 2);
}

} // namespace
} // namespace graphsim
