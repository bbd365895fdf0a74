// `validate` end to end on the tiny model and a short generated trace: both run folders, the
// step error file and validation.json with every documented field.
#include "validate/validation.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "traces/writer.h"

namespace tidal::validate {
namespace {

namespace fs = std::filesystem;

TEST(Validation, TinyModelEndToEnd) {
  const fs::path dir = fs::temp_directory_path() / "tidal_validation_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<Request> requests;
  for (int64_t i = 0; i < 12; ++i) {
    Request r;
    r.id = i;
    r.arrival_s = 0.01 * static_cast<double>(i);
    r.prompt_tokens = 16 + 4 * (i % 3);
    r.output_tokens = 6 + (i % 4);
    requests.push_back(r);
  }
  const std::string trace = (dir / "trace.jsonl").string();
  traces::write_trace(trace, requests);

  ValidateOptions options;
  options.run.model = "tiny";
  options.run.trace = trace;
  options.run.config.scheduler.max_num_seqs = 4;
  options.profile.max_num_tokens = 64;
  options.profile.max_batch_size = 4;
  options.profile.target_point_seconds = 0.002;
  options.repeat_engine = true;
  options.out_dir = (dir / "out").string();
  const ValidationResult result = run_validation(options, [](const std::string&) {});
  const nlohmann::ordered_json& j = result.json;

  for (const char* key :
       {"kind", "format", "title", "measured_run", "predicted_run", "case", "metrics", "latency",
        "run", "step_duration", "targets", "noise", "engine", "sim", "notes"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["kind"], "tidal-validation");
  EXPECT_EQ(j["case"]["num_requests"], 12);
  EXPECT_EQ(j["case"]["policy"], "continuous");
  for (const char* metric : {"ttft", "tpot", "itl", "e2e"}) {
    const auto& m = j["latency"][metric];
    for (const char* side : {"engine", "sim"}) {
      for (const char* stat : {"count", "mean", "p50", "p90", "p99"}) {
        EXPECT_TRUE(m[side].contains(stat)) << metric << " " << side << " " << stat;
      }
    }
    for (const char* stat : {"mean", "p50", "p90", "p99"}) {
      EXPECT_TRUE(m["signed_error_pct"].contains(stat));
      EXPECT_TRUE(m["abs_error_pct"].contains(stat));
    }
    EXPECT_GE(m["ks_distance"].get<double>(), 0.0);
    EXPECT_LE(m["ks_distance"].get<double>(), 1.0);
  }
  EXPECT_EQ(j["latency"]["ttft"]["engine"]["count"], 12);
  EXPECT_EQ(j["latency"]["ttft"]["sim"]["count"], 12);
  for (const char* figure : {"output_tokens_per_s", "request_throughput_rps", "makespan_s"}) {
    EXPECT_TRUE(j["run"][figure].contains("signed_error_pct")) << figure;
  }
  EXPECT_GT(j["step_duration"]["num_steps"].get<int64_t>(), 0);
  EXPECT_TRUE(j["step_duration"].contains("median_abs_error_pct"));
  EXPECT_TRUE(j["step_duration"].contains("p90_abs_error_pct"));
  EXPECT_EQ(j["metrics"].size(), 18u);
  EXPECT_EQ(j["noise"]["repeat_run"], "engine-repeat");
  EXPECT_EQ(j["engine"]["num_finished"], 12);
  EXPECT_EQ(j["sim"]["num_finished"], 12);
  for (const char* file :
       {"engine/summary.json", "engine/steps.csv", "engine/requests.csv",
        "engine-repeat/summary.json", "sim/summary.json", "sim/requests.csv", "profile.json",
        "step_errors.csv", "validation.json", "validation.txt"}) {
    EXPECT_TRUE(fs::exists(dir / "out" / file)) << file;
  }
  EXPECT_NE(result.table.find("TTFT"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tidal::validate
