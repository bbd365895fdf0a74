#include "ui/run_job.h"

#include <cassert>

#include "base/input_error.h"
#include "sim/metrics.h"
#include "sim/run_output.h"
#include "sim/simulator.h"

namespace tidal::ui {
namespace {

constexpr double kHistoryEvery_s = 0.05;  // progress points at most this often

}  // namespace

class RunJob::Sink final : public sim::ProgressSink {
 public:
  Sink(RunJob& job, const sim::Scenario& scenario) : job_(job), scenario_(scenario) {}
  void update(const sim::ProgressReport& report) override { job_.record_report(scenario_, report); }
  bool stop_requested() const override { return job_.cancel_requested_; }

 private:
  RunJob& job_;
  const sim::Scenario& scenario_;
};

const char* run_stage_text(RunStage stage) {
  switch (stage) {
    case RunStage::idle:
      return "idle";
    case RunStage::loading_workloads:
      return "loading workloads";
    case RunStage::simulating:
      return "simulating";
    case RunStage::writing:
      return "writing the run folder";
    case RunStage::reading_back:
      return "reading the run folder";
    case RunStage::finished:
      return "finished";
  }
  return "";
}

RunJob::~RunJob() {
  if (thread_.joinable()) {
    cancel();
    thread_.join();
  }
}

void RunJob::start(sim::Scenario scenario, std::string out_dir) {
  assert(!busy());
  scenario.output.requests_csv = true;
  scenario.output.timeline_csv = true;
  out_dir_ = std::move(out_dir);
  fraction_done_ = 0.0;
  cancel_requested_ = false;
  done_ = false;
  live_version_ = 0;
  {
    const std::lock_guard lock(mutex_);
    history_.clear();
    live_ = LiveRows{};
    outcome_ = RunOutcome{};
  }
  start_ = std::chrono::steady_clock::now();
  stage_ = RunStage::loading_workloads;
  thread_ = std::thread(&RunJob::work, this, std::move(scenario));
}

double RunJob::wall_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::vector<ProgressPoint> RunJob::progress_history() const {
  const std::lock_guard lock(mutex_);
  return history_;
}

void RunJob::copy_live_rows(LiveRows& into) const {
  const std::lock_guard lock(mutex_);
  append_new_rows(live_, into);
}

void RunJob::record_report(const sim::Scenario& scenario, const sim::ProgressReport& report) {
  record_progress(report.fraction_done);
  if (report.new_rows.empty() && report.newly_done.empty()) return;
  {
    const std::lock_guard lock(mutex_);
    append_report(scenario, report, live_);
  }
  ++live_version_;
}

void RunJob::record_progress(double fraction_done) {
  fraction_done_ = fraction_done;
  const double now = wall_s();
  const std::lock_guard lock(mutex_);
  if (history_.empty() || now - history_.back().wall_s >= kHistoryEvery_s || fraction_done >= 1.0) {
    history_.push_back({now, fraction_done});
  }
}

std::shared_ptr<const LoadedRun> RunJob::simulate_to_folder(const sim::Scenario& scenario) {
  sim::RequestTable table = sim::load_workloads(scenario);
  if (cancel_requested_) return nullptr;
  LiveRows live = live_rows_for(table);  // sorts the names: outside the lock the UI takes
  {
    const std::lock_guard lock(mutex_);
    live_ = std::move(live);
  }
  stage_ = RunStage::simulating;
  record_progress(0.0);
  Sink sink(*this, scenario);
  sim::RunResult result = sim::simulate(scenario, std::move(table), &sink);
  if (result.stopped_early) return nullptr;
  stage_ = RunStage::writing;
  const sim::RunMetrics metrics = sim::compute_metrics(scenario, result);
  sim::write_run_output(out_dir_, scenario, result, metrics);
  stage_ = RunStage::reading_back;
  return load_run_folder(out_dir_);
}

void RunJob::work(sim::Scenario scenario) {
  RunOutcome outcome;
  try {
    outcome.run = simulate_to_folder(scenario);
    if (outcome.run == nullptr) outcome.status = RunOutcome::Status::cancelled;
  } catch (const InputError& e) {
    outcome.status = RunOutcome::Status::failed;
    outcome.message = e.what();
  } catch (const std::exception& e) {
    outcome.status = RunOutcome::Status::failed;
    outcome.message = std::string("internal error: ") + e.what();
  }
  outcome.wall_s = wall_s();
  {
    const std::lock_guard lock(mutex_);
    outcome_ = std::move(outcome);
  }
  stage_ = RunStage::finished;
  done_ = true;
}

std::optional<RunOutcome> RunJob::take_outcome() {
  if (!thread_.joinable() || !done_) return std::nullopt;
  return wait();
}

RunOutcome RunJob::wait() {
  assert(busy());
  thread_.join();
  done_ = false;
  stage_ = RunStage::idle;
  const std::lock_guard lock(mutex_);
  return std::move(outcome_);
}

}  // namespace tidal::ui
