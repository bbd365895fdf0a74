// The simulator's n-gram speculation calibrated from an engine run's acceptance and a profile's
// drafting cost.
#include "validate/spec_calibration.h"

#include <gtest/gtest.h>

namespace tidal::validate {
namespace {

double accepted_share(double alpha, int32_t k) {
  double sum = 0.0;
  double power = 1.0;
  for (int32_t i = 0; i < k; ++i) sum += (power *= alpha);
  return sum / k;
}

// A scheduled sequence of request `id` and what its step emitted.
sched::ScheduledSeq scheduled(int64_t id, int64_t new_tokens, int64_t context, int32_t spec_tokens,
                              bool samples = true) {
  sched::ScheduledSeq s;
  s.request_id = id;
  s.num_new_tokens = new_tokens;
  s.num_context_tokens = context;
  s.num_spec_tokens = spec_tokens;
  s.samples = samples;
  return s;
}
// The engine's n-gram speculation at k = 3.
engine::SpecConfig ngram_k3() {
  engine::SpecConfig spec;
  spec.method = engine::SpecMethod::ngram;
  spec.num_spec_tokens = 3;
  return spec;
}
// Engine counters of `num_verifications` verifications of 3 drafts with `num_accepted` accepted.
engine::SpecStats stats_of(int64_t num_verifications, int64_t num_accepted) {
  engine::SpecStats stats;
  stats.num_verifications = num_verifications;
  stats.num_draft_tokens = 3 * num_verifications;
  stats.num_accepted_tokens = num_accepted;
  return stats;
}
sched::RequestEvent emitted(int64_t id, int32_t num_tokens) {
  sched::RequestEvent e;
  e.request_id = id;
  e.num_new_output_tokens = num_tokens;
  return e;
}

TEST(SpecCalibration, AcceptanceReproducesTheAcceptedShare) {
  EXPECT_NEAR(acceptance_for_accepted_share(0.0, 3), 0.0, 1e-12);
  EXPECT_NEAR(acceptance_for_accepted_share(1.0, 3), 1.0, 1e-12);
  EXPECT_NEAR(acceptance_for_accepted_share(0.5, 1), 0.5, 1e-12);  // k = 1: alpha is the share
  for (const double share : {0.1, 0.3, 0.6, 0.9}) {
    for (const int32_t k : {2, 3, 5}) {
      const double alpha = acceptance_for_accepted_share(share, k);
      EXPECT_NEAR(accepted_share(alpha, k), share, 1e-9) << share << " " << k;
      EXPECT_GT(alpha, share);  // later drafts need every earlier one accepted
    }
  }
}

TEST(SpecCalibration, NgramFromEngineStatsAndProfile) {
  const engine::SpecConfig spec = ngram_k3();
  const engine::SpecStats stats = stats_of(100, 90);
  perf::Profile profile;
  profile.draft = perf::DraftCost{"ngram", 4, 2e-7, 3e-9};
  // One step: a prefill chunk (not decoding), a decode verifying 3 drafts, three plain decodes
  // and a chunk whose step does not sample: 1 of 4 decoding steps drafted.
  engine::StepRecord step;
  step.seqs = {scheduled(0, 32, 0, 0), scheduled(0, 4, 40, 3), scheduled(0, 1, 40, 0),
               scheduled(0, 1, 50, 0), scheduled(0, 1, 60, 0), scheduled(0, 8, 16, 0, false)};
  const std::vector<engine::StepRecord> steps{step};
  const SpecCalibration c = calibrate_ngram(spec, stats, steps, profile);
  EXPECT_DOUBLE_EQ(c.engine_drafting_share, 0.25);
  // The simulator drafts at that share: four decode steps, too few for more than one bucket.
  ASSERT_EQ(c.speculative.proposal_by_context.size(), 1u);
  EXPECT_EQ(c.speculative.proposal_by_context[0].first_context_tokens, 0);
  EXPECT_DOUBLE_EQ(c.speculative.proposal_by_context[0].proposal_rate, 0.25);
  EXPECT_EQ(c.speculative.method, "ngram");
  EXPECT_EQ(c.speculative.num_speculative_tokens, 3);
  EXPECT_TRUE(c.speculative.enabled());
  EXPECT_DOUBLE_EQ(c.engine_acceptance_rate, 0.3);
  EXPECT_NEAR(accepted_share(c.speculative.acceptance_rate, 3), 0.3, 1e-9);
  // The lookup is charged per sequence and step, not as a share of the step.
  EXPECT_DOUBLE_EQ(c.speculative.draft_cost_ratio, 0.0);
  EXPECT_DOUBLE_EQ(c.speculative.draft_seconds_per_seq, 2e-7);
  EXPECT_DOUBLE_EQ(c.speculative.draft_seconds_per_context_token, 3e-9);
  const nlohmann::ordered_json j = to_json(c);
  EXPECT_EQ(j["num_speculative_tokens"], 3);
  EXPECT_DOUBLE_EQ(j["calibrated_from"]["engine_acceptance_rate"].get<double>(), 0.3);
  EXPECT_EQ(j["calibrated_from"]["profile_draft_k"], 4);
  EXPECT_DOUBLE_EQ(j["calibrated_from"]["engine_drafting_share"].get<double>(), 0.25);
  EXPECT_FALSE(j.contains("proposal_rate"));  // not an input beside rates by context
  EXPECT_DOUBLE_EQ(j["proposal_by_context"][0]["proposal_rate"].get<double>(), 0.25);
  EXPECT_EQ(j["calibrated_from"]["proposal_by_context"][0]["num_decode_steps"], 4);
  EXPECT_NE(calibration_note(c).find("calibrated"), std::string::npos);

  profile.draft.reset();
  const SpecCalibration without = calibrate_ngram(spec, stats, {}, profile);
  EXPECT_DOUBLE_EQ(without.speculative.draft_seconds_per_seq, 0.0);
  EXPECT_DOUBLE_EQ(without.speculative.draft_seconds_per_context_token, 0.0);
  EXPECT_TRUE(to_json(without)["calibrated_from"]["profile_draft_k"].is_null());
  // No decode step: no rates by context, and the drafter proposes at every step.
  EXPECT_TRUE(without.speculative.proposal_by_context.empty());
  EXPECT_DOUBLE_EQ(without.speculative.proposal_rate_at(1, 100), 1.0);
}

// 120 requests, each a prefill and one decode step verified at its own context: 60 at contexts
// 64..123 (every other one drafting), 10 at 188..197 (all drafting), 50 at 326..375 (none). The
// 10 are too few for a bucket of their own and join the one before; the empty buckets below 64
// make the first bucket sparse, so it takes in the next one and keeps its start at 0.
TEST(SpecCalibration, ProposalRatesByContextFromTheEngineSteps) {
  const engine::SpecConfig spec = ngram_k3();
  const engine::SpecStats stats = stats_of(0, 0);
  std::vector<engine::StepRecord> steps(2);
  for (int64_t id = 0; id < 120; ++id) {
    const int64_t context = id < 60 ? 64 + id : (id < 70 ? 128 + id : 256 + id);
    const bool drafts = id < 60 ? id % 2 == 0 : id < 70;
    steps[0].seqs.push_back(scheduled(id, context, 0, 0));
    steps[0].events.push_back(emitted(id, 1));
    steps[1].seqs.push_back(scheduled(id, drafts ? 4 : 1, context, drafts ? 3 : 0));
    steps[1].events.push_back(emitted(id, 1));
  }
  const SpecCalibration c = calibrate_ngram(spec, stats, steps, perf::Profile{});
  ASSERT_EQ(c.proposal_by_context.size(), 2u);
  EXPECT_EQ(c.proposal_by_context[0].first_context_tokens, 0);
  EXPECT_EQ(c.proposal_by_context[0].num_decode_steps, 70);
  EXPECT_EQ(c.proposal_by_context[0].num_drafting_steps, 40);
  EXPECT_EQ(c.proposal_by_context[1].first_context_tokens, 256);
  EXPECT_EQ(c.proposal_by_context[1].num_decode_steps, 50);
  EXPECT_EQ(c.proposal_by_context[1].num_drafting_steps, 0);
  const sim::SpeculativeSpec& s = c.speculative;
  ASSERT_EQ(s.proposal_by_context.size(), 2u);
  EXPECT_DOUBLE_EQ(s.proposal_rate_at(1, 0), 40.0 / 70.0);
  EXPECT_DOUBLE_EQ(s.proposal_rate_at(1, 255), 40.0 / 70.0);
  EXPECT_DOUBLE_EQ(s.proposal_rate_at(1, 256), 0.0);
  EXPECT_DOUBLE_EQ(c.engine_drafting_share, 40.0 / 120.0);
  EXPECT_NE(calibration_note(c).find("(0+: 0.571, 256+: 0.000)"), std::string::npos)
      << calibration_note(c);
}

// Buckets by decode step: request 1 decodes plainly at step 1 and verifies 3 drafts at steps 2
// and 3 (2 and then 3 accepted, as its events say); request 2 verifies 3 drafts at step 1 (none
// accepted). Buckets without decode steps keep the overall figures.
TEST(SpecCalibration, RatesByDecodeStepFromTheEngineSteps) {
  const engine::SpecConfig spec = ngram_k3();
  const engine::SpecStats stats = stats_of(3, 5);
  std::vector<engine::StepRecord> steps(4);
  steps[0].seqs = {scheduled(1, 20, 0, 0), scheduled(2, 30, 0, 0)};  // prefills: step 0 of each
  steps[0].events = {emitted(1, 1), emitted(2, 1)};
  steps[1].seqs = {scheduled(1, 1, 20, 0), scheduled(2, 4, 30, 3)};
  steps[1].events = {emitted(1, 1), emitted(2, 1)};
  steps[2].seqs = {scheduled(1, 4, 21, 3)};
  steps[2].events = {emitted(1, 3)};
  steps[3].seqs = {scheduled(1, 4, 24, 3)};
  steps[3].events = {emitted(1, 4)};
  const SpecCalibration c = calibrate_ngram(spec, stats, steps, perf::Profile{});
  ASSERT_EQ(c.by_decode_step.size(), kDecodeStepBuckets.size());
  ASSERT_EQ(c.speculative.by_decode_step.size(), kDecodeStepBuckets.size());
  EXPECT_EQ(c.by_decode_step[0].first_step, 1);
  EXPECT_EQ(c.by_decode_step[0].num_decode_steps, 2);
  EXPECT_EQ(c.by_decode_step[0].num_drafting_steps, 1);
  EXPECT_EQ(c.by_decode_step[0].num_drafted, 3);
  EXPECT_EQ(c.by_decode_step[0].num_accepted, 0);
  EXPECT_EQ(c.by_decode_step[1].first_step, 2);  // steps 2 and 3
  EXPECT_EQ(c.by_decode_step[1].num_decode_steps, 2);
  EXPECT_EQ(c.by_decode_step[1].num_drafted, 6);
  EXPECT_EQ(c.by_decode_step[1].num_accepted, 5);
  // The buckets give acceptance rates only: the proposal rates are by context.
  EXPECT_FALSE(c.speculative.by_decode_step[0].proposal_rate.has_value());
  EXPECT_NEAR(c.speculative.by_decode_step[0].acceptance_rate, 0.0, 1e-12);
  EXPECT_NEAR(accepted_share(c.speculative.by_decode_step[1].acceptance_rate, 3), 5.0 / 6.0, 1e-9);
  EXPECT_EQ(c.speculative.by_decode_step[2].first_step, 4);
  EXPECT_DOUBLE_EQ(c.speculative.by_decode_step[2].acceptance_rate, c.speculative.acceptance_rate);
  // Request 1 verified drafts twice (5 accepted), request 2 once (none): the top tenth (one
  // request) holds every accepted draft.
  EXPECT_EQ(c.num_drafting_requests, 2);
  EXPECT_DOUBLE_EQ(c.drafting_requests_without_acceptance, 0.5);
  EXPECT_DOUBLE_EQ(c.accepted_share_of_top_tenth, 1.0);
  const nlohmann::ordered_json j = to_json(c);
  EXPECT_EQ(j["by_decode_step"].size(), kDecodeStepBuckets.size());
  EXPECT_EQ(j["calibrated_from"]["num_drafting_requests"], 2);
  EXPECT_EQ(j["calibrated_from"]["by_decode_step"][1]["num_accepted"], 5);
}

// Ten requests verify 3 drafts at each of their decode steps 1..4: five accept all three every
// time, five never accept. Drafts accepted alike by all (half of them) would leave almost no
// request without an acceptance, so the calibration makes half the requests accepting, at rate 1.
TEST(SpecCalibration, UnevenAcceptanceMakesAShareOfRequestsAccepting) {
  const engine::SpecConfig spec = ngram_k3();
  const engine::SpecStats stats = stats_of(40, 60);
  std::vector<engine::StepRecord> steps(5);
  for (int64_t id = 0; id < 10; ++id) {
    for (size_t t = 0; t < steps.size(); ++t) {
      const bool prefill = t == 0;
      const sched::ScheduledSeq seq = scheduled(
          id, prefill ? 20 : 4, prefill ? 0 : 20 + 4 * static_cast<int64_t>(t), prefill ? 0 : 3);
      const sched::RequestEvent event = emitted(id, prefill || id >= 5 ? 1 : 4);
      steps[t].seqs.push_back(seq);
      steps[t].events.push_back(event);
    }
  }
  const SpecCalibration c = calibrate_ngram(spec, stats, steps, perf::Profile{});
  EXPECT_EQ(c.num_drafting_requests, 10);
  EXPECT_DOUBLE_EQ(c.drafting_requests_without_acceptance, 0.5);
  EXPECT_DOUBLE_EQ(c.accepted_share_of_top_tenth, 12.0 / 60.0);
  EXPECT_NEAR(c.speculative.accepting_share, 0.5, 1e-3);
  EXPECT_NEAR(c.speculative.acceptance_rate, 1.0, 1e-3);
  EXPECT_NEAR(c.speculative.by_decode_step[1].acceptance_rate, 1.0, 1e-3);
  EXPECT_NEAR(to_json(c)["accepting_share"].get<double>(), 0.5, 1e-3);
  const std::string note = calibration_note(c);
  EXPECT_NE(note.find("accepting_share 0.5000 of the requests"), std::string::npos) << note;
  EXPECT_NE(note.find("by decode step from steps 1, 2, 4, 8, 16, 32, 64"), std::string::npos);
}

}  // namespace
}  // namespace tidal::validate
