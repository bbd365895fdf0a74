// The simulator's speculative-decoding inputs for a validation case (docs/scenario.md,
// `fleet.pools[i].speculative`), calibrated from the engine side: method and k as the engine
// ran them; the acceptance rate from the engine run's measured acceptance; the draft cost from
// the profile's measured n-gram drafting time.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "perf/profile.h"
#include "sim/scenario.h"

namespace tidal::validate {

// The simulator's per-token acceptance probability alpha whose model (drafts accepted one by one
// with probability alpha until the first rejection, at most k) accepts, on average, `share` of
// the k drafted tokens: (alpha + alpha^2 + ... + alpha^k) / k = share. share in [0, 1], k >= 1;
// the engine's spec_acceptance_rate is that share (accepted / drafted tokens).
double acceptance_for_accepted_share(double share, int32_t k);

// What the engine run did at the decode steps of one bucket of SpeculativeSpec::by_decode_step.
struct DecodeStepCounts {
  int32_t first_step = 1;
  int64_t num_decode_steps = 0;    // (sequence, step) pairs decoding one known token (+ drafts)
  int64_t num_drafting_steps = 0;  // of which carried drafts
  int64_t num_drafted = 0;         // drafts verified
  int64_t num_accepted = 0;        // of which accepted
};

// First decode steps of the calibrated buckets: 1, 2, 4, ..., 64 (the n-gram drafter finds
// more of a sequence's suffix earlier in it as the sequence grows).
inline constexpr std::array<int32_t, 7> kDecodeStepBuckets{1, 2, 4, 8, 16, 32, 64};

// What the engine run did at the decode steps verified at the contexts of one bucket of
// SpeculativeSpec::proposal_by_context.
struct ContextCounts {
  int64_t first_context_tokens = 0;
  int64_t num_decode_steps = 0;    // (sequence, step) pairs decoding one known token (+ drafts)
  int64_t num_drafting_steps = 0;  // of which carried drafts
};

// First contexts of the calibrated proposal buckets (prompt lookup finds the suffix more often
// in a longer sequence); a bucket with fewer than kMinContextBucketSteps decode steps is merged
// into the one before it (the first into the one after it).
inline constexpr std::array<int64_t, 10> kContextBuckets{0,   16,  32,   64,   128,
                                                         256, 512, 1024, 2048, 4096};
inline constexpr int64_t kMinContextBucketSteps = 50;

struct SpecCalibration {
  sim::SpeculativeSpec speculative;             // method "ngram", k, alpha, drafting cost
  double engine_acceptance_rate = 0.0;          // accepted / drafted tokens in the engine run
  double engine_tokens_per_verification = 0.0;  // accepted drafts + 1 per verifying sequence
  // Of the engine's decoding steps of a sequence (one known token + its drafts), the share that
  // carried drafts: the n-gram drafter proposes nothing when the sequence's suffix has no
  // earlier occurrence (by context: speculative.proposal_by_context).
  double engine_drafting_share = 0.0;
  std::optional<perf::DraftCost> profile_draft;  // absent: the profile measured no drafting
  // [kDecodeStepBuckets.size()] the engine's counts behind speculative.by_decode_step.
  std::vector<DecodeStepCounts> by_decode_step;
  // [speculative.proposal_by_context.size()] the merged buckets' counts behind it.
  std::vector<ContextCounts> proposal_by_context;
  // How unevenly the engine's requests shared the accepted drafts (the simulator draws every
  // request's drafts at the same rates, so it spreads them evenly): of the requests that
  // verified drafts, the share with none accepted, and the share of all accepted drafts that
  // went to the tenth of them with the most.
  int64_t num_drafting_requests = 0;
  double drafting_requests_without_acceptance = 0.0;
  double accepted_share_of_top_tenth = 0.0;
};

// The calibration of an n-gram case (spec.method == ngram, k >= 1), from the engine run's `steps`
// (a sequence's decode step n counts its sampling steps before this one, 0 = the end of its
// prefill, as the simulator counts them; the drafts accepted are what `events` says the step
// emitted, less the target's own token):
// - accepting_share: 1 when drafts accepted alike by every request would leave at least as many
//   drafting requests without any acceptance as the engine had; else the share of accepting
//   requests whose expectation matches the engine's count (bisection);
// - acceptance_rate: the per-token rate that accepts the engine's accepted share divided by
//   accepting_share (acceptance_for_accepted_share);
// - by_decode_step: one bucket per kDecodeStepBuckets entry, the acceptance rate over the
//   bucket's decode steps (the overall one where it has none);
// - proposal_by_context: the share of decode steps that carried drafts by the context they were
//   verified at (kContextBuckets, sparse buckets merged); without any decode step, none, and
//   proposal_rate 1. engine_drafting_share is that share over all decode steps;
// - draft_cost_ratio 0, and the host drafting cost per sequence (draft_seconds_per_seq,
//   draft_seconds_per_context_token) = the profile's measured n-gram lookup, or 0 when the
//   profile has no drafting figure.
SpecCalibration calibrate_ngram(const engine::SpecConfig& spec, const engine::SpecStats& stats,
                                std::span<const engine::StepRecord> steps,
                                const perf::Profile& profile);

// The simulator's speculative object as a scenario gives it (sim::speculative_to_json) and
// "calibrated_from": {"engine_acceptance_rate", "engine_tokens_per_verification",
// "engine_drafting_share", "profile_draft_k", "by_decode_step": [{"first_step",
// "num_decode_steps", "num_drafting_steps", "num_drafted", "num_accepted"}],
// "proposal_by_context": [{"first_context_tokens", "num_decode_steps", "num_drafting_steps"}],
// "num_drafting_requests", "drafting_requests_without_acceptance",
// "accepted_share_of_top_tenth"}.
nlohmann::ordered_json to_json(const SpecCalibration& c);

// One line for `notes`: what the simulator's speculation was calibrated from.
std::string calibration_note(const SpecCalibration& c);

}  // namespace tidal::validate
