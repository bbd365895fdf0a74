#include "perf/expert_load.h"

#include <algorithm>
#include <cmath>

namespace tidal::perf {

ExpertLoad zipf_expert_load(int64_t num_experts, int64_t top_k, double exponent) {
  if (exponent == 0.0) return {};
  std::vector<double> weights(static_cast<size_t>(num_experts));  // [num_experts] 1 / i^s
  for (size_t i = 0; i < weights.size(); ++i) {
    weights[i] = std::pow(static_cast<double>(i + 1), -exponent);
  }
  return explicit_expert_load(weights, top_k);
}

ExpertLoad explicit_expert_load(std::span<const double> load, int64_t top_k) {
  if (std::adjacent_find(load.begin(), load.end(), std::not_equal_to<>()) == load.end()) return {};
  const double cap = 1.0 / static_cast<double>(top_k);
  std::vector<bool> capped(load.size(), false);  // [num_experts] share fixed at the cap
  ExpertLoad result;
  result.shares.assign(load.size(), 0.0);
  // Each pass gives the uncapped experts the mass the capped ones leave, in proportion to their
  // load; a pass that caps nobody new is the last (at most num_experts passes).
  for (bool capped_more = true; capped_more;) {
    capped_more = false;
    double free_load = 0.0;
    double num_capped = 0.0;
    for (size_t i = 0; i < load.size(); ++i) {
      if (capped[i]) {
        num_capped += 1.0;
      } else {
        free_load += load[i];
      }
    }
    const double free_mass = std::max(0.0, 1.0 - num_capped * cap);
    for (size_t i = 0; i < load.size(); ++i) {
      if (capped[i]) {
        result.shares[i] = cap;
        continue;
      }
      result.shares[i] = free_load > 0.0 ? load[i] / free_load * free_mass : 0.0;
      if (result.shares[i] > cap) {
        capped[i] = true;
        capped_more = true;
      }
    }
  }
  return result;
}

RankExpertWork rank_expert_work(const ExpertLoad& load, int64_t num_experts, int64_t top_k,
                                int32_t ep, int32_t rank, double num_tokens) {
  const double t = num_tokens;
  const double e = static_cast<double>(num_experts);
  const double k = static_cast<double>(top_k);
  const double ranks = ep;
  if (load.balanced()) return {e / ranks * (1.0 - std::pow(1.0 - k / e, t)), t * k / ranks};
  const int64_t experts_per_rank = num_experts / ep;
  RankExpertWork work;
  double rank_share = 0.0;
  for (int64_t i = rank * experts_per_rank; i < (rank + 1) * experts_per_rank; ++i) {
    const double p = load.shares[static_cast<size_t>(i)];
    work.num_experts_touched += 1.0 - std::pow(1.0 - std::min(1.0, k * p), t);
    rank_share += p;
  }
  work.num_assignments = t * k * rank_share;
  return work;
}

}  // namespace tidal::perf
