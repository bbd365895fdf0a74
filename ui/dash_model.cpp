#include "ui/dash_model.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "base/input_error.h"
#include "reports/report.h"

namespace tidal::ui {
namespace {

// Live plots are derived again at most this often, and at most once per four derivation times
// (a run of millions of requests takes longer to derive).
constexpr double kLiveRefreshMin_s = 0.25;
constexpr double kLiveRefreshCostFactor = 4.0;

}  // namespace

DashModel::DashModel(std::string out_dir)
    : scenario_(ScenarioDocument::from_default()), out_dir_(std::move(out_dir)) {}

void DashModel::load(const std::string& path) {
  namespace fs = std::filesystem;
  if (fs::is_directory(path)) {
    if (!reports::is_run_folder(path)) {
      throw InputError(fmt::format("{}: not a run folder (no summary.json)", path));
    }
    add_run(load_run_folder(path));
    banner_ = {false, fmt::format("opened run {}", path)};
  } else if (fs::path(path).extension() == ".json") {
    scenario_ = ScenarioDocument::from_file(path);
    banner_ = {false, fmt::format("loaded scenario {}", path)};
  } else {
    scenario_ = ScenarioDocument::from_trace(path);
    banner_ = {false, fmt::format("loaded trace {} on the default fleet", path)};
  }
  add_recent_file(settings_, path);
}

std::string DashModel::next_run_dir() const {
  const std::string name = scenario_.scenario().name;
  for (int k = 1;; ++k) {
    const std::string dir =
        (std::filesystem::path(out_dir_) / fmt::format("{}-{}", name, k)).string();
    if (!std::filesystem::exists(dir)) return dir;
  }
}

void DashModel::start_run() {
  if (job_.busy()) throw InputError("a run is already going (Esc cancels it)");
  if (!scenario_.valid()) {
    throw InputError(fmt::format("the scenario is invalid: {}", scenario_.error()));
  }
  job_.start(scenario_.scenario(), next_run_dir());
  drop_live();
  live_name_ = scenario_.scenario().name;
  show_live_ = true;
  banner_ = {false, fmt::format("running {} into {}", scenario_.scenario().name, job_.out_dir())};
}

void DashModel::cancel_run() {
  if (job_.busy()) job_.cancel();
}

bool DashModel::poll() {
  if (job_.busy()) refresh_live(false, "live");
  std::optional<RunOutcome> outcome = job_.take_outcome();
  if (!outcome) return false;
  handle(*outcome);
  return true;
}

RunOutcome DashModel::wait_for_run() {
  RunOutcome outcome = job_.wait();
  handle(outcome);
  return outcome;
}

void DashModel::handle(const RunOutcome& outcome) {
  last_outcome_ = RunOutcome{outcome.status, outcome.message, nullptr, outcome.wall_s};
  switch (outcome.status) {
    case RunOutcome::Status::succeeded:
      drop_live();
      add_run(outcome.run);
      banner_ = {false,
                 fmt::format("run finished in {:.1f} s: {}", outcome.wall_s, outcome.run->dir)};
      break;
    case RunOutcome::Status::cancelled:
      refresh_live(true, "cancelled");           // the rows so far stay visible
      if (live_ == nullptr) show_live_ = false;  // cancelled before its first rows
      banner_ = {false, "run cancelled"};
      break;
    case RunOutcome::Status::failed:
      drop_live();
      // Workload errors (a bad generator spec, a missing trace) name the scenario's fields.
      if (outcome.message.rfind(scenario_.label() + ":", 0) == 0) {
        scenario_.report_error(outcome.message);
      }
      banner_ = {true, outcome.message};
      break;
  }
}

void DashModel::add_run(std::shared_ptr<const LoadedRun> run) {
  runs_.push_back(std::move(run));
  select_run(runs_.size() - 1);
}

void DashModel::refresh_live(bool force, const char* state) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  if (!force && (job_.live_version() == live_version_seen_ || start < next_live_refresh_)) return;
  live_version_seen_ = job_.live_version();
  job_.copy_live_rows(live_rows_);
  if (live_rows_.timeline.empty() && live_rows_.requests.empty()) return;
  const std::string folder = std::filesystem::path(job_.out_dir()).filename().string();
  const bool first = live_ == nullptr || live_->series.start_s.empty();
  live_ = make_live_run(live_rows_, job_.out_dir(),
                        fmt::format("{} ({}, {})", live_name_, folder, state), live_name_);
  const double took_s = std::chrono::duration<double>(Clock::now() - start).count();
  next_live_refresh_ =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                         std::max(kLiveRefreshMin_s, kLiveRefreshCostFactor * took_s)));
  if (show_live_ && !live_rows_.timeline.empty()) {
    const plot::AxisRange limits{0.0, live_->series.end_s.back()};
    if (first) {
      time_axis_.set_limits(limits);  // a new run: whatever zoom the previous one had goes
    } else {
      time_axis_.follow_limits(limits);
    }
  }
}

void DashModel::drop_live() {
  live_.reset();
  live_rows_ = LiveRows{};
  live_version_seen_ = 0;
  show_live_ = false;
}

const LoadedRun* DashModel::shown() const {
  return show_live_ ? live_.get() : current();
}

void DashModel::show_live() {
  if (live_ == nullptr) return;
  show_live_ = true;
  const RunSeries& s = live_->series;
  if (!s.start_s.empty()) time_axis_.set_limits({0.0, s.end_s.back()});
}

void DashModel::select_run(size_t index) {
  if (index >= runs_.size()) return;
  show_live_ = false;
  current_ = index;
  const RunSeries& s = runs_[index]->series;
  if (!s.start_s.empty()) time_axis_.set_limits({s.start_s.front(), s.end_s.back()});
}

void DashModel::pin_current() {
  if (!current_) throw InputError("no run to pin yet (run the scenario or open a run folder)");
  pinned_ = current_;
  banner_ = {false, fmt::format("pinned {}; change a knob and run again to compare",
                                runs_[*pinned_]->label)};
}

void DashModel::export_report(const std::string& html_path) {
  if (!current_) throw InputError("no run to report yet");
  std::vector<std::string> folders;
  if (pinned_ && *pinned_ != *current_) folders.push_back(runs_[*pinned_]->dir);
  folders.push_back(runs_[*current_]->dir);
  const reports::ReportPaths paths = reports::write_report(folders, html_path);
  banner_ = {false, fmt::format("wrote {} (and .md, .json)", paths.html)};
}

const LoadedRun* DashModel::current() const {
  return current_ ? runs_[*current_].get() : nullptr;
}

const LoadedRun* DashModel::pinned() const {
  return pinned_ ? runs_[*pinned_].get() : nullptr;
}

void DashModel::request_view(View view) {
  view_ = view;
  view_requested_ = true;
}

bool DashModel::take_view_request() {
  const bool requested = view_requested_;
  view_requested_ = false;
  return requested;
}

}  // namespace tidal::ui
