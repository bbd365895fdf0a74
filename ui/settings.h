// What the dashboard remembers between sessions: window size, theme and recent files, in
// $XDG_CONFIG_HOME/tidal/dash.json (or ~/.config/tidal/dash.json).
#pragma once

#include <string>
#include <vector>

namespace tidal::ui {

struct Settings {
  int window_width = 1600;
  int window_height = 1000;
  bool light_theme = false;
  std::vector<std::string> recent_files;  // most recent first, at most kMaxRecentFiles
};

inline constexpr size_t kMaxRecentFiles = 10;

// The settings file: $XDG_CONFIG_HOME/tidal/dash.json when XDG_CONFIG_HOME is set and not
// empty, else $HOME/.config/tidal/dash.json; empty when neither variable is set.
std::string settings_path();

// Defaults when the file does not exist. InputError naming the file and key when it is not
// valid JSON or a value has the wrong type (the dashboard shows it and keeps the defaults).
Settings read_settings(const std::string& path);

// Creates the folder when needed. InputError when the file cannot be written.
void write_settings(const std::string& path, const Settings& settings);

// Moves `path` to the front of the recent files (once), dropping the oldest past the limit.
void add_recent_file(Settings& settings, const std::string& path);

}  // namespace tidal::ui
