// A scene's parameter rows (compute/param_table.h) in scene files and session recordings: read with the rows' keys
// and ranges, written with the Live rows' keys. A key "obstacle.radius" is "radius" inside the object "obstacle".
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "app/base/json_reader.h"
#include "compute/param_table.h"

namespace graphsim::app {

// Reads `key` of r into the row's value (floats: `components` of them; or the int), refusing values outside range
// with the scene file's messages (UsageError naming the key path and the range).
void readParamValue(const JsonReader& r, std::string_view key, float* floats, int components, int* integer,
                    const ParamRange& range, std::string_view unit, std::string_view why);

// Every row with a key that r has (Live and Structural). A group's object allows only its rows' leaves.
template <class P, std::size_t N>
void readParams(const JsonReader& r, P& p, const ParamRow<P> (&table)[N]) {
  for (std::size_t i = 0; i < N; ++i) {
    const ParamRow<P>& row = table[i];
    if (row.key.empty()) continue;
    if (row.leaf() == row.key) {
      readParamValue(r, row.key, row.floats(p), row.components(), row.integer(p), row.range, row.unit, row.why);
      continue;
    }
    bool first = true; // a group is read once, at its first row
    for (std::size_t j = 0; j < i; ++j) first = first && table[j].group() != row.group();
    if (!first || !r.has(row.group())) continue;
    const JsonReader group = r.child(row.group());
    std::vector<std::string_view> leaves;
    for (std::size_t j = i; j < N; ++j)
      if (table[j].group() == row.group()) leaves.push_back(table[j].leaf());
    group.allowOnly(leaves);
    for (std::size_t j = i; j < N; ++j) {
      const ParamRow<P>& member = table[j];
      if (member.group() != row.group()) continue;
      readParamValue(group, member.leaf(), member.floats(p), member.components(), member.integer(p), member.range,
                     member.unit, member.why);
    }
  }
}

// The Live rows' values under their keys (floats exact through JSON's doubles). Json is a template parameter so
// that this header needs only json_fwd.hpp: the body compiles where it is called, with <nlohmann/json.hpp>.
template <class P, std::size_t N, class Json = nlohmann::json>
Json liveParamsJson(const P& p, const ParamRow<P> (&table)[N]) {
  Json out = Json::object();
  for (const ParamRow<P>& row : table) {
    if (row.key.empty() || row.role != ParamRole::Live) continue;
    Json value;
    if (const int* i = row.integer(p)) {
      value = *i;
    } else if (row.components() == 3) {
      const float* v = row.floats(p);
      value = {v[0], v[1], v[2]};
    } else {
      value = *row.floats(p);
    }
    if (row.leaf() == row.key) {
      out[std::string(row.key)] = std::move(value);
    } else {
      out[std::string(row.group())][std::string(row.leaf())] = std::move(value);
    }
  }
  return out;
}

} // namespace graphsim::app
