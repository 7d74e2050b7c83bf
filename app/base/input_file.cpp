#include "app/base/input_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/base/errors.h"
#include "app/base/json_reader.h"
#include "app/io/output_file.h"

namespace graphsim::app {

std::string readInputFile(const std::filesystem::path& path, const std::string& name, std::uintmax_t maxBytes,
                          std::string_view expected) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    // A symlink loop, a parent that is a file, a path too long: said as what they are, not "no such file".
    const int error = errno;
    throw UsageError(name + ": " + (error == ENOENT ? std::string("no such file") : pathFailure(path, error)));
  }
  if (S_ISDIR(st.st_mode)) throw UsageError(name + ": is a directory, expected " + std::string(expected));
  if (!S_ISREG(st.st_mode)) throw UsageError(name + ": not a regular file");
  if (static_cast<std::uintmax_t>(st.st_size) > maxBytes) {
    const std::string limit = maxBytes % (1u << 30) == 0   ? std::to_string(maxBytes >> 30) + " GiB"
                              : maxBytes % (1u << 20) == 0 ? std::to_string(maxBytes >> 20) + " MiB"
                                                           : std::to_string(maxBytes) + " bytes";
    throw UsageError(name + ": larger than " + limit + ", not " + std::string(expected));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in || ::access(path.c_str(), R_OK) != 0) throw UsageError(name + ": cannot be read (permission denied?)");
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw UsageError(name + ": cannot be read: " + std::strerror(errno));
  return text.str();
}

nlohmann::json parseJsonFile(const std::string& text, const std::string& name) {
  using nlohmann::json;
  struct Level {     // an open object or array
    std::string key; // an object's latest key
    std::unordered_set<std::string> keys;
  };
  std::vector<Level> open;
  const auto keyPath = [&] {
    std::string path;
    for (const Level& l : open)
      if (!l.key.empty()) path += (path.empty() ? "" : ".") + l.key;
    return path.empty() ? std::string("the top level") : path;
  };
  try {
    return json::parse(text, [&](int, json::parse_event_t event, json& parsed) {
      switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (open.size() == kMaxJsonDepth)
          throw UsageError(name + ": " + keyPath() + " nests more than " + std::to_string(kMaxJsonDepth) +
                           " levels deep (no graphsim input needs more)");
        open.emplace_back();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end: open.pop_back(); break;
      case json::parse_event_t::key: {
        std::string key = parsed.get<std::string>();
        if (!open.back().keys.insert(key).second)
          throw UsageError(name + ": key " + shownJson(json(key)) + " appears twice in one object");
        open.back().key = std::move(key);
        break;
      }
      case json::parse_event_t::value: break;
      }
      return true;
    });
  } catch (const json::exception& e) { // parse_error, and out_of_range for numbers like 1e400
    throw UsageError(name + ": not valid JSON: " + e.what());
  }
}

} // namespace graphsim::app
