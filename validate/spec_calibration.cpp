#include "validate/spec_calibration.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>

namespace tidal::validate {

double acceptance_for_accepted_share(double share, int32_t k) {
  const double target = std::clamp(share, 0.0, 1.0);
  auto accepted_share = [k](double alpha) {
    double sum = 0.0;
    double power = 1.0;
    for (int32_t i = 0; i < k; ++i) {
      power *= alpha;
      sum += power;
    }
    return sum / static_cast<double>(k);
  };
  // accepted_share rises monotonically from 0 (alpha 0) to 1 (alpha 1): bisection.
  double lo = 0.0;
  double hi = 1.0;
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (accepted_share(mid) < target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

namespace {

// The engine's drafting by decode-step bucket and by request.
struct EngineDrafting {
  std::vector<DecodeStepCounts> buckets;  // [kDecodeStepBuckets.size()]
  std::vector<ContextCounts> by_context;  // [kContextBuckets.size()]
  // By request id: the bucket of each decode step that verified drafts, and the drafts accepted.
  std::unordered_map<int64_t, std::vector<uint8_t>> verifications;
  std::unordered_map<int64_t, int64_t> accepted;
};

EngineDrafting count_drafting(std::span<const engine::StepRecord> steps) {
  EngineDrafting d;
  d.buckets.resize(kDecodeStepBuckets.size());
  for (size_t b = 0; b < d.buckets.size(); ++b) d.buckets[b].first_step = kDecodeStepBuckets[b];
  d.by_context.resize(kContextBuckets.size());
  for (size_t b = 0; b < d.by_context.size(); ++b) {
    d.by_context[b].first_context_tokens = kContextBuckets[b];
  }
  std::unordered_map<int64_t, int32_t> num_sampling_steps;  // by request id
  for (const engine::StepRecord& step : steps) {
    const bool has_events = step.events.size() == step.seqs.size();
    for (size_t i = 0; i < step.seqs.size(); ++i) {
      const sched::ScheduledSeq& seq = step.seqs[i];
      if (!seq.samples) continue;
      const int32_t n = num_sampling_steps[seq.request_id]++;
      if (n < 1 || seq.num_context_tokens == 0 || seq.num_new_tokens - seq.num_spec_tokens != 1) {
        continue;
      }
      const auto bucket = static_cast<uint8_t>(
          std::upper_bound(kDecodeStepBuckets.begin(), kDecodeStepBuckets.end(), n) -
          kDecodeStepBuckets.begin() - 1);
      DecodeStepCounts& c = d.buckets[bucket];
      ContextCounts& by_context = d.by_context[static_cast<size_t>(
          std::upper_bound(kContextBuckets.begin(), kContextBuckets.end(), seq.num_context_tokens) -
          kContextBuckets.begin() - 1)];
      ++c.num_decode_steps;
      ++by_context.num_decode_steps;
      if (seq.num_spec_tokens == 0) continue;
      ++by_context.num_drafting_steps;
      ++c.num_drafting_steps;
      c.num_drafted += seq.num_spec_tokens;
      if (!has_events) continue;
      const int64_t accepted = std::max(step.events[i].num_new_output_tokens - 1, 0);
      c.num_accepted += accepted;
      d.verifications[seq.request_id].push_back(bucket);
      d.accepted[seq.request_id] += accepted;
    }
  }
  return d;
}

// kContextBuckets' counts with each sparse bucket (fewer than kMinContextBucketSteps decode
// steps) merged into the one before it, and a sparse first bucket into the ones after it until
// it is not (keeping its first context, 0).
std::vector<ContextCounts> merge_sparse(const std::vector<ContextCounts>& buckets) {
  const auto add = [](ContextCounts& into, const ContextCounts& from) {
    into.num_decode_steps += from.num_decode_steps;
    into.num_drafting_steps += from.num_drafting_steps;
  };
  std::vector<ContextCounts> merged;
  for (const ContextCounts& b : buckets) {
    if (merged.empty() || b.num_decode_steps >= kMinContextBucketSteps) {
      merged.push_back(b);
    } else {
      add(merged.back(), b);
    }
  }
  while (merged.size() > 1 && merged[0].num_decode_steps < kMinContextBucketSteps) {
    add(merged[0], merged[1]);
    merged.erase(merged.begin() + 1);
  }
  return merged;
}

// The per-token rate of each bucket for requests that accept drafts when only `share` of the
// requests do: the bucket's accepted share (else `overall_share`) divided by `share`, capped at 1.
std::vector<double> accepting_rates(const std::vector<DecodeStepCounts>& buckets,
                                    double overall_share, double share, int32_t k) {
  std::vector<double> rates;
  for (const DecodeStepCounts& b : buckets) {
    const double bucket_share =
        b.num_drafted > 0 ? static_cast<double>(b.num_accepted) / static_cast<double>(b.num_drafted)
                          : overall_share;
    rates.push_back(acceptance_for_accepted_share(std::min(1.0, bucket_share / share), k));
  }
  return rates;
}

// Expected share of drafting requests with no draft accepted when `share` of all requests accept
// at accepting_rates(share): a request's first draft is rejected at each of its verifications.
double expected_without_acceptance(const EngineDrafting& d, double overall_share, double share,
                                   int32_t k) {
  const std::vector<double> rates = accepting_rates(d.buckets, overall_share, share, k);
  double total = 0.0;
  for (const auto& [id, buckets] : d.verifications) {
    double none = 1.0;
    for (const uint8_t b : buckets) none *= 1.0 - rates[b];
    total += (1.0 - share) + share * none;
  }
  return total / static_cast<double>(d.verifications.size());
}

}  // namespace

SpecCalibration calibrate_ngram(const engine::SpecConfig& spec, const engine::SpecStats& stats,
                                std::span<const engine::StepRecord> steps,
                                const perf::Profile& profile) {
  SpecCalibration c;
  const EngineDrafting drafting = count_drafting(steps);
  int64_t num_decoding = 0;
  int64_t num_drafting = 0;
  for (const DecodeStepCounts& b : drafting.buckets) {
    num_decoding += b.num_decode_steps;
    num_drafting += b.num_drafting_steps;
  }
  if (num_decoding > 0) {
    c.engine_drafting_share = static_cast<double>(num_drafting) / static_cast<double>(num_decoding);
  }
  const int32_t k = spec.num_spec_tokens;
  c.engine_acceptance_rate = stats.acceptance_rate();
  c.engine_tokens_per_verification = stats.mean_accepted_length();
  c.profile_draft = profile.draft;
  c.speculative.method = "ngram";
  c.speculative.num_speculative_tokens = k;
  if (num_decoding > 0) {
    c.proposal_by_context = merge_sparse(drafting.by_context);
    for (const ContextCounts& counts : c.proposal_by_context) {
      c.speculative.proposal_by_context.push_back(
          {counts.first_context_tokens, static_cast<double>(counts.num_drafting_steps) /
                                            static_cast<double>(counts.num_decode_steps)});
    }
  }
  // The lookup is host work per sequence, not a share of the target step.
  c.speculative.draft_cost_ratio = 0.0;
  if (profile.draft) {
    c.speculative.draft_seconds_per_seq = profile.draft->seconds_per_seq;
    c.speculative.draft_seconds_per_context_token = profile.draft->seconds_per_context_token;
  }
  c.by_decode_step = drafting.buckets;
  std::vector<int64_t> accepted;  // [num drafting requests] accepted drafts, most first
  for (const auto& [id, count] : drafting.accepted) accepted.push_back(count);
  std::sort(accepted.begin(), accepted.end(), std::greater<>());
  c.num_drafting_requests = static_cast<int64_t>(accepted.size());
  const double overall_share = c.engine_acceptance_rate;
  double share = 1.0;
  if (!accepted.empty()) {
    const auto num_without = std::count(accepted.begin(), accepted.end(), int64_t{0});
    c.drafting_requests_without_acceptance =
        static_cast<double>(num_without) / static_cast<double>(accepted.size());
    const int64_t total = std::accumulate(accepted.begin(), accepted.end(), int64_t{0});
    const size_t top = (accepted.size() + 9) / 10;
    const int64_t top_total = std::accumulate(accepted.begin(), accepted.begin() + top, int64_t{0});
    if (total > 0) {
      c.accepted_share_of_top_tenth = static_cast<double>(top_total) / static_cast<double>(total);
      // More requests without any acceptance than drafts accepted alike by all would leave:
      // the share of accepting requests that leaves as many (bisection; the expectation falls
      // as the share grows).
      const double observed = c.drafting_requests_without_acceptance;
      if (expected_without_acceptance(drafting, overall_share, 1.0, k) < observed) {
        double lo = 1e-3;
        double hi = 1.0;
        for (int i = 0; i < 50; ++i) {
          const double mid = 0.5 * (lo + hi);
          (expected_without_acceptance(drafting, overall_share, mid, k) > observed ? lo : hi) = mid;
        }
        share = 0.5 * (lo + hi);
      }
    }
  }
  c.speculative.accepting_share = share;
  c.speculative.acceptance_rate =
      acceptance_for_accepted_share(std::min(1.0, overall_share / share), k);
  const std::vector<double> rates = accepting_rates(drafting.buckets, overall_share, share, k);
  for (size_t b = 0; b < drafting.buckets.size(); ++b) {
    const DecodeStepCounts& counts = drafting.buckets[b];
    c.speculative.by_decode_step.push_back({counts.first_step, std::nullopt, rates[b]});
  }
  return c;
}

nlohmann::ordered_json to_json(const SpecCalibration& c) {
  nlohmann::ordered_json by_step = nlohmann::ordered_json::array();
  for (const DecodeStepCounts& b : c.by_decode_step) {
    by_step.push_back({{"first_step", b.first_step},
                       {"num_decode_steps", b.num_decode_steps},
                       {"num_drafting_steps", b.num_drafting_steps},
                       {"num_drafted", b.num_drafted},
                       {"num_accepted", b.num_accepted}});
  }
  nlohmann::ordered_json by_context = nlohmann::ordered_json::array();
  for (const ContextCounts& b : c.proposal_by_context) {
    by_context.push_back({{"first_context_tokens", b.first_context_tokens},
                          {"num_decode_steps", b.num_decode_steps},
                          {"num_drafting_steps", b.num_drafting_steps}});
  }
  nlohmann::ordered_json j = sim::speculative_to_json(c.speculative);
  j["calibrated_from"] = {
      {"engine_acceptance_rate", c.engine_acceptance_rate},
      {"engine_tokens_per_verification", c.engine_tokens_per_verification},
      {"engine_drafting_share", c.engine_drafting_share},
      {"profile_draft_k",
       c.profile_draft ? nlohmann::ordered_json(c.profile_draft->num_speculative_tokens) : nullptr},
      {"by_decode_step", by_step},
      {"proposal_by_context", by_context},
      {"num_drafting_requests", c.num_drafting_requests},
      {"drafting_requests_without_acceptance", c.drafting_requests_without_acceptance},
      {"accepted_share_of_top_tenth", c.accepted_share_of_top_tenth}};
  return j;
}

std::string calibration_note(const SpecCalibration& c) {
  const sim::SpeculativeSpec& s = c.speculative;
  std::string first_steps;
  for (const int32_t step : kDecodeStepBuckets) {
    first_steps += fmt::format("{}{}", first_steps.empty() ? "" : ", ", step);
  }
  std::string by_context;
  for (const sim::SpecContextRate& b : s.proposal_by_context) {
    by_context += fmt::format("{}{}+: {:.3f}", by_context.empty() ? "" : ", ",
                              b.first_context_tokens, b.proposal_rate);
  }
  std::string note = fmt::format(
      "simulator speculation (calibrated inputs): ngram, k {}; accepting_share {:.4f} of the "
      "requests (of the engine's {} drafting requests, {:.1f}% had no draft accepted and the "
      "tenth with the most had {:.1f}% of the accepted drafts), acceptance_rate {:.4f}, the "
      "per-token rate at which those accept the engine run's measured share of drafted tokens "
      "({:.4f}; {:.3f} tokens per verifying sequence) over the accepting share, again by decode "
      "step from steps {}; proposal rates by the context verified at ({}), the share of the "
      "engine's decoding steps that carried drafts ({:.4f} over all); ",
      s.num_speculative_tokens, s.accepting_share, c.num_drafting_requests,
      100.0 * c.drafting_requests_without_acceptance, 100.0 * c.accepted_share_of_top_tenth,
      s.acceptance_rate, c.engine_acceptance_rate, c.engine_tokens_per_verification, first_steps,
      by_context.empty() ? "none: no decode step, so always" : by_context, c.engine_drafting_share);
  if (c.profile_draft) {
    note += fmt::format(
        "host drafting {:.3f} us + {:.4f} us per context token for every sequence already "
        "scheduled, on every step: the profile's measured n-gram lookup (at k {})",
        s.draft_seconds_per_seq * 1e6, s.draft_seconds_per_context_token * 1e6,
        c.profile_draft->num_speculative_tokens);
  } else {
    note += "no drafting cost: the profile has no measured n-gram lookup (no \"draft\" section)";
  }
  return note;
}

}  // namespace tidal::validate
