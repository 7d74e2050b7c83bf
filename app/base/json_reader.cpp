#include "app/base/json_reader.h"

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

namespace graphsim::app {
namespace {

using nlohmann::json;

std::string fmt(double d) {
  std::ostringstream s;
  s << d;
  return s.str();
}

} // namespace

std::string shownJson(const json& v) {
  if (v.is_array()) return "an array of " + std::to_string(v.size());
  if (v.is_object()) return "an object";
  std::string text = v.dump();
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

JsonReader::JsonReader(const json& object, std::string source, std::string path)
    : object_(object), source_(std::move(source)), path_(std::move(path)) {
  if (!object_.is_object()) fail("", "must be a JSON object");
}

void JsonReader::allowOnly(std::span<const std::string_view> allowed) const {
  for (const auto& [key, value] : object_.items()) {
    bool known = false;
    for (auto a : allowed) known = known || key == a;
    if (!known) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      fail(key, "is not a known key (allowed: " + list + ")");
    }
  }
}

bool JsonReader::has(std::string_view key) const { return object_.contains(key); }

const json& JsonReader::at(std::string_view key) const { return object_.at(std::string(key)); }

void JsonReader::number(std::string_view key, float& out, double lo, double hi, std::string_view why) const {
  if (!has(key)) return;
  out = checkedNumber(at(key), key, lo, hi, why);
}

float JsonReader::checkedNumber(const json& v, std::string_view key, double lo, double hi, std::string_view why) const {
  return static_cast<float>(checkedDouble(v, key, lo, hi, why));
}

double JsonReader::checkedDouble(const json& v, std::string_view key, double lo, double hi,
                                 std::string_view why) const {
  if (!v.is_number()) fail(key, "must be a number, got " + std::string(v.type_name()));
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < lo || d > hi)
    fail(key, "must be in [" + fmt(lo) + ", " + fmt(hi) + "], got " + shownJson(v) +
                  (why.empty() ? "" : "; " + std::string(why)));
  return d;
}

void JsonReader::numberOpen(std::string_view key, float& out, double lo, bool loOpen, double hi, bool hiOpen) const {
  if (!has(key)) return;
  const json& v = at(key);
  if (!v.is_number()) fail(key, "must be a number, got " + std::string(v.type_name()));
  const double d = v.get<double>();
  const auto f = static_cast<double>(static_cast<float>(d)); // what the backend gets: 1e-50 would become 0
  const bool ok =
      std::isfinite(d) && std::isfinite(f) && (loOpen ? d > lo && f > lo : d >= lo) && (hiOpen ? d < hi : d <= hi);
  if (!ok) {
    const std::string high = std::isinf(hi) ? "inf" : fmt(hi);
    fail(key, "must be in " + std::string(loOpen ? "(" : "[") + fmt(lo) + ", " + high + (hiOpen ? ")" : "]") +
                  ", got " + shownJson(v));
  }
  out = static_cast<float>(d);
}

void JsonReader::vec3(std::string_view key, float (&out)[3], double lo, double hi) const {
  if (!has(key)) return;
  const json& v = at(key);
  if (!v.is_array() || v.size() != 3) fail(key, "must be an array of 3 numbers, got " + shownJson(v));
  for (std::size_t i = 0; i < 3; ++i) out[i] = checkedNumber(v[i], key, lo, hi);
}

std::int64_t JsonReader::checkedInteger(std::string_view key, std::int64_t lo, std::int64_t hi) const {
  const json& v = at(key);
  if (!v.is_number_integer()) fail(key, "must be an integer, got " + shownJson(v));
  // A large unsigned value does not fit int64: compare it as unsigned first (hi is never negative here).
  const bool ok = v.is_number_unsigned()
                      ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(hi) && v.get<std::int64_t>() >= lo
                      : v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
  if (!ok)
    fail(key, "must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + shownJson(v));
  return v.get<std::int64_t>();
}

void JsonReader::unsignedInteger(std::string_view key, std::uint64_t& out) const {
  if (!has(key)) return;
  const json& v = at(key);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
    fail(key, "must be a non-negative integer, got " + shownJson(v));
  out = v.get<std::uint64_t>();
}

void JsonReader::string(std::string_view key, std::string& out) const {
  if (!has(key)) return;
  if (!at(key).is_string()) fail(key, "must be a string, got " + shownJson(at(key)));
  out = at(key).get<std::string>();
}

void JsonReader::oneOf(std::string_view key, std::string& out, std::initializer_list<std::string_view> allowed) const {
  std::string value = out;
  string(key, value);
  std::string list;
  bool known = false;
  for (std::string_view a : allowed) {
    list += (list.empty() ? "" : ", ") + std::string(a);
    known = known || value == a;
  }
  if (!known) fail(key, "must be one of " + list + "; got " + shownJson(json(value)));
  out = value;
}

void JsonReader::boolean(std::string_view key, bool& out) const {
  if (!has(key)) return;
  if (!at(key).is_boolean()) fail(key, "must be true or false, got " + shownJson(at(key)));
  out = at(key).get<bool>();
}

void JsonReader::fail(std::string_view key, const std::string& what) const {
  const std::string where = key.empty() ? (path_.empty() ? std::string("top level") : path_) : keyPath(key);
  throw UsageError(source_ + ": " + where + " " + what);
}

} // namespace graphsim::app
