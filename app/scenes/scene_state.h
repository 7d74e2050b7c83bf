// A running scene's state as plain data (issue 15, docs/SNAPSHOTS.md): what SceneProducer::saveState returns and
// loadState takes, and what app/snapshot/snapshot_format writes to and reads from a file. The scene decides what is
// in it (enough for a bit-exact resume on the CPU backend); the format only says how it is laid out.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compute/float4.h"

namespace graphsim::app {

// One per-element array of 32-bit floats: count x components values, element-major ("posMass": x, y, z, m of body
// 0, then of body 1, ...).
struct StateArray {
  std::string name;             // "posMass", "vel"; unique within a state
  std::uint32_t components = 1; // floats per element, 1..16
  std::vector<float> values;    // count * components
};

struct SceneState {
  std::string scene;       // the registry name (Scene::name)
  std::int64_t count = 0;  // elements: bodies, particles; every array holds this many
  std::uint64_t frame = 0; // frames the saving run had rendered (shown when it is loaded; the resumed run counts anew)
  double simTime = 0;      // simulated time of the state [scene units]
  std::string backend;     // "cpu" | "cuda": which backend saved it (shown; a CPU resume of it is not bit-exact)
  std::string settings; // the scene-file JSON (app/scenes/scene_config.h keys) of the state's settings and parameters
  std::vector<StateArray> arrays;
  // Not saved: where the state was read from, for messages ("--load-state run.gss"); empty: "the saved state".
  std::string source;
};

// "--load-state run.gss" or "the saved state": what a refusal message starts with.
std::string sourceOf(const SceneState& state);

// Helpers for the scenes' saveState/loadState.
// The Float4 elements as an array of 4 components (x, y, z, w each; no struct copy).
StateArray floatArray(std::string name, std::span<const Float4> values);
StateArray floatArray(std::string name, std::span<const float> values);
// The array `name` of `state` with `components` per element and state.count elements, or a UsageError naming what
// is missing or wrong ("<source>: no array 'vel'", "<source>: array 'vel' has 3 components per element, the nbody
// scene expects 4").
const StateArray& requireArray(const SceneState& state, std::string_view name, std::uint32_t components);
std::vector<Float4> toFloat4s(const StateArray& array); // components == 4
// Refuses (UsageError) a state of another scene or of another count than the running one, and arrays other than
// the scene's `expected` ones: the checks a loadState makes before it touches anything.
void requireSceneAndCount(const SceneState& state, std::string_view scene, std::int64_t count,
                          std::string_view countNoun);
void requireOnlyArrays(const SceneState& state, std::span<const std::string_view> expected);

} // namespace graphsim::app
