// The soak's random parameter moves over a scene's parameter rows (compute/param_table.h): one row with a soak range
// picked uniformly in table order (so a seeded soak's sequence follows the table), its value drawn uniformly in that
// range (a vector: each component, or the one of soak.axis).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "app/reliability/soak_random.h"
#include "compute/param_table.h"

namespace graphsim::app {

template <class P, std::size_t N>
constexpr std::size_t movingParamRows(const ParamRow<P> (&table)[N]) {
  std::size_t n = 0;
  for (const ParamRow<P>& row : table) n += row.moves() ? 1 : 0;
  return n;
}

template <class P>
void moveParamRow(SoakRandom& random, const ParamRow<P>& row, P& p) {
  const auto& s = row.soak;
  if (int* i = row.integer(p)) {
    *i = static_cast<int>(random.between(static_cast<std::int64_t>(s.lo), static_cast<std::int64_t>(s.hi)));
    return;
  }
  float* v = row.floats(p);
  for (int a = 0; a < row.components(); ++a) {
    if (s.axis >= 0 && a != s.axis) continue;
    v[a] = random.uniform(s.lo, s.hiOf != nullptr ? s.hiOf(p, a) : s.hi);
  }
}

// Picks one moving row (one draw) and moves it (one draw per component moved); returns its key.
template <class P, std::size_t N>
std::string_view moveRandomParam(SoakRandom& random, const ParamRow<P> (&table)[N], P& p) {
  const std::size_t moving = movingParamRows(table); // > 0: a scene's soak moves parameters
  auto pick = static_cast<std::size_t>(random.between(0, static_cast<std::int64_t>(moving) - 1));
  for (const ParamRow<P>& row : table) {
    if (!row.moves()) continue;
    if (pick-- == 0) {
      moveParamRow(random, row, p);
      return row.key;
    }
  }
  return {};
}

} // namespace graphsim::app
