// A report reads only the files of one run and never writes into a run folder
// (docs/report.md, "Where the report goes"; docs/run-output.md, "Nothing lost").
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "engine/run_writer.h"
#include "engine/trace_replay.h"
#include "models/presets.h"
#include "models/random_weights.h"
#include "reports/report.h"
#include "reports/run_data.h"
#include "tests/reports/run_fixture.h"

namespace tidal::reports {
namespace {

namespace fs = std::filesystem;
using testing::kScratch;
using testing::read_text;
using testing::small_scenario;
using testing::write_run_folder;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

TEST(RunFiles, AReportNeverWritesIntoARunFolder) {
  const ScratchFolder scratch(kScratch, "report_into_run");
  const fs::path& root = scratch.path();
  const std::string run = write_run_folder(small_scenario(1, "one"), root / "run");
  const std::string summary = read_text(root / "run" / "summary.json");
  const std::string requests = read_text(root / "run" / "requests.csv");
  for (const std::string name : {"summary.html", "requests.csv", "report.html"}) {
    const std::string out = (root / "run" / name).string();
    EXPECT_TRUE(starts_with(error_of([&] { write_report({run}, out); }),
                            out + ": inside the run, validation or plan folder "))
        << name;
  }
  EXPECT_EQ(read_text(root / "run" / "summary.json"), summary);
  EXPECT_EQ(read_text(root / "run" / "requests.csv"), requests);
  // The run folder as the output names a folder, and its .md/.json siblings are refused too.
  EXPECT_TRUE(starts_with(error_of([&] { write_report({run}, run); }), run + ": is a folder"));
}

TEST(RunFiles, TheDefaultReportGoesBesideTheRun) {
  EXPECT_EQ(default_report_path({"out/run"}), "out/run.report.html");
  EXPECT_EQ(default_report_path({"out/run/"}), "out/run.report.html");
  EXPECT_EQ(default_report_path({"out/a", "out/b"}), "out/a.comparison.html");
  const ScratchFolder scratch(kScratch, "report_default");
  const fs::path& root = scratch.path();
  const std::string run = write_run_folder(small_scenario(1, "one"), root / "run");
  const ReportPaths paths = write_report({run}, "");
  EXPECT_EQ(paths.html, (root / "run.report.html").string());
  EXPECT_TRUE(fs::exists(root / "run.report.md"));
  EXPECT_TRUE(fs::exists(root / "run.report.json"));
}

TEST(RunFiles, RunsWithoutRequestsOrTimelineFilesAreReported) {
  const ScratchFolder scratch(kScratch, "report_files_off");
  const fs::path& root = scratch.path();
  nlohmann::json no_requests = small_scenario(1, "no-requests");
  no_requests["output"] = {{"requests_csv", false}};
  nlohmann::json no_timeline = small_scenario(1, "no-timeline");
  no_timeline["output"] = {{"timeline_csv", false}};
  const std::string a = write_run_folder(no_requests, root / "a");
  const std::string b = write_run_folder(no_timeline, root / "b");
  const RunData run_a = load_run(a);
  EXPECT_FALSE(run_a.has_requests);
  EXPECT_TRUE(run_a.has_timeline);
  EXPECT_EQ(run_a.requests.size(), 0u);
  const RunData run_b = load_run(b);
  EXPECT_TRUE(run_b.has_requests);
  EXPECT_FALSE(run_b.has_timeline);
  const Document doc = build_report({a, b});
  int num_notes = 0;
  for (const std::string& note : doc.notes) {
    num_notes += note ==
                 "no-requests: the run wrote no requests.csv (output.requests_csv off): "
                 "no per-request charts";
    num_notes += note ==
                 "no-timeline: the run wrote no timeline.csv (output.timeline_csv off): "
                 "no charts over time";
  }
  EXPECT_EQ(num_notes, 2);
  EXPECT_NO_THROW(write_report({a, b}, (root / "report.html").string()));
}

TEST(RunFiles, AFileFromAnotherRunIsRefused) {
  const ScratchFolder scratch(kScratch, "report_mixed");
  const fs::path& root = scratch.path();
  const std::string a = write_run_folder(small_scenario(1, "a"), root / "a");
  const std::string b = write_run_folder(small_scenario(2, "b"), root / "b");
  fs::copy_file(root / "b" / "timeline.csv", root / "a" / "timeline.csv",
                fs::copy_options::overwrite_existing);
  const std::string path = (root / "a" / "timeline.csv").string();
  const std::string error = error_of([&] { load_run(a); });
  EXPECT_TRUE(starts_with(error, path + ": not the file run ")) << error;
  EXPECT_NE(error.find("it was changed or comes from another run"), std::string::npos) << error;

  // A timeline.csv left in a run that wrote none is not the run's either.
  nlohmann::json off = small_scenario(1, "off");
  off["output"] = {{"timeline_csv", false}};
  const std::string c = write_run_folder(off, root / "c");
  fs::copy_file(root / "b" / "timeline.csv", root / "c" / "timeline.csv");
  EXPECT_EQ(error_of([&] { load_run(c); }),
            (root / "c" / "timeline.csv").string() +
                ": not written by this run (summary.json files does not list it): it comes "
                "from another run; remove it or rerun");
  fs::remove(root / "a" / "requests.csv");
  EXPECT_EQ(error_of([&] { load_run(a); }),
            (root / "a" / "requests.csv").string() + ": missing (summary.json files lists it)");
}

// An engine run with nothing to replay ends at t = 0 and writes a timeline without rows; one
// whose only request is rejected on arrival ends within microseconds and writes one row that
// still ends after it starts. Both report.
TEST(RunFiles, EngineRunsThatEndAtTimeZeroAreReported) {
  const ScratchFolder scratch(kScratch, "report_engine_empty");
  const fs::path& root = scratch.path();
  engine::Engine engine(models::random_weights(*models::find_preset("tiny"), 1),
                        engine::EngineConfig{});
  Request too_long;
  too_long.id = 0;
  too_long.prompt_tokens = 1'000'000;
  too_long.output_tokens = 4;
  const std::vector<std::vector<Request>> traces = {{}, {too_long}};
  const nlohmann::ordered_json inputs{
      {"model", "tiny"},     {"model_source", "random"}, {"trace", "t.jsonl"}, {"time_scale", 1.0},
      {"length_scale", 1.0}, {"max_requests", 0},        {"prompt_seed", 0}};
  for (size_t k = 0; k < traces.size(); ++k) {
    engine::SteadyClock clock;
    const engine::EngineRun run = engine::replay(engine, traces[k], engine::ReplayOptions{}, clock);
    const fs::path dir = root / ("run" + std::to_string(k));
    engine::write_run_folder(dir.string(), inputs, engine, run, engine::ReplayOptions{},
                             engine::RunFolderOptions{});
    const RunData data = load_run(dir.string());
    EXPECT_EQ(data.timeline.size(), k) << k;  // the rejection a moment after t = 0: one row
    EXPECT_EQ(data.requests.size(), traces[k].size()) << k;
    EXPECT_NO_THROW(
        write_report({dir.string()}, (root / ("r" + std::to_string(k) + ".html")).string()))
        << k;
  }
}

}  // namespace
}  // namespace tidal::reports
