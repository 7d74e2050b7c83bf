#include "app/scenes/param_json.h"

#include <cstdint>
#include <sstream>
#include <string>

namespace graphsim::app {
namespace {

std::string vecText(const float (&v)[3]) {
  std::ostringstream s;
  s << "[" << v[0] << ", " << v[1] << ", " << v[2] << "]";
  return s.str();
}

} // namespace

void readParamValue(const JsonReader& r, std::string_view key, float* floats, int components, int* integer,
                    const ParamRange& range, std::string_view unit, std::string_view why) {
  if (!r.has(key)) return;
  if (integer != nullptr) {
    const auto lo = static_cast<std::int64_t>(range.lo) + (range.loOpen ? 1 : 0);
    const auto hi = static_cast<std::int64_t>(range.hi) - (range.hiOpen ? 1 : 0);
    r.integer(key, *integer, lo, hi);
    return;
  }
  if (components == 1 && !range.loOpen && !range.hiOpen) {
    r.number(key, *floats, range.lo, range.hi, why);
    return;
  }
  if (components == 1) {
    r.numberOpen(key, *floats, range.lo, range.loOpen, range.hi, range.hiOpen);
    return;
  }
  // A vector: JsonReader::vec3 checks closed ends per component; an open end is checked after, on the whole vector.
  float v[3] = {floats[0], floats[1], floats[2]};
  r.vec3(key, v, range.lo, range.hi);
  for (float c : v) {
    if (!range.contains(c))
      r.fail(key, "must be 3 numbers in " + paramRangeText(range) + (unit.empty() ? "" : " " + std::string(unit)) +
                      ", got " + vecText(v));
  }
  for (int a = 0; a < 3; ++a) floats[a] = v[a];
}

} // namespace graphsim::app
