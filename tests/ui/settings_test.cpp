#include "ui/settings.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "base/input_error.h"
#include "tests/scratch_folder.h"

namespace tidal::ui {
namespace {

const std::string kScratch = "tidal_ui_settings";

void write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(Settings, PathFollowsXdgConfigHomeThenHome) {
  ::setenv("XDG_CONFIG_HOME", "/x/config", 1);
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(settings_path(), "/x/config/tidal/dash.json");
  ::setenv("XDG_CONFIG_HOME", "", 1);
  EXPECT_EQ(settings_path(), "/home/u/.config/tidal/dash.json");
  ::unsetenv("XDG_CONFIG_HOME");
  ::unsetenv("HOME");
  EXPECT_EQ(settings_path(), "");
}

TEST(Settings, MissingFileGivesDefaultsAndWritesRoundTrip) {
  const ScratchFolder scratch(kScratch, "round_trip");
  const std::filesystem::path file = scratch.path() / "new" / "tidal" / "dash.json";
  const Settings defaults = read_settings(file.string());
  EXPECT_EQ(defaults.window_width, 1600);
  EXPECT_EQ(defaults.window_height, 1000);
  EXPECT_FALSE(defaults.light_theme);

  Settings s;
  s.window_width = 1280;
  s.window_height = 720;
  s.light_theme = true;
  s.recent_files = {"a.json", "runs/b"};
  write_settings(file.string(), s);
  const Settings back = read_settings(file.string());
  EXPECT_EQ(back.window_width, 1280);
  EXPECT_EQ(back.window_height, 720);
  EXPECT_TRUE(back.light_theme);
  EXPECT_EQ(back.recent_files, s.recent_files);
}

TEST(Settings, BadFilesNameTheKey) {
  const ScratchFolder scratch(kScratch, "bad");
  const std::filesystem::path file = scratch.path() / "bad.json";
  const auto error_of = [&](const std::string& text) {
    write(file, text);
    try {
      read_settings(file.string());
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string f = file.string();
  EXPECT_EQ(error_of("{"), f + ": not a JSON object");
  EXPECT_EQ(error_of(R"({"window_width": 50})"),
            f + ": window_width: expected an integer in [200, 16384], got 50");
  EXPECT_EQ(error_of(R"({"theme": "blue"})"),
            f + ": theme: expected \"dark\" or \"light\", got \"blue\"");
  EXPECT_EQ(error_of(R"({"recent_files": [1]})"), f + ": recent_files[0]: expected a path string");
  EXPECT_EQ(error_of(R"({"colour": 1})"), f + ": colour: unknown key");
}

TEST(Settings, RecentFilesMoveToTheFrontOnceAndAreCapped) {
  Settings s;
  for (int i = 0; i < 12; ++i) add_recent_file(s, std::string(1, 'f') + std::to_string(i));
  EXPECT_EQ(s.recent_files.size(), kMaxRecentFiles);
  EXPECT_EQ(s.recent_files.front(), "f11");
  EXPECT_EQ(s.recent_files.back(), "f2");
  add_recent_file(s, "f5");
  EXPECT_EQ(s.recent_files.front(), "f5");
  EXPECT_EQ(s.recent_files.size(), kMaxRecentFiles);
  EXPECT_EQ(std::count(s.recent_files.begin(), s.recent_files.end(), "f5"), 1);
}

}  // namespace
}  // namespace tidal::ui
