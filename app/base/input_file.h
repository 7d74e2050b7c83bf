// The one way graphsim reads a file the user named (a scene file, a camera path, a snapshot, a recorded session):
// whole, with every failure a UsageError (exit 2) "<name>: <what is wrong>" in the words app/io uses for paths.
#pragma once

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
// winning: a mistake like a typo). UsageError "<name>: not valid JSON: …" / "<name>: key \"k\" appears twice …".
nlohmann::json parseJsonFile(const std::string& text, const std::string& name);

} // namespace graphsim::app
