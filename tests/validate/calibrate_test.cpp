// Calibration against measured runs: the fit recovers coefficients that made synthetic
// measurements, the calibrated model applies them, and the file round-trips.
#include "validate/calibrate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "base/input_error.h"
#include "perf/calibration.h"
#include "tests/scratch_folder.h"
#include "validate/held_out.h"
#include "validate/silicon_rows.h"

namespace tidal::validate {
namespace {

namespace fs = std::filesystem;

const std::string kScratch = "tidal_calibrate";

// A 1B-class Llama written as a Hugging Face config into `dir`, named as measured.csv's rows name
// models.
void write_config(const fs::path& dir) {
  std::ofstream(dir / "test--small-llama_config.json") << R"({"model_type": "llama",
      "hidden_size": 2048, "num_hidden_layers": 16, "num_attention_heads": 32,
      "num_key_value_heads": 8, "intermediate_size": 8192, "vocab_size": 32000,
      "max_position_embeddings": 8192, "rms_norm_eps": 1e-5})";
}

perf::Calibration known_calibration() {
  perf::Calibration c;
  c.engine = "vllm";
  c.gpu = "H100-SXM";
  c.step_overhead_base_s = {1.2e-3, 0.0};
  c.step_overhead_per_seq_s = {20e-6, 0.0};
  c.frontend_per_request_s = {8e-3, 0.0};
  c.prefill_host_per_layer_s = {0.2e-3, 0.0};  // 3.2 ms per prefill step of the 16 layers
  c.scales[static_cast<size_t>(perf::ScaledClass::gemm)] = {1.3, 0.0};
  c.scales[static_cast<size_t>(perf::ScaledClass::attention)] = {0.8, 0.0};
  return c;
}

// Nine rows of the small Llama (its config in a scratch folder while they are prepared), measured
// as known_calibration() predicts them.
std::vector<PreparedRow> synthetic_rows() {
  const ScratchFolder configs(kScratch, "configs");
  write_config(configs.path());
  SiliconOptions options{configs.path().string(), "", "roofline", false, 2};
  std::vector<PreparedRow> rows;
  int line = 2;
  for (const int64_t concurrency : {1, 4, 16}) {
    for (const auto& [isl, osl] : {std::pair<int64_t, int64_t>{256, 32}, {2048, 16}, {128, 64}}) {
      MeasuredRun run;
      run.id = fmt::format("c{}_{}x{}", concurrency, isl, osl);
      run.where = fmt::format("synthetic.csv:{}", line++);
      run.engine = "vllm";
      run.model = "test/small-llama";
      run.system = "h100_sxm";
      run.mode = "agg";
      run.isl = isl;
      run.osl = osl;
      run.concurrency = concurrency;
      run.ttft_ms = run.tpot_ms = 1.0;  // replaced below
      std::string reason;
      std::optional<PreparedRow> row = prepare_row(run, options, &reason);
      EXPECT_TRUE(row) << reason;
      if (row) rows.push_back(std::move(*row));
    }
  }
  const perf::Calibration known = known_calibration();
  for (PreparedRow& row : rows) {
    const RowPrediction measured = predict_row(row, &known);
    row.run.ttft_ms = measured.ttft_ms;
    row.run.tpot_ms = measured.tpot_ms;
  }
  return rows;
}

TEST(Calibrate, RecoversKnownCoefficientsFromSyntheticMeasurements) {
  const std::vector<PreparedRow> rows = synthetic_rows();
  ASSERT_EQ(rows.size(), 9u);
  std::vector<const PreparedRow*> pointers;
  for (const PreparedRow& row : rows) pointers.push_back(&row);
  CalibrateOptions options;
  options.max_fit_rows = 9;
  options.max_iterations = 20;
  options.use_prior = false;  // exact synthetic data: nothing to pull toward
  const perf::Calibration fit = fit_calibration(pointers, options);
  const perf::Calibration known = known_calibration();
  EXPECT_NEAR(fit.step_overhead_base_s.value, known.step_overhead_base_s.value, 0.15e-3);
  EXPECT_NEAR(fit.frontend_per_request_s.value, known.frontend_per_request_s.value, 0.5e-3);
  EXPECT_NEAR(fit.prefill_host_per_layer_s.value, known.prefill_host_per_layer_s.value, 0.03e-3);
  EXPECT_NEAR(fit.scale(perf::ScaledClass::gemm), 1.3, 0.05);
  EXPECT_LT(fit.ttft_mape_pct, 1.0);
  EXPECT_LT(fit.tpot_mape_pct, 1.0);
  EXPECT_EQ(fit.engine, "vllm");
  EXPECT_EQ(fit.gpu, "H100-SXM");
  EXPECT_EQ(fit.models, std::vector<std::string>{"test/small-llama"});
}

TEST(Calibrate, ThePriorHoldsWhatTheRowsDoNotPinDown) {
  // One row, two residuals, five coefficients: a plain fit is free to move the scales anywhere
  // that keeps the row; the prior keeps them near 1 and the per-sequence overhead near its start.
  const std::vector<PreparedRow> rows = synthetic_rows();
  const std::vector<const PreparedRow*> one{&rows[4]};
  CalibrateOptions options;
  options.max_iterations = 20;
  const perf::Calibration fit = fit_calibration(one, options);
  EXPECT_NEAR(fit.scale(perf::ScaledClass::gemm), 1.0, 0.1);
  EXPECT_NEAR(fit.scale(perf::ScaledClass::attention), 1.0, 0.1);
  EXPECT_NEAR(fit.step_overhead_per_seq_s.value, 5e-6, 5e-6);
  // The row itself is still fitted: its errors are below those of the uncalibrated model.
  const RowPrediction base = predict_row(rows[4], nullptr);
  const RowPrediction fitted = predict_row(rows[4], &fit);
  EXPECT_LT(std::abs(std::log(fitted.ttft_ms / rows[4].run.ttft_ms)),
            std::abs(std::log(base.ttft_ms / rows[4].run.ttft_ms)));
}

TEST(Calibrate, FitRowsAreSharedOverTheModels) {
  // Eight rows of one model, one of another (the fit reads only the name); two rows enter the
  // fit: one of each model, not the first model's twice.
  std::vector<PreparedRow> rows = synthetic_rows();
  rows.back().model = "test/other-llama";
  std::vector<const PreparedRow*> pointers;
  for (const PreparedRow& row : rows) pointers.push_back(&row);
  CalibrateOptions options;
  options.max_fit_rows = 2;
  options.max_iterations = 1;
  const perf::Calibration fit = fit_calibration(pointers, options);
  EXPECT_EQ(fit.num_rows, 2);
  EXPECT_EQ(fit.models, (std::vector<std::string>{"test/other-llama", "test/small-llama"}));
}

TEST(Calibrate, ArchitectureFoldsLeaveEachArchitectureOutTogether) {
  std::vector<PreparedRow> rows = synthetic_rows();
  for (size_t i = 0; i < rows.size(); ++i) rows[i].architecture = i < 6 ? "a" : "b";
  rows[0].run.mode = "disagg";
  std::vector<const PreparedRow*> group;
  for (const PreparedRow& row : rows) group.push_back(&row);
  const std::vector<ArchitectureFold> all = architecture_folds(group, false);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].test.size(), 6u);  // "a" held out, fitted on "b"
  EXPECT_EQ(all[0].train.size(), 3u);
  EXPECT_EQ(all[1].test.size(), 3u);
  EXPECT_EQ(all[1].train.size(), 6u);
  for (const ArchitectureFold& fold : all) {
    for (const PreparedRow* row : fold.train) {
      EXPECT_NE(row->architecture, fold.test.front()->architecture);
    }
  }
  // Aggregated rows only: "b" fits on the five aggregated rows of "a".
  EXPECT_EQ(architecture_folds(group, true)[1].train.size(), 5u);
  // One architecture: nothing to hold out.
  const std::vector<const PreparedRow*> only_a(group.begin(), group.begin() + 6);
  EXPECT_TRUE(architecture_folds(only_a, false).empty());
}

TEST(Calibrate, ServingModeFoldFitsOnAggregatedRowsAndPredictsDisaggregatedOnes) {
  std::vector<PreparedRow> rows = synthetic_rows();
  rows[1].run.mode = "disagg";
  rows[4].run.mode = "disagg";
  std::vector<const PreparedRow*> group;
  for (const PreparedRow& row : rows) group.push_back(&row);
  const std::optional<ArchitectureFold> fold = serving_mode_fold(group);
  ASSERT_TRUE(fold.has_value());
  EXPECT_EQ(fold->test, (std::vector<const PreparedRow*>{&rows[1], &rows[4]}));
  EXPECT_EQ(fold->train.size(), rows.size() - 2);
  for (const PreparedRow* row : fold->train) EXPECT_EQ(row->run.mode, "agg");
  // Its own architecture's aggregated rows train it: only the serving mode is held out.
  EXPECT_NE(std::find(fold->train.begin(), fold->train.end(), &rows[0]), fold->train.end());
  // Without disaggregated rows, or without aggregated ones, there is no fold.
  const std::vector<const PreparedRow*> aggregated_only{&rows[0], &rows[2]};
  EXPECT_FALSE(serving_mode_fold(aggregated_only).has_value());
  const std::vector<const PreparedRow*> disaggregated_only{&rows[1], &rows[4]};
  EXPECT_FALSE(serving_mode_fold(disaggregated_only).has_value());
}

TEST(Calibrate, HeldOutFiguresPredictEachArchitectureFromTheOthers) {
  // Both architectures' measurements come from one set of coefficients, far from the preset's:
  // a fit on either predicts the other well, and much better than the uncalibrated model.
  std::vector<PreparedRow> rows = synthetic_rows();
  for (size_t i = 0; i < rows.size(); ++i) rows[i].architecture = i % 3 == 0 ? "a" : "b";
  std::vector<const PreparedRow*> group;
  for (const PreparedRow& row : rows) group.push_back(&row);
  CalibrateOptions options;
  options.max_fit_rows = 9;
  options.max_iterations = 20;
  options.use_prior = false;
  std::vector<FoldPredictions> folds;
  for (const ArchitectureFold& fold : architecture_folds(group, false)) {
    folds.push_back(predict_fold(fold, options));
  }
  ASSERT_EQ(folds.size(), 2u);
  EXPECT_EQ(folds[0].rows.size(), 3u);  // "a": rows 0, 3, 6
  EXPECT_EQ(folds[1].calibrated.size(), 6u);
  const std::optional<perf::HeldOutFigures> held_out = held_out_figures(folds);
  ASSERT_TRUE(held_out.has_value());
  const perf::HeldOutFigures& figures = *held_out;
  EXPECT_EQ(figures.num_rows, 9);
  EXPECT_EQ(figures.num_rows_unfinished, 0);
  EXPECT_EQ(figures.num_architectures, 2);
  EXPECT_LT(figures.ttft_mape_pct, 5.0);
  EXPECT_LT(figures.tpot_mape_pct, 5.0);
  EXPECT_GT(figures.uncalibrated_ttft_mape_pct, 4.0 * figures.ttft_mape_pct);
  EXPECT_GT(figures.uncalibrated_tpot_mape_pct, 4.0 * figures.tpot_mape_pct);
  // A row where no measured request finished (its prediction means nothing) is counted apart,
  // as bench/silicon leaves such rows out; with none left there is no figure.
  folds[1].uncalibrated[0].num_measured = 0;
  const std::optional<perf::HeldOutFigures> fewer = held_out_figures(folds);
  ASSERT_TRUE(fewer.has_value());
  EXPECT_EQ(fewer->num_rows, 8);
  EXPECT_EQ(fewer->num_rows_unfinished, 1);
  for (FoldPredictions& fold : folds) {
    for (RowPrediction& p : fold.calibrated) p.num_measured = 0;
  }
  EXPECT_FALSE(held_out_figures(folds).has_value());
}

// Error figures: mean and median absolute percentage errors, and which way the predictions lean.
TEST(Calibrate, ErrorFiguresSayHowFarAndWhichWay) {
  std::vector<PreparedRow> rows(4);
  std::vector<const PreparedRow*> row_ptrs;
  for (PreparedRow& row : rows) {
    row.run.ttft_ms = 100.0;
    row.run.tpot_ms = 10.0;
    row_ptrs.push_back(&row);
  }
  // TTFT 50%, 80%, 130% and 300% of the measured; TPOT 90%, 100%, 110% and 120%.
  const std::vector<RowPrediction> predictions{
      {50.0, 9.0, 1}, {80.0, 10.0, 1}, {130.0, 11.0, 1}, {300.0, 12.0, 1}};
  const ErrorFigures e = error_figures(row_ptrs, predictions);
  EXPECT_DOUBLE_EQ(e.ttft_mape_pct, (50.0 + 20.0 + 30.0 + 200.0) / 4);
  EXPECT_DOUBLE_EQ(e.ttft_median_ape_pct, (30.0 + 50.0) / 2);
  EXPECT_DOUBLE_EQ(e.ttft_median_ratio, (0.8 + 1.3) / 2);
  EXPECT_DOUBLE_EQ(e.ttft_share_under, 0.5);
  EXPECT_NEAR(e.tpot_mape_pct, (10.0 + 0.0 + 10.0 + 20.0) / 4, 1e-12);
  EXPECT_DOUBLE_EQ(e.tpot_median_ratio, (1.0 + 1.1) / 2);
  EXPECT_DOUBLE_EQ(e.tpot_share_under, 0.25);  // exactly as measured is not under
  const ErrorFigures none = error_figures({}, {});
  EXPECT_EQ(none.ttft_median_ratio, 0.0);
  EXPECT_EQ(none.ttft_share_under, 0.0);
}

TEST(Calibrate, CalibratedModelScalesClassesAndReplacesTheOverhead) {
  const std::vector<PreparedRow> rows = synthetic_rows();
  const perf::StepTimeModel& base = *rows.front().bases[0];
  const perf::Calibration known = known_calibration();
  perf::Calibration no_launch = known;
  no_launch.prefill_host_per_layer_s = {0.0, 0.0};
  const auto calibrated = perf::make_calibrated_model(rows.front().bases[0], no_launch, 16);
  const std::vector<perf::SeqWork> batch{{512, 0, 1}, {1, 300, 1}, {1, 900, 1}};
  const perf::StepBreakdown b = base.breakdown(batch);
  const perf::StepBreakdown c = calibrated->breakdown(batch);
  EXPECT_DOUBLE_EQ(c[perf::OpClass::mlp_down], 1.3 * b[perf::OpClass::mlp_down]);
  EXPECT_DOUBLE_EQ(c[perf::OpClass::attention_decode], 0.8 * b[perf::OpClass::attention_decode]);
  EXPECT_DOUBLE_EQ(c[perf::OpClass::norm], b[perf::OpClass::norm]);
  EXPECT_DOUBLE_EQ(c[perf::OpClass::cpu_overhead], 1.2e-3 + 3 * 20e-6);
  EXPECT_DOUBLE_EQ(calibrated->step_seconds(batch), c.total_seconds());
  EXPECT_EQ(calibrated->step_seconds({}), 0.0);
}

TEST(Calibrate, PrefillStepsTakeTheLongerOfHostLaunchesAndTheGpu) {
  const std::vector<PreparedRow> rows = synthetic_rows();
  perf::Calibration c = known_calibration();
  c.prefill_host_per_layer_s = {1e-3, 0.0};  // 16 ms over 16 layers: longer than these steps
  const auto calibrated = perf::make_calibrated_model(rows.front().bases[0], c, 16);
  c.prefill_host_per_layer_s = {0.0, 0.0};
  const auto without = perf::make_calibrated_model(rows.front().bases[0], c, 16);
  const double overhead_s = 1.2e-3 + 20e-6;  // one sequence
  // A prefill chunk (more tokens computed than sampled): 16 ms of launches plus the overhead.
  const std::vector<perf::SeqWork> prefill{{256, 0, 1}};
  ASSERT_LT(without->step_seconds(prefill) - overhead_s, 16e-3);
  EXPECT_NEAR(calibrated->step_seconds(prefill), 16e-3 + overhead_s, 1e-12);
  // A decode step (one token, one sample) is untouched.
  const std::vector<perf::SeqWork> decode{{1, 700, 1}};
  EXPECT_DOUBLE_EQ(calibrated->step_seconds(decode), without->step_seconds(decode));
  // A prefill whose GPU time exceeds the launches keeps its GPU time.
  c.prefill_host_per_layer_s = {1e-9, 0.0};
  const auto light = perf::make_calibrated_model(rows.front().bases[0], c, 16);
  EXPECT_DOUBLE_EQ(light->step_seconds(prefill), without->step_seconds(prefill));
}

TEST(Calibrate, FileRoundTripsAndBadFilesNameThePath) {
  perf::CalibrationFile file;
  file.base_model = "roofline";
  file.created = "2026-12-01";
  file.groups.push_back(known_calibration());
  file.groups.push_back(known_calibration());
  file.groups.back().gpu = "H200";
  file.groups.back().held_out = perf::HeldOutFigures{12, 3, 1, 21.5, 9.25, 40.0, 12.5};
  const ScratchFolder scratch(kScratch, "file");
  const fs::path& dir = scratch.path();
  const std::string path = (dir / "calibration.json").string();
  perf::save_calibration(file, path);
  const perf::CalibrationFile again = perf::load_calibration(path);
  EXPECT_EQ(perf::calibration_to_json_text(again), perf::calibration_to_json_text(file));
  EXPECT_FALSE(again.groups[0].held_out.has_value());
  ASSERT_TRUE(again.groups[1].held_out.has_value());
  EXPECT_EQ(again.groups[1].held_out->num_architectures, 3);
  EXPECT_EQ(again.groups[1].held_out->tpot_mape_pct, 9.25);
  EXPECT_EQ(&perf::find_calibration(again, "vllm", "H100-SXM", path, "p"), &again.groups[0]);
  try {
    perf::find_calibration(again, "sglang", "H100-SXM", path, "pool.perf.calibration");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("holds no calibration for sglang on H100-SXM (it holds: "
                                         "vllm on H100-SXM, vllm on H200)"),
              std::string::npos);
  }
  // A held-out figure of no rows names its JSON path.
  std::string no_rows = perf::calibration_to_json_text(file);
  no_rows.replace(no_rows.find("\"num_rows\": 12"), 14, "\"num_rows\": 0");
  std::ofstream(dir / "no_rows.json") << no_rows;
  try {
    perf::load_calibration((dir / "no_rows.json").string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("groups[1].held_out.num_rows"), std::string::npos)
        << e.what();
  }
  std::string text = perf::calibration_to_json_text(file);
  text.replace(text.find("\"value\": 1.3"), 12, "\"value\": -1.0");
  std::ofstream(dir / "bad.json") << text;
  EXPECT_THROW(perf::load_calibration((dir / "bad.json").string()), InputError);
  EXPECT_THROW(perf::load_calibration("/nonexistent/c.json"), InputError);
}

}  // namespace
}  // namespace tidal::validate
