// The parameter tables (compute/param_table.h, issue 27): each row of kFluidParams and kNBodyParams agrees with
// itself, and the scene file and the recording read back what they write.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "app/base/errors.h"
#include "app/scenes/param_json.h"
#include "compute/fluid/fluid_params.h"
#include "compute/nbody/nbody_params.h"

namespace graphsim {
namespace {

using fluid::FluidParams;
using fluid::kFluidParams;

// Each row against itself: the struct's default, the slider's and the soak's ends within the validated range; a slider
// or a soak move only on a Live field; a key on every field but a Derived one.
template <class P, std::size_t N>
void expectRowsWithinRanges(const ParamRow<P> (&table)[N]) {
  static const P defaults{}; // static: GCC 12 warned a local one might be read uninitialised (it is not)
  for (const ParamRow<P>& row : table) {
    const std::string name(row.name());
    const ParamRange& r = row.range;
    if (const int* i = row.integer(defaults)) {
      EXPECT_TRUE(r.contains(*i)) << name << ": the default is outside its range";
    } else {
      for (int a = 0; a < row.components(); ++a)
        EXPECT_TRUE(r.contains(row.floats(defaults)[a])) << name << ": the default is outside its range";
    }
    if (row.hasSlider()) {
      EXPECT_TRUE(r.contains(row.slider.lo)) << name << ": the slider starts outside the range";
      if (row.slider.hiOf == nullptr) {
        EXPECT_TRUE(r.contains(row.slider.hi)) << name << ": the slider ends outside";
      }
      EXPECT_EQ(row.role, ParamRole::Live) << name << ": a slider on a field the panel does not change";
    }
    if (row.moves()) {
      EXPECT_TRUE(r.contains(row.soak.lo)) << name << ": the soak's range starts outside the range";
      if (row.soak.hiOf == nullptr) {
        EXPECT_TRUE(r.contains(row.soak.hi)) << name << ": the soak's range ends outside";
      }
      EXPECT_EQ(row.role, ParamRole::Live) << name << ": the soak moves a field that is not live";
    }
    EXPECT_EQ(row.key.empty(), row.role == ParamRole::Derived) << name << ": only a derived field has no key";
  }
}

TEST(ParamTable, RowsLieWithinTheirRanges) {
  expectRowsWithinRanges(kFluidParams);
  expectRowsWithinRanges(kNBodyParams);
}

TEST(ParamTable, FluidLiveRowsReadBackWhatTheyWrite) {
  FluidParams edited;
  edited.restDensity = 998.5f;
  edited.stiffness = 123.25f;
  edited.viscosity = 0.125f;
  edited.gravity[0] = 1.5f;
  edited.gravity[1] = -3.0f;
  edited.cflNumber = 0.5f;
  edited.maxSubsteps = 7;
  edited.wallRestitution = 0.75f;
  edited.obstacleRadius = 0.1f;
  edited.obstacleCentre[2] = 0.3f;
  const nlohmann::json written = app::liveParamsJson(edited, kFluidParams);
  EXPECT_FALSE(written.contains("box")) << "the box is structural: not a live key";
  EXPECT_TRUE(written.at("obstacle").contains("radius"));
  FluidParams read; // the defaults, then every live key
  app::readParams(app::JsonReader(written, "test", ""), read, kFluidParams);
  EXPECT_EQ(read, edited);
}

TEST(ParamTable, FluidSceneFileRefusesOutsideTheRowsRange) {
  FluidParams p;
  const nlohmann::json bad = {{"viscosity", 1.5}};
  EXPECT_THROW(app::readParams(app::JsonReader(bad, "test", ""), p, kFluidParams), app::UsageError);
  const nlohmann::json box = {{"box", {1.0, 0.0, 1.0}}};
  try {
    app::readParams(app::JsonReader(box, "test", ""), p, kFluidParams);
    ADD_FAILURE() << "a zero box was accepted";
  } catch (const app::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("box must be 3 numbers in (0, 10000] m"), std::string::npos) << e.what();
  }
  const nlohmann::json obstacle = {{"obstacle", {{"center", {0.8, 0.2, 0.4}}}}};
  EXPECT_THROW(app::readParams(app::JsonReader(obstacle, "test", ""), p, kFluidParams), app::UsageError);
}

} // namespace
} // namespace graphsim
