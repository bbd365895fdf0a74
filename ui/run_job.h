// A simulation run on a background thread: loads the workloads, simulates with progress
// reports, writes the run folder and reads it back for the views. The UI thread polls it once
// a frame and stays responsive. Each progress report's timeline rows and ended requests are
// kept (copy_live_rows) so the views plot the run as it goes. cancel() asks the simulator to stop
// at its next progress report (sim::ProgressSink::stop_requested); a cancelled run writes no
// folder, and its live rows stay readable.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sim/scenario.h"
#include "ui/live_run.h"
#include "ui/loaded_run.h"

namespace tidal::ui {

enum class RunStage { idle, loading_workloads, simulating, writing, reading_back, finished };

struct RunOutcome {
  enum class Status { succeeded, failed, cancelled };
  Status status = Status::succeeded;
  std::string message;                   // the InputError text when failed
  std::shared_ptr<const LoadedRun> run;  // succeeded only
  double wall_s = 0.0;
};

// (wall seconds since the start, share of requests done), for the live progress plot.
struct ProgressPoint {
  double wall_s = 0.0;
  double fraction_done = 0.0;
};

class RunJob {
 public:
  RunJob() = default;
  RunJob(const RunJob&) = delete;
  RunJob& operator=(const RunJob&) = delete;
  ~RunJob();  // cancels a run in progress and waits for it

  // Starts a run of `scenario` writing its folder to `out_dir`. The dashboard needs
  // requests.csv and timeline.csv, so those outputs are switched on. Requires !busy().
  void start(sim::Scenario scenario, std::string out_dir);
  // Asks the run to stop; it ends as `cancelled` at its next progress report (or before it
  // simulates). A run whose last event has passed completes anyway.
  void cancel() { cancel_requested_ = true; }

  // True from start() until the outcome has been taken.
  bool busy() const { return thread_.joinable(); }
  RunStage stage() const { return stage_; }
  double fraction_done() const { return fraction_done_; }
  bool cancel_requested() const { return cancel_requested_; }
  double wall_s() const;
  const std::string& out_dir() const { return out_dir_; }
  std::vector<ProgressPoint> progress_history() const;
  // Grows with every progress report that handed over rows or requests (from 0 at start()).
  uint64_t live_version() const { return live_version_; }
  // Appends the live rows `into` lacks (see append_new_rows); `into` empty takes them all.
  void copy_live_rows(LiveRows& into) const;

  // The outcome once the thread has finished (joins it); empty while it runs or when idle.
  std::optional<RunOutcome> take_outcome();
  // Waits for the run to finish and returns its outcome; requires busy().
  RunOutcome wait();

 private:
  class Sink;
  void work(sim::Scenario scenario);
  // Simulates, then writes and reads back the folder; an empty result when cancelled.
  std::shared_ptr<const LoadedRun> simulate_to_folder(const sim::Scenario& scenario);
  void record_progress(double fraction_done);
  void record_report(const sim::Scenario& scenario, const sim::ProgressReport& report);

  std::thread thread_;
  std::atomic<RunStage> stage_{RunStage::idle};
  std::atomic<double> fraction_done_{0.0};
  std::atomic<bool> cancel_requested_{false};
  std::atomic<bool> done_{false};
  std::atomic<uint64_t> live_version_{0};
  std::chrono::steady_clock::time_point start_;
  std::string out_dir_;
  mutable std::mutex mutex_;            // guards history_, live_ and outcome_
  std::vector<ProgressPoint> history_;  // [num progress reports]
  LiveRows live_;
  RunOutcome outcome_;
};

const char* run_stage_text(RunStage stage);

}  // namespace tidal::ui
