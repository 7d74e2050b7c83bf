#include "app/base/input_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
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
  try {
    std::vector<std::vector<std::string>> keysSeen; // per open object
    return json::parse(text, [&](int, json::parse_event_t event, json& parsed) {
      if (event == json::parse_event_t::object_start) keysSeen.emplace_back();
      if (event == json::parse_event_t::object_end) keysSeen.pop_back();
      if (event == json::parse_event_t::key && !keysSeen.empty()) {
        std::vector<std::string>& keys = keysSeen.back();
        const std::string key = parsed.get<std::string>();
        if (std::find(keys.begin(), keys.end(), key) != keys.end())
          throw UsageError(name + ": key " + shownJson(json(key)) + " appears twice in one object");
        keys.push_back(key);
      }
      return true;
    });
  } catch (const json::exception& e) { // parse_error, and out_of_range for numbers like 1e400
    throw UsageError(name + ": not valid JSON: " + e.what());
  }
}

} // namespace graphsim::app
