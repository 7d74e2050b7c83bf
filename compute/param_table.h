// A scene's parameters as a table (issue 27): one constexpr row per field of its parameter struct, which the
// validation, the scene-file reader, the panel, the session recording and the soak iterate instead of naming each
// field. Plain C++ (no CUDA, Vulkan or ImGui): compute/ validates with it, app/ draws and reads with it.
//
// A row does not repeat the default: that is the struct's default member initialiser. Rules that tie fields to each
// other (the fluid's obstacle inside its box, the box holding one cell) are not ranges of one field: they stay code
// next to the table, after the rows' own checks.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>

namespace graphsim {

// Who changes the field: Live ones are the panel's, the recording's and the soak's (applied at the next frame);
// Structural ones come from the scene file only and need a reset (the fluid's box); Derived ones have no key and
// follow from something else (the fluid's lattice spacing, from the particle count). All are validated.
enum class ParamRole { Live, Structural, Derived };
enum class SliderScale { Linear, Log };

// [lo, hi], with either end open. contains() is false for NaN; an infinite value is refused unless hi is +inf and
// closed (never used).
struct ParamRange {
  double lo = 0, hi = 0;
  bool loOpen = false, hiOpen = false;
  constexpr bool contains(double v) const { return (loOpen ? v > lo : v >= lo) && (hiOpen ? v < hi : v <= hi); }
};

// "(0, 1e+06]", as the scene-file reader writes its bounds (ostream's default format; "inf" for infinity).
std::string paramRangeText(const ParamRange& range);

// The member a row edits: a float, an int or 3 floats (a vector).
template <class P>
using ParamMember = std::variant<float P::*, int P::*, float (P::*)[3]>;

template <class P>
struct ParamRow {
  std::string_view key = {}; // scene-file and recording key ("obstacle.radius": "radius" in "obstacle"); Derived: none
  std::string_view field = {}; // the member's name in validation messages when not the key ("obstacleRadius")
  ParamMember<P> member = {};
  std::string_view unit = {}; // "kg/m^3"; empty for a pure number
  ParamRange range = {};      // the validated range: validation, the scene file and the recording all refuse outside it
  std::string_view why = {};  // said after the scene file's range when a bound is not obvious
  ParamRole role = ParamRole::Live;
  // The panel's slider (a Live row without a label has none). Its ends are what a hand reaches, within range.
  struct Slider {
    std::string_view label; // shown; empty: no slider
    std::string_view id;    // recorded as "param:<id>" for the scripted UI tests
    float lo = 0, hi = 0;
    SliderScale scale = SliderScale::Linear;
    const char* format = "%.3f";       // printf format of the value shown, with its unit
    int axis = -1;                     // a vector: -1 all three components, 0..2 that one only
    float (*hiOf)(const P&) = nullptr; // an upper end that follows other fields (replaces hi)
  } slider = {};
  // The soak's random moves (uniform in [lo, hi]); a row with lo == hi is never moved.
  struct Soak {
    float lo = 0, hi = 0;
    int axis = -1;                          // a vector: -1 each component, 0..2 that one only
    float (*hiOf)(const P&, int) = nullptr; // an upper end per component that follows other fields
  } soak = {};
  std::string_view help = {}; // one line for the panel's tooltip
  std::string_view only = {}; // the panel shows the slider only in this mode of the scene ("tree"); empty: always

  constexpr std::string_view name() const { return field.empty() ? key : field; } // "gravity" (+ ".y" per axis)
  constexpr int components() const { return std::holds_alternative<float(P::*)[3]>(member) ? 3 : 1; }
  constexpr bool isInt() const { return std::holds_alternative<int P::*>(member); }
  constexpr bool hasSlider() const { return !slider.label.empty(); }
  constexpr bool moves() const { return soak.lo != soak.hi || soak.hiOf != nullptr; }
  constexpr std::string_view group() const { return key.substr(0, key.find('.')); } // "obstacle"; key if no dot
  constexpr std::string_view leaf() const {                                         // "radius"; key if no dot
    const std::size_t dot = key.find('.');
    return dot == std::string_view::npos ? key : key.substr(dot + 1);
  }
  constexpr std::size_t bytes() const { return components() * (isInt() ? sizeof(int) : sizeof(float)); }

  // The row's float component(s) in p (nullptr for an int row) and its int (nullptr for a float row).
  float* floats(P& p) const {
    if (const auto* m = std::get_if<float P::*>(&member)) return &(p.*(*m));
    if (const auto* m = std::get_if<float(P::*)[3]>(&member)) return p.*(*m);
    return nullptr;
  }
  const float* floats(const P& p) const { return floats(const_cast<P&>(p)); }
  int* integer(P& p) const {
    const auto* m = std::get_if<int P::*>(&member);
    return m != nullptr ? &(p.*(*m)) : nullptr;
  }
  const int* integer(const P& p) const { return integer(const_cast<P&>(p)); }
};

// Whether the table names every field of P once: no member twice, and the rows' sizes add up to sizeof(P). It
// catches a field added to the struct and not to the table (or the other way round) as long as the struct has no
// padding and only float, int and float[3] fields (a field of another type cannot be a row, and also fails the sum).
// It does not catch a row whose key, range or slider belong to another field, nor two fields swapped.
template <class P, std::size_t N>
constexpr bool coversEveryField(const ParamRow<P> (&table)[N]) {
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < N; ++i) {
    bytes += table[i].bytes();
    for (std::size_t j = 0; j < i; ++j)
      if (table[i].member == table[j].member) return false;
  }
  return bytes == sizeof(P);
}

// The distinct groups of the rows that have a key ("restDensity", …, "obstacle", "box"), in table order; liveOnly:
// the Live rows' only. For a scene's list of keys (JsonReader::allowOnly).
template <std::size_t N>
struct ParamKeys {
  std::array<std::string_view, N> keys{};
  std::size_t size = 0;
  constexpr std::span<const std::string_view> view() const { return {keys.data(), size}; }
};
template <class P, std::size_t N>
constexpr ParamKeys<N> paramKeys(const ParamRow<P> (&table)[N], bool liveOnly) {
  ParamKeys<N> out;
  for (std::size_t i = 0; i < N; ++i) {
    const ParamRow<P>& row = table[i];
    if (row.key.empty() || (liveOnly && row.role != ParamRole::Live)) continue;
    bool seen = false;
    for (std::size_t j = 0; j < out.size; ++j) seen = seen || out.keys[j] == row.group();
    if (!seen) out.keys[out.size++] = row.group();
  }
  return out;
}

// Throws std::invalid_argument "<scene>: <field> = <value> is outside <range> <unit>" for the first value (in table
// order; a vector's components x, y, z) outside its row's range. NaN is refused.
[[noreturn]] void refuseParam(std::string_view scene, std::string_view field, int axis, const std::string& value,
                              const ParamRange& range, std::string_view unit);

template <class P, std::size_t N>
void checkParamRanges(std::string_view scene, const P& p, const ParamRow<P> (&table)[N]) {
  for (const ParamRow<P>& row : table) {
    if (const int* i = row.integer(p)) {
      if (!row.range.contains(*i)) refuseParam(scene, row.name(), -1, std::to_string(*i), row.range, row.unit);
      continue;
    }
    const float* v = row.floats(p);
    for (int a = 0; a < row.components(); ++a) {
      if (!row.range.contains(v[a]))
        refuseParam(scene, row.name(), row.components() == 3 ? a : -1, std::to_string(v[a]), row.range, row.unit);
    }
  }
}

} // namespace graphsim
