// Plays a dashboard script (ui/script.h) against the model, one step per frame: commands run
// until one has to wait for frames to pass (a run in progress, wait-frames, a screenshot).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "ui/dash_model.h"
#include "ui/script.h"

namespace tidal::ui {

class ScriptRunner {
 public:
  explicit ScriptRunner(Script script) : script_(std::move(script)) {}

  // Call once a frame before drawing it. Returns a PNG path when the frame about to be drawn
  // is to be saved. InputError "file:line: ..." when a command fails (a run that fails or is
  // cancelled fails its `run` line).
  std::optional<std::string> step(DashModel& model);
  bool done() const;

 private:
  // Performs commands[next_]; false when it made the script wait.
  bool perform(DashModel& model, const ScriptCommand& command);
  void finish_run(DashModel& model);

  Script script_;
  size_t next_ = 0;                     // next command to perform
  std::optional<size_t> waiting_run_;   // the run/rerun command whose run is going
  bool waiting_cancel_ = false;         // a cancel waits for the run to stop
  int64_t frames_left_ = 0;             // frames to render before going on
  std::optional<std::string> capture_;  // screenshot taken when frames_left_ reaches 0
};

}  // namespace tidal::ui
