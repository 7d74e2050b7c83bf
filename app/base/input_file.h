// The one way graphsim reads a file the user named (a scene file, a camera path, a snapshot, a recorded session):
// whole, with every failure a UsageError (exit 2) "<name>: <what is wrong>" in the words app/io uses for paths.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace graphsim::app {

// name: how messages name the file ("--config scene.json"); expected: what it should be ("a JSON file", "a snapshot
// file"). Refuses: no such file; a symlink loop, a parent that is a file, a path too long (pathFailure's words); a
// directory; not a regular file; over maxBytes; unreadable.
std::string readInputFile(const std::filesystem::path& path, const std::string& name, std::uintmax_t maxBytes,
                          std::string_view expected);

// JSON text parsed, with a key given twice in one object refused (parsers settle it silently, the last one
// winning: a mistake like a typo), in time linear in the keys, and nesting bounded by kMaxJsonDepth before any
// deeper level is built (code that walks a value recursively, printing or merging it, would otherwise run out of
// stack). UsageError "<name>: not valid JSON: …" / "<name>: key \"k\" appears twice …" / "<name>: <keys> nests
// more than 64 levels deep …".
inline constexpr std::size_t kMaxJsonDepth = 64;
nlohmann::json parseJsonFile(const std::string& text, const std::string& name);

} // namespace graphsim::app
