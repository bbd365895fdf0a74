// How a MoE layer's routed assignments spread over its experts (Deployment::expert_load), and
// what one step's tokens then give each expert-parallel rank: the distinct experts it reads and
// the (token, expert) assignments it computes (docs/perf.md, "Expert load skew").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace tidal::perf {

// Each routed expert's share of the assignments; balanced (every expert 1 / num_experts) when
// empty, so the default keeps the uniform-routing figures as they were.
struct ExpertLoad {
  std::vector<double> shares{};  // [num_experts] share of assignments, sum 1; empty: balanced

  bool balanced() const { return shares.empty(); }
};

// Zipf over num_experts experts: share_i proportional to 1 / i^exponent (i = 1..num_experts, the
// hottest first), then capped as explicit_expert_load caps. Exponent 0 is balanced. `exponent`
// finite and >= 0 (the caller checks).
ExpertLoad zipf_expert_load(int64_t num_experts, int64_t top_k, double exponent);

// An explicit load per expert, normalised to shares; all equal is balanced. A token picks an
// expert at most once, so no share can pass 1 / top_k: shares above it are capped there and the
// excess spread over the others in proportion to their load (repeated until none passes).
// `load` non-negative and finite with at least top_k entries > 0 (the caller checks).
ExpertLoad explicit_expert_load(std::span<const double> load, int64_t top_k);

// One expert-parallel rank's part of one MoE layer in a step.
struct RankExpertWork {
  double num_experts_touched = 0.0;  // expected distinct experts of the rank the tokens reach
  double num_assignments = 0.0;      // expected (token, expert) pairs the rank computes
};

// Rank `rank` of `ep` holds experts [rank * E / ep, (rank + 1) * E / ep) (contiguous, as vLLM
// places them). Each of num_tokens tokens picks top_k experts; expert i receives a share p_i of
// the assignments, so a token picks it with probability q_i = top_k * p_i (<= 1), and
//   num_experts_touched = sum over the rank's experts of 1 - (1 - q_i)^num_tokens
//   num_assignments     = num_tokens * top_k * (sum over the rank's experts of p_i).
// Balanced: E / ep * (1 - (1 - top_k / E)^num_tokens) and num_tokens * top_k / ep on every rank.
RankExpertWork rank_expert_work(const ExpertLoad& load, int64_t num_experts, int64_t top_k,
                                int32_t ep, int32_t rank, double num_tokens);

}  // namespace tidal::perf
