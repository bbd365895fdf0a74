#include "ui/settings.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "base/output_files.h"

namespace tidal::ui {
namespace {

constexpr int kMinWindowSide = 200;
constexpr int kMaxWindowSide = 16384;

int window_side(const nlohmann::json& root, const char* key, int default_value,
                const std::string& path) {
  if (!root.contains(key)) return default_value;
  const nlohmann::json& v = root.at(key);
  if (!v.is_number_integer() || v.get<int64_t>() < kMinWindowSide ||
      v.get<int64_t>() > kMaxWindowSide) {
    throw InputError(fmt::format("{}: {}: expected an integer in [{}, {}], got {}", path, key,
                                 kMinWindowSide, kMaxWindowSide, v.dump()));
  }
  return v.get<int>();
}

}  // namespace

std::string settings_path() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg != nullptr && *xdg != '\0') return std::string(xdg) + "/tidal/dash.json";
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return std::string(home) + "/.config/tidal/dash.json";
  return "";
}

Settings read_settings(const std::string& path) {
  Settings settings;
  std::ifstream in(path, std::ios::binary);
  if (!in) return settings;
  std::ostringstream text;
  text << in.rdbuf();
  const nlohmann::json root = nlohmann::json::parse(text.str(), nullptr, false);
  if (root.is_discarded() || !root.is_object()) {
    throw InputError(fmt::format("{}: not a JSON object", path));
  }
  for (const auto& [key, value] : root.items()) {
    if (key != "window_width" && key != "window_height" && key != "theme" &&
        key != "recent_files") {
      throw InputError(fmt::format("{}: {}: unknown key", path, key));
    }
  }
  settings.window_width = window_side(root, "window_width", settings.window_width, path);
  settings.window_height = window_side(root, "window_height", settings.window_height, path);
  if (root.contains("theme")) {
    const nlohmann::json& theme = root.at("theme");
    if (theme != "dark" && theme != "light") {
      throw InputError(
          fmt::format("{}: theme: expected \"dark\" or \"light\", got {}", path, theme.dump()));
    }
    settings.light_theme = theme == "light";
  }
  if (root.contains("recent_files")) {
    const nlohmann::json& recent = root.at("recent_files");
    if (!recent.is_array()) {
      throw InputError(fmt::format("{}: recent_files: expected an array of paths", path));
    }
    for (size_t i = 0; i < recent.size(); ++i) {
      if (!recent[i].is_string()) {
        throw InputError(fmt::format("{}: recent_files[{}]: expected a path string", path, i));
      }
      if (settings.recent_files.size() < kMaxRecentFiles) {
        settings.recent_files.push_back(recent[i].get<std::string>());
      }
    }
  }
  return settings;
}

void write_settings(const std::string& path, const Settings& settings) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const nlohmann::ordered_json root{{"window_width", settings.window_width},
                                    {"window_height", settings.window_height},
                                    {"theme", settings.light_theme ? "light" : "dark"},
                                    {"recent_files", settings.recent_files}};
  base::write_output_text(path, root.dump(2) + "\n");
}

void add_recent_file(Settings& settings, const std::string& path) {
  std::vector<std::string>& recent = settings.recent_files;
  recent.erase(std::remove(recent.begin(), recent.end(), path), recent.end());
  recent.insert(recent.begin(), path);
  if (recent.size() > kMaxRecentFiles) recent.resize(kMaxRecentFiles);
}

}  // namespace tidal::ui
