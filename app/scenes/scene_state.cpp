#include "app/scenes/scene_state.h"

#include <algorithm>

#include "app/base/errors.h"

namespace graphsim::app {

std::string sourceOf(const SceneState& state) { return state.source.empty() ? "the saved state" : state.source; }

StateArray floatArray(std::string name, std::span<const Float4> values) {
  StateArray array{std::move(name), 4, {}};
  array.values.reserve(values.size() * 4);
  for (const Float4& v : values) array.values.insert(array.values.end(), {v.x, v.y, v.z, v.w});
  return array;
}

StateArray floatArray(std::string name, std::span<const float> values) {
  return StateArray{std::move(name), 1, std::vector<float>(values.begin(), values.end())};
}

const StateArray& requireArray(const SceneState& state, std::string_view name, std::uint32_t components) {
  const auto it =
      std::find_if(state.arrays.begin(), state.arrays.end(), [&](const StateArray& a) { return a.name == name; });
  const std::string what = sourceOf(state) + ": the " + state.scene + " state";
  if (it == state.arrays.end()) throw UsageError(what + " has no array '" + std::string(name) + "'");
  if (it->components != components)
    throw UsageError(what + "'s array '" + it->name + "' has " + std::to_string(it->components) +
                     " components per element, expected " + std::to_string(components));
  // The format checks this for every array it reads; a state made in memory is checked here.
  const auto expected = static_cast<std::uint64_t>(state.count) * components;
  if (state.count < 0 || it->values.size() != expected)
    throw UsageError(what + "'s array '" + it->name + "' holds " + std::to_string(it->values.size()) + " values, but " +
                     std::to_string(state.count) + " elements need " + std::to_string(expected));
  return *it;
}

std::vector<Float4> toFloat4s(const StateArray& array) {
  std::vector<Float4> out(array.values.size() / 4);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const float* v = &array.values[4 * i];
    out[i] = Float4{v[0], v[1], v[2], v[3]};
  }
  return out;
}

void requireSceneAndCount(const SceneState& state, std::string_view scene, std::int64_t count,
                          std::string_view countNoun) {
  if (state.scene != scene)
    throw UsageError(sourceOf(state) + ": holds a state of the " + state.scene + " scene, but this run's scene is " +
                     std::string(scene));
  if (state.count != count)
    throw UsageError(sourceOf(state) + ": holds " + std::to_string(state.count) + " " + std::string(countNoun) +
                     ", but this run has " + std::to_string(count));
}

void requireOnlyArrays(const SceneState& state, std::span<const std::string_view> expected) {
  for (const StateArray& array : state.arrays) {
    if (std::find(expected.begin(), expected.end(), array.name) != expected.end()) continue;
    std::string list;
    for (std::string_view name : expected) list += (list.empty() ? "" : ", ") + std::string(name);
    throw UsageError(sourceOf(state) + ": the " + state.scene + " state has an array '" + array.name +
                     "' this graphsim does not know (expected: " + list + ")");
  }
}

} // namespace graphsim::app
