#include "sim/kv_tiers_summary.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tidal::sim {

namespace {

using ojson = nlohmann::ordered_json;

ojson ratio_or_null(double num, double den) {
  return den > 0 ? ojson(num / den) : ojson(nullptr);
}

}  // namespace

nlohmann::ordered_json kv_tiers_summary_json(const Scenario& scenario, const RunResult& result) {
  bool any = false;
  for (const PoolSpec& pool : scenario.pools) any = any || !pool.kv_tiers.empty();
  if (!any) return nullptr;
  int64_t num_prompt_tokens = 0;
  for (const Request& r : result.table.requests) num_prompt_tokens += r.prompt_tokens;
  const auto prompt_tokens = static_cast<double>(num_prompt_tokens);
  ojson pools = ojson::array();
  int64_t load_ns_total = 0;
  for (size_t p = 0; p < scenario.pools.size(); ++p) {
    const PoolSpec& spec = scenario.pools[p];
    if (spec.kv_tiers.empty()) continue;
    const size_t num_tiers = spec.kv_tiers.size();
    int64_t num_queried_blocks = 0;
    int64_t num_gpu_hit_blocks = 0;
    kv::TierStoreStats sum;
    sum.tiers.resize(num_tiers);
    for (const ReplicaSummary& r : result.replicas) {
      if (r.pool != static_cast<int32_t>(p)) continue;
      num_queried_blocks += r.block_manager.num_queried_blocks;
      num_gpu_hit_blocks += r.block_manager.num_hit_blocks;
      sum.num_loads += r.kv_tiers.num_loads;
      sum.load_ns += r.kv_tiers.load_ns;
      for (size_t t = 0; t < std::min(num_tiers, r.kv_tiers.tiers.size()); ++t) {
        const kv::TierStats& s = r.kv_tiers.tiers[t];
        kv::TierStats& into = sum.tiers[t];
        into.num_written_blocks += s.num_written_blocks;
        into.num_dropped_blocks += s.num_dropped_blocks;
        into.num_evicted_blocks += s.num_evicted_blocks;
        into.num_hit_blocks += s.num_hit_blocks;
        into.written_bytes += s.written_bytes;
        into.read_bytes += s.read_bytes;
        into.peak_num_blocks = std::max(into.peak_num_blocks, s.peak_num_blocks);
      }
    }
    load_ns_total += sum.load_ns;
    const int64_t block_tokens = spec.deployment.block_size;
    int64_t num_hit_blocks = num_gpu_hit_blocks;
    ojson hits = ojson::array();
    const auto hit_row = [&](const std::string& tier, int64_t blocks) {
      const int64_t tokens = blocks * block_tokens;
      hits.push_back(ojson{
          {"tier", tier},
          {"blocks", blocks},
          {"tokens", tokens},
          {"share_of_prompt_tokens", ratio_or_null(static_cast<double>(tokens), prompt_tokens)}});
    };
    hit_row("gpu", num_gpu_hit_blocks);
    ojson tiers = ojson::array();
    for (size_t t = 0; t < num_tiers; ++t) {
      const KvTierSpec& tier = spec.kv_tiers[t];
      const kv::TierStats& s = sum.tiers[t];
      const std::string kind(kv::tier_kind_name(tier.config.kind));
      hit_row(kind, s.num_hit_blocks);
      num_hit_blocks += s.num_hit_blocks;
      tiers.push_back(
          ojson{{"kind", kind},
                {"capacity_blocks", tier.config.capacity_blocks == kv::TierConfig::kUnbounded
                                        ? ojson(nullptr)
                                        : ojson(tier.config.capacity_blocks)},
                {"peak_num_blocks", s.peak_num_blocks},
                {"num_written_blocks", s.num_written_blocks},
                {"num_dropped_blocks", s.num_dropped_blocks},
                {"num_evicted_blocks", s.num_evicted_blocks},
                {"num_hit_blocks", s.num_hit_blocks},
                {"written_bytes", s.written_bytes},
                {"read_bytes", s.read_bytes}});
    }
    const double load_s = static_cast<double>(sum.load_ns) * 1e-9;
    pools.push_back(
        ojson{{"pool", spec.name},
              {"block_tokens", block_tokens},
              {"block_bytes", spec.kv_tiers.front().config.block_bytes},
              {"num_queried_blocks", num_queried_blocks},
              {"num_hit_blocks", num_hit_blocks},
              {"block_hit_ratio", ratio_or_null(static_cast<double>(num_hit_blocks),
                                                static_cast<double>(num_queried_blocks))},
              {"hits", hits},
              {"tiers", tiers},
              {"num_loads", sum.num_loads},
              {"load_s", load_s},
              {"mean_load_s", ratio_or_null(load_s, static_cast<double>(sum.num_loads))}});
  }
  const double load_s_total = static_cast<double>(load_ns_total) * 1e-9;
  return ojson{{"num_prompt_tokens", num_prompt_tokens},
               {"load_s", load_s_total},
               {"load_s_per_request",
                ratio_or_null(load_s_total, static_cast<double>(result.table.requests.size()))},
               {"pools", pools}};
}

}  // namespace tidal::sim
