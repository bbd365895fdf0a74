// `tidal dash`: the interactive dashboard, and its headless screenshot mode for tests and docs
// (docs/dashboard.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tidal::ui {

struct DashOptions {
  // Scenario JSON, trace files and run folders to open (two or more run folders: the first is
  // pinned, so they show compared).
  std::vector<std::string> inputs;
  std::optional<std::string> screenshot;  // render headless, save this PNG, exit
  int64_t num_frames = 5;                 // frames rendered (after the script) before it
  std::optional<std::string> size;        // "WxH"; default: the remembered window size
  std::optional<std::string> script;      // actions to perform first (ui/script.h)
  std::string out_dir = "out/dash";       // runs write <out_dir>/<scenario name>-<k>/
};

// Returns the exit status (0). InputError for bad options, inputs or script lines (the CLI
// prints it and exits 1).
int run_dash(const DashOptions& options);

// "1600x1000" -> {1600, 1000}; InputError unless both are integers in [200, 16384].
std::pair<int, int> parse_window_size(const std::string& text);

}  // namespace tidal::ui
