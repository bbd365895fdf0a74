// A CPU profile of the tiny model: schema-valid (load_profile accepts what save_profile wrote),
// usable by the profiled step-time model, and every fitted table reproduces the medians it was
// fitted to within 5%. Only the measured numbers are inputs; no timing is asserted.
#include "engine/profile/profiler.h"

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "engine/profile/cpu_target.h"
#include "engine/profile/piecewise_fit.h"
#include "models/presets.h"
#include "sim/perf/profiled_model.h"

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
  const std::string path =
      (std::filesystem::temp_directory_path() / "tidal_profiler_test.json").string();
  perf::save_profile(*profile_, path);
  const perf::Profile loaded = perf::load_profile(path);
  EXPECT_EQ(loaded, *profile_);
  std::filesystem::remove(path);
  EXPECT_EQ(profile_->provenance.backend, "tidal-cpu");
  EXPECT_FALSE(profile_->provenance.device.empty());
  EXPECT_FALSE(profile_->provenance.commit.empty());
  EXPECT_EQ(profile_->provenance.date.size(), 10u);
  EXPECT_NE(profile_->provenance.source.find("1 kernel threads"), std::string::npos);
  EXPECT_EQ(profile_->attention_source, perf::TimeSource::measured);
  EXPECT_EQ(profile_->cpu_overhead.source, perf::TimeSource::measured);
  EXPECT_EQ(profile_->tp, 1);
  EXPECT_EQ(profile_->weight_dtype, perf::DType::fp32);
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

}  // namespace
}  // namespace tidal::profile
