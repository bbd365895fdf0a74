// The dashboard's state and actions, without any drawing: the scenario being edited, the runs
// loaded or produced, the pinned run, the background job, the view shown. The ImGui frame and
// the script runner both act through it, so everything a script does is what a click does.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ui/live_run.h"
#include "ui/loaded_run.h"
#include "ui/plot/axis_view.h"
#include "ui/run_job.h"
#include "ui/scenario_document.h"
#include "ui/settings.h"
#include "ui/views.h"

namespace tidal::ui {

struct Banner {
  bool is_error = false;
  std::string text;  // empty: no banner
};

class DashModel {
 public:
  // Runs started here write their folders under `out_dir` as <scenario name>-<k>.
  explicit DashModel(std::string out_dir);

  ScenarioDocument& scenario() { return scenario_; }
  const ScenarioDocument& scenario() const { return scenario_; }

  // A folder holding summary.json opens as a run (and becomes the current one); a .json file
  // loads into the editor as a scenario; any other file is a trace replayed on the default
  // fleet. The path joins the recent files. InputError when it cannot be loaded.
  void load(const std::string& path);

  // Starts the edited scenario on the background job. InputError when it is invalid or a run
  // is already going.
  void start_run();
  void cancel_run();
  bool running() const { return job_.busy(); }
  // Call once a frame: takes the running job's new live rows (at most a few times a second)
  // and picks up a finished run. True when a run ended in this call.
  bool poll();
  // Blocks until the running job ends and handles it like poll(); returns its outcome.
  RunOutcome wait_for_run();
  // How the latest run ended (status and message; no run data); empty before the first.
  const std::optional<RunOutcome>& last_outcome() const { return last_outcome_; }

  // Pins the current run as the comparison baseline. InputError without a current run.
  void pin_current();
  void unpin() { pinned_.reset(); }
  void select_run(size_t index);

  // Writes the report (reports/ code) for the pinned and current runs, or the current run
  // alone. InputError without a run or when the report cannot be written.
  void export_report(const std::string& html_path);

  const std::vector<std::shared_ptr<const LoadedRun>>& runs() const { return runs_; }
  const LoadedRun* current() const;
  const LoadedRun* pinned() const;
  // The live rows of the run going, or of the last run when it was cancelled (partial
  // LoadedRun, ui/live_run.h); null before its first rows, and once a run completes or fails.
  const LoadedRun* live() const { return live_.get(); }
  // What the views draw: the live run from start_run() until a run is selected, loaded or
  // completes (its folder then replaces the live rows); otherwise the current run.
  const LoadedRun* shown() const;
  bool showing_live() const { return show_live_; }
  // Shows the live run again (after another run was selected).
  void show_live();
  std::optional<size_t> current_index() const { return current_; }
  std::optional<size_t> pinned_index() const { return pinned_; }
  const RunJob& job() const { return job_; }
  const std::string& out_dir() const { return out_dir_; }

  // The view shown. request_view() also makes the tab bar switch to it on the next frame.
  View view() const { return view_; }
  void set_view(View view) { view_ = view; }
  void request_view(View view);
  // True once after request_view(): the tab bar selects view() programmatically.
  bool take_view_request();

  Settings& settings() { return settings_; }
  const Settings& settings() const { return settings_; }
  plot::AxisView& time_axis() { return time_axis_; }
  Banner& banner() { return banner_; }

 private:
  void add_run(std::shared_ptr<const LoadedRun> run);
  std::string next_run_dir() const;
  void handle(const RunOutcome& outcome);
  // Copies the job's new live rows and derives the live run again; unless `force`, only when
  // there are new rows and the last derivation is a few of its own durations ago.
  void refresh_live(bool force, const char* state);
  void drop_live();

  ScenarioDocument scenario_;
  std::vector<std::shared_ptr<const LoadedRun>> runs_;
  std::optional<size_t> current_;
  std::optional<size_t> pinned_;
  RunJob job_;
  std::string out_dir_;
  View view_ = View::workload;
  bool view_requested_ = false;
  Settings settings_;
  plot::AxisView time_axis_;
  Banner banner_;
  std::optional<RunOutcome> last_outcome_;
  LiveRows live_rows_;  // the job's live rows copied so far
  std::shared_ptr<const LoadedRun> live_;
  std::string live_name_;  // the scenario name of the live run
  bool show_live_ = false;
  uint64_t live_version_seen_ = 0;
  std::chrono::steady_clock::time_point next_live_refresh_;
};

}  // namespace tidal::ui
