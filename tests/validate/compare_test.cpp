// Metric comparisons and per-step errors on constructed inputs.
#include "validate/compare.h"

#include <gtest/gtest.h>

namespace tidal::validate {
namespace {

// Step time = 1 ms + 10 us per new token; swaps 1 us per block.
class LinearModel final : public perf::StepTimeModel {
 public:
  double step_seconds(std::span<const perf::SeqWork> batch) const override {
    double tokens = 0;
    for (const perf::SeqWork& s : batch) tokens += static_cast<double>(s.num_new_tokens);
    return batch.empty() ? 0.0 : 1e-3 + 1e-5 * tokens;
  }
  double swap_seconds(int64_t num_blocks) const override {
    return 1e-6 * static_cast<double>(num_blocks);
  }
  perf::StepBreakdown breakdown(std::span<const perf::SeqWork> batch) const override {
    perf::StepBreakdown b;
    b[perf::OpClass::cpu_overhead] = step_seconds(batch);
    return b;
  }
};

engine::StepRecord step(int64_t duration_ns, std::vector<int64_t> new_tokens) {
  engine::StepRecord r;
  r.start_ns = 1000;
  r.end_ns = 1000 + duration_ns;
  for (int64_t n : new_tokens) {
    sched::ScheduledSeq seq;
    seq.num_new_tokens = n;
    seq.num_context_tokens = 10;
    r.seqs.push_back(seq);
  }
  return r;
}

TEST(Compare, MetricComparison) {
  const MetricComparison m = compare_metric("ttft", {1.0, 2.0, 3.0, 4.0}, {1.1, 2.2, 3.3, 4.4});
  EXPECT_EQ(m.name, "ttft");
  EXPECT_DOUBLE_EQ(m.engine.mean, 2.5);
  EXPECT_NEAR(*m.signed_pct[0], 10.0, 1e-9);  // mean
  EXPECT_NEAR(*m.signed_pct[1], 10.0, 1e-9);  // p50: 2 vs 2.2
  EXPECT_NEAR(*m.abs_pct[3], 10.0, 1e-9);     // p99: 4 vs 4.4
  EXPECT_DOUBLE_EQ(m.ks, 0.25);               // at x = 1.0, 1.1 overlaps shift one step
  const nlohmann::ordered_json j = to_json(m);
  EXPECT_TRUE(j.contains("engine"));
  EXPECT_TRUE(j["signed_error_pct"].contains("p90"));
  EXPECT_TRUE(j.contains("ks_distance"));
}

TEST(Compare, EmptyEngineSideHasNoPercentError) {
  const MetricComparison m = compare_metric("tpot", {}, {0.5});
  EXPECT_FALSE(m.signed_pct[0].has_value());
  EXPECT_DOUBLE_EQ(m.ks, 1.0);
  EXPECT_TRUE(to_json(m)["signed_error_pct"]["mean"].is_null());
}

TEST(Compare, StepPredictionsOnTheEnginePlans) {
  const LinearModel model;
  // Predictions: 1.1 ms (10 tokens), 1.02 ms (2 tokens), 1.5 ms (50 tokens).
  std::vector<engine::StepRecord> steps{step(1'000'000, {4, 6}), step(1'020'000, {1, 1}),
                                        step(1'250'000, {50})};
  steps[1].num_swap_out_blocks = 10;  // +10 us
  const std::vector<StepPrediction> p = predict_steps(steps, model, sim::SpeculativeSpec{});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].num_seqs, 2);
  EXPECT_EQ(p[0].num_tokens, 10);
  EXPECT_NEAR(p[0].signed_pct, 10.0, 1e-9);
  EXPECT_NEAR(p[1].predicted_s, 1.03e-3, 1e-12);
  EXPECT_NEAR(p[1].signed_pct, 100.0 * (1.03 - 1.02) / 1.02, 1e-9);
  EXPECT_NEAR(p[2].signed_pct, 20.0, 1e-9);
  const StepErrorSummary s = summarize_steps(p);
  EXPECT_EQ(s.num_steps, 3);
  EXPECT_NEAR(s.median_abs_pct, 10.0, 1e-9);  // sorted |err|: 0.98, 10, 20
  EXPECT_NEAR(s.p90_abs_pct, 20.0, 1e-9);
  EXPECT_NEAR(s.measured_total_s, 3.27e-3, 1e-12);
}

TEST(Compare, VerificationStepsAreStretchedByTheDraftCost) {
  const LinearModel model;
  // Two sequences verifying 3 and 1 drafts (4 + 2 new tokens): 1.06 ms x (1 + 0.01 x 3).
  std::vector<engine::StepRecord> steps{step(1'000'000, {4, 2}), step(1'000'000, {1})};
  steps[0].seqs[0].num_spec_tokens = 3;
  steps[0].seqs[1].num_spec_tokens = 1;
  sim::SpeculativeSpec spec;
  spec.method = "draft";
  spec.num_speculative_tokens = 3;
  spec.draft_cost_ratio = 0.01;
  const std::vector<StepPrediction> p = predict_steps(steps, model, spec);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_NEAR(p[0].predicted_s, 1.06e-3 * 1.03, 1e-12);
  EXPECT_NEAR(p[1].predicted_s, 1.01e-3, 1e-12);  // no drafts: plain step
}

// Host drafting (the n-gram lookup) costs every sequence already scheduled once, on every step,
// whether it verifies drafts or not; a fresh prompt (context 0) has not been looked up yet.
TEST(Compare, HostDraftingIsChargedPerSequenceWithContext) {
  const LinearModel model;
  std::vector<engine::StepRecord> steps{step(1'000'000, {4, 1}), step(1'000'000, {1, 8})};
  steps[0].seqs[0].num_spec_tokens = 3;
  steps[0].seqs[0].num_context_tokens = 100;
  steps[1].seqs[1].num_context_tokens = 0;
  sim::SpeculativeSpec spec;
  spec.method = "ngram";
  spec.num_speculative_tokens = 3;
  spec.draft_seconds_per_seq = 2e-6;
  spec.draft_seconds_per_context_token = 1e-8;
  const std::vector<StepPrediction> p = predict_steps(steps, model, spec);
  ASSERT_EQ(p.size(), 2u);
  // Step 0: contexts 100 and 10 -> 2 x 2 us + 110 x 0.01 us.
  EXPECT_NEAR(p[0].predicted_s, 1.05e-3 + 4e-6 + 1.1e-6, 1e-12);
  // Step 1: the fresh prompt is not looked up: 2 us + 10 x 0.01 us.
  EXPECT_NEAR(p[1].predicted_s, 1.09e-3 + 2e-6 + 1e-7, 1e-12);
  // Without speculation the same figures charge nothing.
  spec.num_speculative_tokens = 0;
  EXPECT_NEAR(predict_steps(steps, model, spec)[0].predicted_s, 1.05e-3, 1e-12);
}

}  // namespace
}  // namespace tidal::validate
