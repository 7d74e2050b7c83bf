#include "compute/param_table.h"

#include <cmath>
#include <sstream>

namespace graphsim {
namespace {

std::string boundText(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream s;
  s << v;
  return s.str();
}

} // namespace

std::string paramRangeText(const ParamRange& r) {
  return (r.loOpen ? "(" : "[") + boundText(r.lo) + ", " + boundText(r.hi) + (r.hiOpen ? ")" : "]");
}

void refuseParam(std::string_view scene, std::string_view field, int axis, const std::string& value,
                 const ParamRange& range, std::string_view unit) {
  std::string name(field);
  if (axis >= 0) name += std::string(".") + "xyz"[axis];
  throw std::invalid_argument(std::string(scene) + ": " + name + " = " + value + " is outside " +
                              paramRangeText(range) + (unit.empty() ? "" : " " + std::string(unit)));
}

} // namespace graphsim
