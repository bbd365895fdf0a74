// The run folder written as the run goes (sim/run_output_stream.h, sim/requests_csv.h):
// streamed files equal a whole write after the run, rows keep request order whatever order
// requests end in, and a run that fails or stops leaves an earlier folder as it was.
#include "sim/run_output_stream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "sim/progress_bar.h"
#include "sim/run_output.h"
#include "sim/simulate_command.h"
#include "sim_test_util.h"

namespace tidal::sim {
namespace {

namespace fs = std::filesystem;
using testing::h100_pool;
using testing::scenario_from;
using testing::TempDir;

// About 1,200 requests on two replicas: tens of thousands of events, so many reports, and
// long requests that end after later ones.
Scenario busy_scenario() {
  const nlohmann::json generator = {
      {"kind", "poisson"},
      {"rate", 10},
      {"duration_s", 120},
      {"prompt", {{"dist", "lognormal"}, {"median", 600}, {"sigma", 0.8}, {"max", 8000}}},
      {"output", {{"dist", "lognormal"}, {"median", 150}, {"sigma", 0.8}, {"max", 1500}}}};
  return scenario_from({{"name", "stream"},
                        {"seed", 11},
                        {"timeline_interval_s", 5},
                        {"workloads", {{{"name", "chat"}, {"generator", generator}}}},
                        {"fleet", {{"pools", {h100_pool(2)}}}}});
}

Scenario example(const std::string& path) {
  return load_scenario_file(std::string(TIDAL_SOURCE_DIR) + "/examples/" + path);
}

// Every file of a folder by name, with its bytes.
std::map<std::string, std::string> read_folder(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    files[e.path().filename().string()] = text.str();
  }
  return files;
}

// The names in `dir` (hidden temporaries included).
std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Looks into the temporary folder at each report; throws or asks to stop after `limit` reports.
class FailingSink final : public ProgressSink {
 public:
  enum class AtLimit { stop, throw_error };
  FailingSink(fs::path parent, int limit, AtLimit at_limit)
      : parent_(std::move(parent)), limit_(limit), at_limit_(at_limit) {}

  void update(const ProgressReport& report) override {
    ++num_reports;
    if (report.last) return;
    for (const std::string& name : names_in(parent_)) {
      if (!name.starts_with(".run.tidal-new-")) continue;
      temporary_names = names_in(parent_ / name);
    }
    if (at_limit_ == AtLimit::throw_error && num_reports == limit_) {
      throw std::runtime_error("a failure in the middle of the run");
    }
  }
  bool stop_requested() const override {
    return at_limit_ == AtLimit::stop && num_reports >= limit_;
  }

  int num_reports = 0;
  std::vector<std::string> temporary_names;  // in the temporary folder at the last report

 private:
  fs::path parent_;
  int limit_;
  AtLimit at_limit_;
};

// The folder written as the run goes.
// `num_rows_during_run`: the requests.csv rows written before finish().
std::map<std::string, std::string> streamed_folder(const Scenario& s, const fs::path& dir,
                                                   int64_t* num_rows_during_run = nullptr) {
  RunOutputStream stream(dir.string(), s);
  RunResult r = simulate(s, load_workloads(s), &stream);
  const RunMetrics m = compute_metrics(s, r);
  if (num_rows_during_run != nullptr) *num_rows_during_run = stream.num_request_rows_written();
  stream.finish(r, m);
  return read_folder(dir);
}

// The folder written after the run by write_run_output (the writer before streaming).
std::map<std::string, std::string> whole_folder(const Scenario& s, const fs::path& dir) {
  RunResult r = run_scenario(s);
  const RunMetrics m = compute_metrics(s, r);
  write_run_output(dir.string(), s, r, m);
  return read_folder(dir);
}

TEST(RunOutputStream, StreamedFolderEqualsTheWholeWrite) {
  const TempDir dir("stream_equal");
  const Scenario s = busy_scenario();
  int64_t num_rows_streamed = 0;
  const auto streamed = streamed_folder(s, dir.path() / "streamed", &num_rows_streamed);
  const auto whole = whole_folder(s, dir.path() / "whole");
  ASSERT_EQ(streamed.size(), 4u);  // summary.json, requests.csv, timeline.csv, trace.json
  EXPECT_EQ(streamed, whole);
  // Most rows went out during the run, not at its end.
  const auto num_rows =
      std::count(whole.at("requests.csv").begin(), whole.at("requests.csv").end(), '\n') - 1;
  EXPECT_GT(num_rows, 1000);
  EXPECT_GT(num_rows_streamed, num_rows / 2);
}

// Examples that touch every requests.csv column: autoscaling with spot interruptions
// (requeues), disaggregated serving (decode replicas and transfers), prefill stretch (HOL),
// sessions across two pools.
class StreamedExample : public ::testing::TestWithParam<const char*> {};

TEST_P(StreamedExample, EqualsTheWholeWrite) {
  std::string name = GetParam();
  std::replace(name.begin(), name.end(), '/', '_');
  const TempDir dir("stream_" + name);
  const Scenario s = example(GetParam());
  EXPECT_EQ(streamed_folder(s, dir.path() / "streamed"), whole_folder(s, dir.path() / "whole"));
}

INSTANTIATE_TEST_SUITE_P(Examples, StreamedExample,
                         ::testing::Values("fleet/spot.json", "disagg/h100-pd-2p3d.json",
                                           "hol/chunked.json", "fleet/sessions-prefix-aware.json",
                                           "admission/token-bucket.json"));

TEST(RequestsCsvWriter, RowsWaitForTheLowestUnendedRequest) {
  const Scenario s = busy_scenario();
  RunResult r = run_scenario(s);
  const auto n = static_cast<int64_t>(r.records.size());
  std::ostringstream whole;
  write_requests_csv(s, r, whole);

  // Requests end from the last to the first: nothing can go out before request 0 ends.
  std::ostringstream reversed;
  RequestsCsvWriter writer(s, n, reversed);
  const RequestsView view = requests_view(r);
  for (int64_t id = n - 1; id >= 1; --id) {
    const std::vector<int64_t> ended{id};
    writer.add_ended(ended, view);
    ASSERT_EQ(writer.num_rows_written(), 0) << "after request " << id;
  }
  const std::vector<int64_t> first{0};
  writer.add_ended(first, view);
  EXPECT_EQ(writer.num_rows_written(), n);
  writer.finish(view);
  EXPECT_EQ(reversed.str(), whole.str());

  // Interleaved: even ids first, then odd ones; each odd id releases itself and the next even.
  std::ostringstream interleaved;
  RequestsCsvWriter second(s, n, interleaved);
  std::vector<int64_t> evens;
  for (int64_t id = 0; id < n; id += 2) evens.push_back(id);
  second.add_ended(evens, view);
  EXPECT_EQ(second.num_rows_written(), 1);  // request 0 only
  for (int64_t id = 1; id < n; id += 2) {
    const std::vector<int64_t> ended{id};
    second.add_ended(ended, view);
    EXPECT_EQ(second.num_rows_written(), std::min(n, id + 2));
  }
  second.finish(view);
  EXPECT_EQ(interleaved.str(), whole.str());
}

TEST(RequestsCsvWriter, FinishWritesRowsNeverReported) {
  const Scenario s = busy_scenario();
  RunResult r = run_scenario(s);
  std::ostringstream whole;
  write_requests_csv(s, r, whole);
  std::ostringstream partial;
  RequestsCsvWriter writer(s, static_cast<int64_t>(r.records.size()), partial);
  const std::vector<int64_t> ended{0, 1, 2, 5};
  writer.add_ended(ended, requests_view(r));
  EXPECT_EQ(writer.num_rows_written(), 3);
  writer.finish(requests_view(r));
  EXPECT_EQ(partial.str(), whole.str());
}

// A run that throws or stops part way, with rows already in its temporary requests.csv,
// leaves the earlier run folder byte for byte and no temporary beside it.
TEST(RunOutputStream, FailedOrStoppedRunKeepsTheEarlierFolder) {
  const TempDir dir("stream_failed");
  const Scenario s = busy_scenario();
  const fs::path out = dir.path() / "run";
  const auto before = whole_folder(s, out);
  ASSERT_EQ(before.size(), 4u);

  for (const auto at_limit : {FailingSink::AtLimit::throw_error, FailingSink::AtLimit::stop}) {
    FailingSink sink(dir.path(), 6, at_limit);
    bool threw = false;
    try {
      RunOutputStream stream(out.string(), s, &sink);
      const RunResult r = simulate(s, load_workloads(s), &stream);
      EXPECT_TRUE(r.stopped_early);
      // Destroyed without finish().
    } catch (const std::runtime_error&) {
      threw = true;
    }
    EXPECT_EQ(threw, at_limit == FailingSink::AtLimit::throw_error);
    // During the run the temporary folder held requests.csv being written under a temporary
    // name of its own, and no summary.json.
    ASSERT_EQ(sink.temporary_names.size(), 1u);
    EXPECT_TRUE(sink.temporary_names[0].starts_with(".requests.csv.tidal-tmp-"))
        << sink.temporary_names[0];
    EXPECT_EQ(read_folder(out), before);
    EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"run"});
  }
}

TEST(RunOutputStream, InterruptedCommandWritesNothing) {
  const TempDir dir("stream_signal");
  const fs::path out = dir.path() / "run";
  const Scenario s = busy_scenario();
  const auto before = whole_folder(s, out);
  std::ofstream(dir.path() / "stream.json") << scenario_to_json(s).dump();
  SimulateOptions options;
  options.scenario_path = (dir.path() / "stream.json").string();
  options.out_dir = out.string();
  options.show_progress = false;
  const std::atomic<int> signal_number{2};  // as if SIGINT came before the first report
  options.stop_signal = &signal_number;
  EXPECT_EQ(run_simulate_command(options), "");
  EXPECT_EQ(read_folder(out), before);
  EXPECT_EQ(names_in(dir.path()), (std::vector<std::string>{"run", "stream.json"}));

  // Not stopped: the same folder as the whole write, and --verbose adds the speed line.
  options.stop_signal = nullptr;
  options.verbose = true;
  const std::string text = run_simulate_command(options);
  EXPECT_NE(text.find("\nspeed       "), std::string::npos) << text;
  EXPECT_NE(text.find(" events/s, "), std::string::npos) << text;
  EXPECT_EQ(read_folder(out), before);
  options.verbose = false;
  EXPECT_EQ(run_simulate_command(options).find("\nspeed "), std::string::npos);
}

TEST(ProgressBar, LineShowsSimulatedTimeAndRates) {
  const std::vector<RequestRecord> records(1000);
  ProgressReport report;
  report.fraction_done = 0.5;
  report.records = records;
  report.now_ns = int64_t{3723} * 1'000'000'000;  // 1 h 2 min 3 s
  EXPECT_EQ(ProgressBar::line(report, 2.0),
            "simulating [####################....................]  50.0%  2.0 s  sim 1:02:03  "
            "1,862x  250 req/s");
}

}  // namespace
}  // namespace tidal::sim
