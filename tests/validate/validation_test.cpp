// `validate` end to end on the tiny model and a short generated trace: both run folders, the
// step error file and validation.json with every documented field.
#include "validate/validation.h"

#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "engine/engine_config.h"
#include "perf/profile.h"
#include "tests/scratch_folder.h"
#include "traces/writer.h"
#include "validate/spec_calibration.h"

namespace tidal::validate {
namespace {

namespace fs = std::filesystem;

// 12 short requests 10 ms apart, written to dir/trace.jsonl.
std::string write_short_trace(const fs::path& dir, int64_t base_output_tokens) {
  std::vector<Request> requests;
  for (int64_t i = 0; i < 12; ++i) {
    Request r;
    r.id = i;
    r.arrival_s = 0.01 * static_cast<double>(i);
    r.prompt_tokens = 16 + 4 * (i % 3);
    r.output_tokens = base_output_tokens + (i % 4);
    requests.push_back(r);
  }
  const std::string trace = (dir / "trace.jsonl").string();
  traces::write_trace(trace, requests);
  return trace;
}

TEST(Validation, TinyModelEndToEnd) {
  const ScratchFolder scratch("tidal_validation_test", "tiny");
  const fs::path& dir = scratch.path();
  const std::string trace = write_short_trace(dir, 6);

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
}

// n-gram speculation: the simulator speculates with the engine's k, an acceptance calibrated
// from the engine run's measured acceptance and the profile's measured drafting cost.
TEST(Validation, NgramSpeculationIsCalibratedFromTheEngine) {
  const ScratchFolder scratch("tidal_validation_spec_test", "ngram");
  const fs::path& dir = scratch.path();
  ValidateOptions options;
  options.run.model = "tiny";
  options.run.trace = write_short_trace(dir, 128);
  options.run.config.scheduler.max_num_seqs = 4;
  options.run.config.spec = engine::parse_spec_config("ngram:3", "spec");
  options.profile.max_num_tokens = 64;
  options.profile.max_batch_size = 4;
  options.profile.target_point_seconds = 0.002;
  options.out_dir = (dir / "out").string();
  const ValidationResult result = run_validation(options, [](const std::string&) {});
  const nlohmann::ordered_json& j = result.json;

  const perf::Profile profile = perf::load_profile((dir / "out" / "profile.json").string());
  ASSERT_TRUE(profile.draft.has_value());
  EXPECT_EQ(profile.draft->method, "ngram");
  EXPECT_EQ(profile.draft->num_speculative_tokens, 3);

  const nlohmann::ordered_json& s = j["case"]["sim_speculative"];
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["method"], "ngram");
  EXPECT_EQ(s["num_speculative_tokens"], 3);
  const double engine_rate = j["engine"]["spec_acceptance_rate"].get<double>();
  EXPECT_GT(engine_rate, 0.0);  // greedy decoding of random weights repeats itself
  EXPECT_DOUBLE_EQ(s["calibrated_from"]["engine_acceptance_rate"].get<double>(), engine_rate);
  // The rate of the accepting share of the requests (all of them when acceptance is even).
  const double accepting_share = s.value("accepting_share", 1.0);  // absent: 1
  EXPECT_GT(accepting_share, 0.0);
  EXPECT_LE(accepting_share, 1.0);
  EXPECT_DOUBLE_EQ(s["acceptance_rate"].get<double>(),
                   acceptance_for_accepted_share(std::min(1.0, engine_rate / accepting_share), 3));
  EXPECT_EQ(s["by_decode_step"].size(), kDecodeStepBuckets.size());
  EXPECT_DOUBLE_EQ(s["draft_cost_ratio"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(s["draft_seconds_per_seq"].get<double>(), profile.draft->seconds_per_seq);
  EXPECT_DOUBLE_EQ(s["draft_seconds_per_context_token"].get<double>(),
                   profile.draft->seconds_per_context_token);
  // Proposal rates by context, from as many decode steps as the engine ran.
  ASSERT_FALSE(s["proposal_by_context"].empty());
  EXPECT_EQ(s["proposal_by_context"][0]["first_context_tokens"], 0);
  int64_t num_decode_steps = 0;
  for (const auto& b : s["calibrated_from"]["by_decode_step"]) {
    num_decode_steps += b["num_decode_steps"].get<int64_t>();
  }
  for (const auto& b : s["calibrated_from"]["proposal_by_context"]) {
    num_decode_steps -= b["num_decode_steps"].get<int64_t>();
  }
  EXPECT_EQ(num_decode_steps, 0);
  // The simulator did speculate: it scheduled drafts and accepted some.
  ASSERT_FALSE(j["sim"]["spec_acceptance_rate"].is_null());
  // Outputs of 128+ tokens give the simulator hundreds of drafted tokens, so its accepted share
  // is near the engine's whatever the profile's measured timings (which vary with machine load)
  // make of the schedule; 24-token outputs drafted ~17 and accepted none about one run in six.
  EXPECT_GT(j["sim"]["spec_acceptance_rate"].get<double>(), 0.0);
  EXPECT_NEAR(j["sim"]["spec_acceptance_rate"].get<double>(), engine_rate, 0.1);
  ASSERT_EQ(j["notes"].size(), 1u);
  EXPECT_NE(j["notes"][0].get<std::string>().find("calibrated"), std::string::npos);
  EXPECT_EQ(j["sim"]["num_finished"], 12);
}

}  // namespace
}  // namespace tidal::validate
