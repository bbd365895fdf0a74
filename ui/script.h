// Dashboard scripts: a line-based sequence of UI actions for headless runs and tests.
//
//   load PATH                  scenario JSON, trace file or run folder
//   set JSON.PATH VALUE        edit the scenario (VALUE is JSON, or else a string)
//   run                        run the scenario and wait until it finishes
//   start                      start a run and go on (screenshots then show its progress)
//   cancel                     cancel the run going, if any, and wait until it has stopped
//   pin                        pin the current run for comparison
//   rerun                      run the edited scenario again and show the comparison
//   view NAME                  workload | queue | fleet | latency | cdf | kv | cost | tenants |
//                              compare
//   theme dark|light
//   screenshot PATH            save a PNG of the window now
//   wait-frames N              render N frames
//   export-report PATH         write the report (report.html; pinned vs current when pinned)
//
// Blank lines and lines starting with '#' are ignored. Paths are taken as written (relative to
// the current folder) and run to the end of the line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ui/views.h"

namespace tidal::ui {

enum class ScriptOp {
  load,
  set,
  run,
  start,
  cancel,
  pin,
  rerun,
  view,
  theme,
  screenshot,
  wait_frames,
  export_report
};

struct ScriptCommand {
  ScriptOp op = ScriptOp::run;
  int line = 0;            // 1-based line in the script file
  std::string argument;    // the path, JSON path, view or theme name ("" for the others)
  std::string value;       // set: the value text
  int64_t num_frames = 0;  // wait-frames
};

struct Script {
  std::string file;  // labels messages: "file:line: ..."
  std::vector<ScriptCommand> commands;
};

// InputError "file:line: ..." for an unknown command, a missing or extra argument, a bad view
// or theme name, or a frame count that is not a positive integer.
Script parse_script(std::string_view text, const std::string& file);
// Reads and parses a script file; InputError when it cannot be read.
Script read_script(const std::string& path);

// "file:line: what" for errors found while a command runs.
std::string script_error(const Script& script, const ScriptCommand& command, std::string_view what);

}  // namespace tidal::ui
