// Walks one JSON object of a scene file with its key path for messages; every read checks type and range and
// throws UsageError "<source>: <key path> <what is wrong>" (exit 2). Shared by every scene's applyJson.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "app/base/errors.h"

namespace graphsim::app {

// A value for an error message. Never dump() an array or object: dump() recurses once per nesting level, and a
// hostile file of nested brackets within the 1 MiB limit overflowed the stack (a crash instead of exit 2).
std::string shownJson(const nlohmann::json& v);

class JsonReader {
public:
  JsonReader(const nlohmann::json& object, std::string source, std::string path);

  // Rejects keys outside `allowed` so that a typo is an error, not a silently ignored setting.
  void allowOnly(std::initializer_list<std::string_view> allowed) const {
    allowOnly(std::span<const std::string_view>(allowed.begin(), allowed.size()));
  }
  void allowOnly(std::span<const std::string_view> allowed) const;

  bool has(std::string_view key) const;
  const nlohmann::json& at(std::string_view key) const;
  std::string keyPath(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }
  const std::string& source() const { return source_; }

  // why: said after the range when a bound is not obvious.
  void number(std::string_view key, float& out, double lo, double hi, std::string_view why = {}) const;
  float checkedNumber(const nlohmann::json& v, std::string_view key, double lo, double hi,
                      std::string_view why = {}) const;
  // The same check, the value kept in double: for values compared or accumulated where float's 24 bits would merge
  // neighbours (camera-path times: 1.00000001 and 1.00000002 are one float).
  double checkedDouble(const nlohmann::json& v, std::string_view key, double lo, double hi,
                       std::string_view why = {}) const;
  // A number in (lo, hi] or [lo, hi) and the like: loOpen / hiOpen exclude the bound.
  void numberOpen(std::string_view key, float& out, double lo, bool loOpen, double hi, bool hiOpen) const;
  // An array of 3 numbers, each in [lo, hi].
  void vec3(std::string_view key, float (&out)[3], double lo, double hi) const;
  template <class Int>
  void integer(std::string_view key, Int& out, std::int64_t lo, std::int64_t hi) const {
    if (!has(key)) return;
    out = static_cast<Int>(checkedInteger(key, lo, hi));
  }
  std::int64_t checkedInteger(std::string_view key, std::int64_t lo, std::int64_t hi) const;
  void unsignedInteger(std::string_view key, std::uint64_t& out) const;
  void string(std::string_view key, std::string& out) const;
  // One of `allowed`: "initial must be one of dam-break, rest, column; got \"cube\"".
  void oneOf(std::string_view key, std::string& out, std::initializer_list<std::string_view> allowed) const;
  void boolean(std::string_view key, bool& out) const;
  JsonReader child(std::string_view key) const { return JsonReader(at(key), source_, keyPath(key)); }

  [[noreturn]] void fail(std::string_view key, const std::string& what) const;

private:
  const nlohmann::json& object_;
  std::string source_;
  std::string path_;
};

} // namespace graphsim::app
