// `tidal dash [SCENARIO|TRACE|RUN_DIR...] [--screenshot PNG [--frames N] [--size WxH]
// [--script FILE]] [--out DIR]`: wiring of ui/ to the command line.
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/input_error.h"
#include "cli/commands.h"
#include "ui/dash.h"

namespace tidal::cli {

void add_dash_command(CLI::App& app) {
  auto options = std::make_shared<ui::DashOptions>();
  auto screenshot = std::make_shared<std::string>();
  auto size = std::make_shared<std::string>();
  auto script = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "dash", "Interactive dashboard: edit a scenario, run it, compare runs (docs/dashboard.md)");
  cmd->add_option("inputs", options->inputs,
                  "scenario JSON, trace files or run folders to open (two run folders: compared)");
  cmd->add_option(
      "--screenshot", *screenshot,
      "render headless, save this PNG and exit (under Xvfb: xvfb-run -a tidal dash ...)");
  cmd->add_option("--frames", options->num_frames, "frames rendered before the screenshot")
      ->capture_default_str();
  cmd->add_option("--size", *size, "window size WIDTHxHEIGHT (default: the remembered size)");
  cmd->add_option("--script", *script,
                  "actions to perform before the screenshot (load, set, run, pin, rerun, view, "
                  "theme, screenshot, wait-frames, export-report)");
  cmd->add_option("--out", options->out_dir, "folder for the runs started in the dashboard")
      ->capture_default_str();
  cmd->callback([options, screenshot, size, script] {
    if (!screenshot->empty()) options->screenshot = *screenshot;
    if (!size->empty()) options->size = *size;
    if (!script->empty()) options->script = *script;
#if TIDAL_HAVE_UI
    ui::run_dash(*options);
#else
    throw InputError(
        "dash: this tidal was built without the dashboard (TIDAL_UI=OFF, or imgui, glfw3 or "
        "OpenGL development packages missing at configure time)");
#endif
  });
}

}  // namespace tidal::cli
