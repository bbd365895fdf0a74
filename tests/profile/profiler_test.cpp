// A CPU profile of the tiny model: schema-valid (load_profile accepts what save_profile wrote),
// usable by the profiled step-time model, and every fitted table reproduces the medians it was
// fitted to within 5%. Only the measured numbers are inputs; no timing is asserted.
#include "engine/profile/profiler.h"

#include <cmath>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "engine/profile/cpu_target.h"
#include "engine/profile/piecewise_fit.h"
#include "models/presets.h"
#include "perf/profiled_model.h"
#include "tests/scratch_folder.h"

namespace tidal::profile {
namespace {

PiecewiseLinear as_function(const std::vector<int64_t>& xs, const std::vector<double>& ys) {
  return PiecewiseLinear{std::vector<double>(xs.begin(), xs.end()), ys};
}

class ProfilerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ProfileOptions options;
    options.model = "tiny";
    options.max_num_tokens = 64;
    options.max_batch_size = 4;
    options.target_point_seconds = 0.002;
    options.min_repeats = 3;
    options.max_repeats = 5;
    measured_ = new std::vector<MeasuredSeries>;
    profile_ = new perf::Profile(run_profile(
        options, [](const std::string&) {}, measured_));
  }
  static void TearDownTestSuite() {
    delete profile_;
    delete measured_;
  }
  static perf::Profile* profile_;
  static std::vector<MeasuredSeries>* measured_;
};

perf::Profile* ProfilerTest::profile_ = nullptr;
std::vector<MeasuredSeries>* ProfilerTest::measured_ = nullptr;

TEST_F(ProfilerTest, RoundTripsThroughTheSchema) {
  const ScratchFolder scratch("tidal_profiler_test", "round_trip");
  const std::string path = (scratch.path() / "profile.json").string();
  perf::save_profile(*profile_, path);
  const perf::Profile loaded = perf::load_profile(path);
  EXPECT_EQ(loaded, *profile_);
  EXPECT_EQ(profile_->provenance.backend, "tidal-cpu");
  EXPECT_FALSE(profile_->provenance.device.empty());
  EXPECT_FALSE(profile_->provenance.commit.empty());
  EXPECT_EQ(profile_->provenance.date.size(), 10u);
  EXPECT_NE(profile_->provenance.source.find("1 kernel threads"), std::string::npos);
  EXPECT_EQ(profile_->attention_source, perf::TimeSource::measured);
  EXPECT_EQ(profile_->cpu_overhead.source, perf::TimeSource::measured);
  EXPECT_EQ(profile_->tp, 1);
  EXPECT_EQ(profile_->weight_dtype, perf::DType::fp32);
  EXPECT_EQ(profile_->allreduce.source, perf::TimeSource::roofline);  // one rank: none
}

// The n-gram drafting cost is measured (the engine config does not speculate: at the default k)
// and survives save/load.
TEST_F(ProfilerTest, DraftCostRoundTrips) {
  ASSERT_TRUE(profile_->draft.has_value());
  EXPECT_EQ(profile_->draft->method, "ngram");
  EXPECT_EQ(profile_->draft->num_speculative_tokens, 4);
  // A lookup over a longer context scans more tokens: it costs something per context token.
  EXPECT_GE(profile_->draft->seconds_per_seq, 0.0);
  EXPECT_GT(profile_->draft->seconds_per_context_token, 0.0);
  const ScratchFolder scratch("tidal_profiler_draft_test", "round_trip");
  const std::string path = (scratch.path() / "profile.json").string();
  perf::save_profile(*profile_, path);
  const perf::Profile loaded = perf::load_profile(path);
  ASSERT_TRUE(loaded.draft.has_value());
  EXPECT_EQ(*loaded.draft, *profile_->draft);
}

TEST_F(ProfilerTest, GridsCoverTheRequestedRange) {
  const perf::AttentionTables& a = profile_->attention;
  EXPECT_EQ(a.decode_batch_sizes, (std::vector<int64_t>{1, 2, 4}));
  EXPECT_EQ(a.prefill_chunk_tokens.front(), 1);
  EXPECT_EQ(a.prefill_context_tokens.front(), 0);
  EXPECT_EQ(a.prefill_seconds.size(),
            a.prefill_chunk_tokens.size() * a.prefill_context_tokens.size());
  EXPECT_EQ(a.decode_seconds.size(), a.decode_batch_sizes.size() * a.decode_context_tokens.size());
  const perf::OperatorTable& qkv = profile_->operators.at(perf::OpClass::qkv_proj);
  EXPECT_EQ(qkv.num_tokens.front(), 1);
  EXPECT_EQ(qkv.num_tokens.back(), 64);
}

TEST_F(ProfilerTest, FittedTablesReproduceTheirMeasurements) {
  ASSERT_FALSE(measured_->empty());
  for (const MeasuredSeries& series : *measured_) {
    const std::string prefix = "operators.";
    PiecewiseLinear fit;
    if (series.name == "cpu_overhead") {
      fit = as_function(profile_->cpu_overhead.num_seqs, profile_->cpu_overhead.seconds);
    } else if (series.name == "allreduce") {
      fit = PiecewiseLinear{profile_->allreduce.bytes, profile_->allreduce.seconds};
    } else {
      ASSERT_EQ(series.name.rfind(prefix, 0), 0u) << series.name;
      perf::OpClass op{};
      ASSERT_TRUE(perf::parse_op_class(series.name.substr(prefix.size()), &op));
      const perf::OperatorTable& table = profile_->operators.at(op);
      fit = as_function(table.num_tokens, table.seconds);
    }
    EXPECT_LE(max_relative_error(fit, series.x, series.seconds), 0.05) << series.name;
  }
}

TEST_F(ProfilerTest, DrivesTheProfiledStepModel) {
  const models::ModelConfig config = *models::find_preset("tiny");
  engine::EngineConfig engine_config;
  const auto model =
      perf::make_profiled_model(*profile_, model_spec_for(config, "tiny"),
                                cpu_device_spec("test CPU"), deployment_for(engine_config), "test");
  const std::vector<perf::SeqWork> batch{{16, 0}, {1, 40}, {1, 80}};
  EXPECT_GT(model->step_seconds(batch), 0.0);
  EXPECT_GT(model->breakdown(batch)[perf::OpClass::attention_decode], 0.0);
}

// TP 2: both ranks run every forward together; rank 0's all-reduces (barrier waits included)
// make the all-reduce table over the token sweep's message sizes. What the times are depends on
// the machine's load, so only their shape is checked (the fit's tolerance on fixed data is
// piecewise_fit_test's).
TEST(ProfilerTensorParallel, TimesTheAllReduceInsideTheForward) {
  ProfileOptions options;
  options.model = "tiny";
  options.engine.tp = 2;
  options.max_num_tokens = 32;
  options.max_batch_size = 2;
  options.target_point_seconds = 0.002;
  options.min_repeats = 3;
  options.max_repeats = 5;
  std::vector<MeasuredSeries> measured;
  const perf::Profile profile = run_profile(
      options, [](const std::string&) {}, &measured);
  EXPECT_EQ(profile.tp, 2);
  ASSERT_EQ(profile.allreduce.source, perf::TimeSource::measured);
  const models::ModelConfig config = *models::find_preset("tiny");
  EXPECT_EQ(profile.allreduce.bytes.front(), static_cast<double>(config.hidden_size * 2));
  EXPECT_EQ(profile.allreduce.bytes.back(), static_cast<double>(32 * config.hidden_size * 2));
  bool found = false;
  for (const MeasuredSeries& series : measured) {
    if (series.name != "allreduce") continue;
    found = true;
    EXPECT_EQ(series.x.size(), 10u);  // num_tokens 1, 2, 3, 4, 6, 8, 12, 16, 24, 32
    ASSERT_EQ(series.seconds.size(), series.x.size());
    for (const double seconds : series.seconds) {
      EXPECT_TRUE(std::isfinite(seconds) && seconds > 0.0) << seconds;
    }
  }
  EXPECT_TRUE(found);
  ASSERT_EQ(profile.allreduce.seconds.size(), profile.allreduce.bytes.size());
  for (size_t i = 0; i < profile.allreduce.bytes.size(); ++i) {
    if (i > 0) {
      EXPECT_GT(profile.allreduce.bytes[i], profile.allreduce.bytes[i - 1]);
    }
    EXPECT_TRUE(std::isfinite(profile.allreduce.seconds[i]) && profile.allreduce.seconds[i] > 0.0)
        << profile.allreduce.seconds[i];
  }
  engine::EngineConfig engine_config;
  engine_config.tp = 2;
  const auto model =
      perf::make_profiled_model(profile, model_spec_for(config, "tiny"),
                                cpu_device_spec("test CPU"), deployment_for(engine_config), "test");
  const std::vector<perf::SeqWork> batch{{8, 0}, {1, 40}};
  EXPECT_GT(model->breakdown(batch)[perf::OpClass::allreduce], 0.0);
}

}  // namespace
}  // namespace tidal::profile
