#include "app/cli/driver_manifests.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

#include <nlohmann/json.hpp>

#include "app/io/user_text.h"
#include "compute/errors.h"

namespace graphsim::app {
namespace {

namespace fs = std::filesystem;

// The parse error of the manifest at path, or empty when it is JSON (or not a regular file we can read).
std::string manifestProblem(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return {};
  constexpr std::uintmax_t kMaxManifestBytes = 1 << 20;
  if (fs::file_size(path, ec) > kMaxManifestBytes || ec) return "larger than 1 MiB, not a driver manifest";
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::stringstream text;
  text << in.rdbuf();
  try {
    const nlohmann::json manifest = nlohmann::json::parse(text.str());
    return {};
  } catch (const nlohmann::json::exception& e) {
    return std::string("not valid JSON: ") + e.what();
  }
}

} // namespace

void checkVulkanDriverManifests() {
  for (const char* variable : {"VK_ICD_FILENAMES", "VK_DRIVER_FILES", "VK_ADD_DRIVER_FILES"}) {
    const char* value = std::getenv(variable);
    if (value == nullptr) continue;
    std::stringstream list(value);
    std::string entry;
    while (std::getline(list, entry, ':')) {
      if (entry.empty()) continue;
      if (const std::string problem = manifestProblem(entry); !problem.empty())
        throw EnvironmentError(std::string(variable) + " names " + shownText(entry, kShownPathLimit) +
                               ", which is not a Vulkan driver manifest (" + escapeControls(problem) +
                               "); fix it or unset " + variable);
    }
  }
}

} // namespace graphsim::app
