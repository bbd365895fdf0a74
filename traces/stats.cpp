#include "traces/stats.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "traces/dag.h"

namespace tidal::traces {
namespace {

constexpr double kWindowsS[] = {1.0, 10.0, 60.0};

LengthStats length_stats(std::vector<int64_t> values) {
  LengthStats stats;
  if (values.empty()) return stats;
  std::sort(values.begin(), values.end());
  double sum = 0.0;
  for (const int64_t value : values) sum += static_cast<double>(value);
  stats.mean = sum / static_cast<double>(values.size());
  stats.p50 = nearest_rank(values, 50);
  stats.p90 = nearest_rank(values, 90);
  stats.p99 = nearest_rank(values, 99);
  stats.max = values.back();
  return stats;
}

// Window rates from the sorted arrival times. Empty windows are counted without being
// stored, so a long sparse trace costs memory per request, not per window.
WindowRateStats window_rate_stats(const std::vector<double>& sorted_arrivals, double window_s) {
  WindowRateStats stats;
  stats.window_s = window_s;
  if (sorted_arrivals.empty()) return stats;
  const double start = sorted_arrivals.front();
  const double span = sorted_arrivals.back() - start;
  stats.num_windows = static_cast<int64_t>(std::floor(span / window_s)) + 1;
  std::vector<int64_t> counts;  // [num_nonempty_windows] arrivals per non-empty window
  int64_t current_window = -1;
  for (const double arrival : sorted_arrivals) {
    const auto window = std::min(static_cast<int64_t>(std::floor((arrival - start) / window_s)),
                                 stats.num_windows - 1);
    if (window != current_window) {
      counts.push_back(0);
      current_window = window;
    }
    ++counts.back();
  }
  std::sort(counts.begin(), counts.end());
  const auto num_empty = stats.num_windows - static_cast<int64_t>(counts.size());
  auto rate_at_percentile = [&](double p) {
    const auto n = static_cast<double>(stats.num_windows);
    const auto rank =
        std::clamp<int64_t>(static_cast<int64_t>(std::ceil(p * n / 100.0)), 1, stats.num_windows);
    const int64_t index = rank - 1 - num_empty;
    return index < 0 ? 0.0 : static_cast<double>(counts[static_cast<size_t>(index)]) / window_s;
  };
  stats.mean = static_cast<double>(sorted_arrivals.size()) /
               (static_cast<double>(stats.num_windows) * window_s);
  stats.p50 = rate_at_percentile(50);
  stats.p90 = rate_at_percentile(90);
  stats.p99 = rate_at_percentile(99);
  stats.max = static_cast<double>(counts.back()) / window_s;
  stats.peak_to_mean = stats.max / stats.mean;
  return stats;
}

struct TrieEdge {
  int64_t parent;  // trie node of the prefix before this block; -block_tokens at the root
  uint64_t block;
  bool operator==(const TrieEdge&) const = default;
};

struct TrieEdgeHash {
  size_t operator()(const TrieEdge& edge) const {
    return std::hash<uint64_t>()(edge.block * 0x9e3779b97f4a7c15ULL ^
                                 static_cast<uint64_t>(edge.parent));
  }
};

std::optional<PrefixReuseStats> prefix_reuse_stats(const std::vector<Request>& requests) {
  std::optional<PrefixReuseStats> stats;
  std::unordered_map<TrieEdge, int64_t, TrieEdgeHash> trie;  // lookups only, never iterated
  for (const Request& request : requests) {
    if (request.prefix_blocks.empty()) continue;
    if (!stats) {
      stats.emplace();
      stats->block_tokens = request.prefix_block_tokens;
    }
    int64_t node = -static_cast<int64_t>(request.prefix_block_tokens);
    bool on_seen_path = true;
    for (const uint64_t block : request.prefix_blocks) {
      const auto [it, inserted] =
          trie.emplace(TrieEdge{node, block}, static_cast<int64_t>(trie.size()));
      on_seen_path = on_seen_path && !inserted;
      if (on_seen_path) ++stats->num_reused_blocks;
      ++stats->num_blocks;
      node = it->second;
    }
  }
  if (stats && stats->num_blocks > 0) {
    stats->ratio =
        static_cast<double>(stats->num_reused_blocks) / static_cast<double>(stats->num_blocks);
  }
  return stats;
}

nlohmann::json length_json(const LengthStats& stats) {
  return {{"mean", stats.mean},
          {"p50", stats.p50},
          {"p90", stats.p90},
          {"p99", stats.p99},
          {"max", stats.max}};
}

}  // namespace

TraceStats compute_stats(const std::vector<Request>& requests) {
  TraceStats stats;
  stats.num_requests = static_cast<int64_t>(requests.size());
  std::vector<double> arrivals;         // [num_requests]
  std::vector<int64_t> prompt_lengths;  // [num_requests]
  std::vector<int64_t> output_lengths;  // [num_requests]
  arrivals.reserve(requests.size());
  prompt_lengths.reserve(requests.size());
  output_lengths.reserve(requests.size());
  std::unordered_set<std::string_view> sessions;  // counted only, never iterated
  bool has_deps = false;
  for (const Request& request : requests) {
    arrivals.push_back(request.arrival_s);
    prompt_lengths.push_back(request.prompt_tokens);
    output_lengths.push_back(request.output_tokens);
    if (request.failed) ++stats.num_failed;
    ++stats.requests_per_tenant[request.tenant];
    ++stats.requests_per_slo_class[request.slo_class];
    if (!request.session_id.empty()) {
      ++stats.num_session_requests;
      sessions.insert(request.session_id);
    }
    has_deps = has_deps || !request.deps.empty();
  }
  stats.num_sessions = static_cast<int64_t>(sessions.size());
  std::sort(arrivals.begin(), arrivals.end());
  if (!arrivals.empty()) stats.duration_s = arrivals.back() - arrivals.front();
  if (stats.duration_s > 0.0) {
    stats.mean_rate = static_cast<double>(stats.num_requests) / stats.duration_s;
  }
  for (const double window_s : kWindowsS) {
    stats.window_rates.push_back(window_rate_stats(arrivals, window_s));
  }
  stats.prompt_tokens = length_stats(std::move(prompt_lengths));
  stats.output_tokens = length_stats(std::move(output_lengths));
  stats.prefix_reuse = prefix_reuse_stats(requests);
  if (has_deps) {
    const DagAnalysis analysis = analyze_dag(requests);
    stats.dag = DagStats{analysis.num_dag_requests, analysis.num_dags,
                         analysis.critical_path_requests, analysis.critical_path_output_tokens};
  }
  return stats;
}

nlohmann::json stats_to_json(const TraceStats& stats) {
  nlohmann::json windows = nlohmann::json::array();
  for (const WindowRateStats& window : stats.window_rates) {
    windows.push_back({{"window_s", window.window_s},
                       {"num_windows", window.num_windows},
                       {"mean", window.mean},
                       {"p50", window.p50},
                       {"p90", window.p90},
                       {"p99", window.p99},
                       {"max", window.max},
                       {"peak_to_mean", window.peak_to_mean}});
  }
  nlohmann::json json = {{"num_requests", stats.num_requests},
                         {"num_failed", stats.num_failed},
                         {"duration_s", stats.duration_s},
                         {"mean_rate", stats.mean_rate},
                         {"window_rates", windows},
                         {"prompt_tokens", length_json(stats.prompt_tokens)},
                         {"output_tokens", length_json(stats.output_tokens)},
                         {"requests_per_tenant", stats.requests_per_tenant},
                         {"requests_per_slo_class", stats.requests_per_slo_class},
                         {"num_sessions", stats.num_sessions},
                         {"num_session_requests", stats.num_session_requests},
                         {"prefix_reuse", nullptr},
                         {"dag", nullptr}};
  if (stats.prefix_reuse) {
    json["prefix_reuse"] = {{"block_tokens", stats.prefix_reuse->block_tokens},
                            {"num_blocks", stats.prefix_reuse->num_blocks},
                            {"num_reused_blocks", stats.prefix_reuse->num_reused_blocks},
                            {"ratio", stats.prefix_reuse->ratio}};
  }
  if (stats.dag) {
    json["dag"] = {{"num_dag_requests", stats.dag->num_dag_requests},
                   {"num_dags", stats.dag->num_dags},
                   {"critical_path_requests", stats.dag->critical_path_requests},
                   {"critical_path_output_tokens", stats.dag->critical_path_output_tokens}};
  }
  return json;
}

std::string format_stats(const TraceStats& stats) {
  std::string text;
  auto line = [&text](std::string_view label, const std::string& value) {
    text += fmt::format("{:<24}{}\n", label, value);
  };
  line("requests", fmt::format("{} ({} failed)", stats.num_requests, stats.num_failed));
  line("duration", fmt::format("{:.3f} s", stats.duration_s));
  line("mean rate", fmt::format("{:.4f} req/s", stats.mean_rate));
  text += fmt::format("\n{:<24}{:>10}{:>10}{:>10}{:>10}{:>10}{:>14}\n", "rate per window (req/s)",
                      "mean", "p50", "p90", "p99", "max", "peak/mean");
  for (const WindowRateStats& window : stats.window_rates) {
    text += fmt::format("{:<24}{:>10.3f}{:>10.3f}{:>10.3f}{:>10.3f}{:>10.3f}{:>14.3f}\n",
                        fmt::format("  {:g} s windows", window.window_s), window.mean, window.p50,
                        window.p90, window.p99, window.max, window.peak_to_mean);
  }
  text += fmt::format("\n{:<24}{:>10}{:>10}{:>10}{:>10}{:>10}\n", "tokens", "mean", "p50", "p90",
                      "p99", "max");
  for (const auto& [label, lengths] :
       {std::pair{"  prompt", &stats.prompt_tokens}, std::pair{"  output", &stats.output_tokens}}) {
    text += fmt::format("{:<24}{:>10.1f}{:>10}{:>10}{:>10}{:>10}\n", label, lengths->mean,
                        lengths->p50, lengths->p90, lengths->p99, lengths->max);
  }
  text += "\nrequests per tenant\n";
  for (const auto& [tenant, count] : stats.requests_per_tenant) {
    line(fmt::format("  {}", tenant.empty() ? "(none)" : tenant), std::to_string(count));
  }
  text += "requests per SLO class\n";
  for (const auto& [slo_class, count] : stats.requests_per_slo_class) {
    line(fmt::format("  {}", slo_class.empty() ? "(none)" : slo_class), std::to_string(count));
  }
  text += '\n';
  line("sessions",
       fmt::format("{} ({} requests in sessions)", stats.num_sessions, stats.num_session_requests));
  if (stats.prefix_reuse) {
    line("prefix reuse",
         fmt::format("{:.4f} ({} of {} blocks of {} tokens)", stats.prefix_reuse->ratio,
                     stats.prefix_reuse->num_reused_blocks, stats.prefix_reuse->num_blocks,
                     stats.prefix_reuse->block_tokens));
  }
  if (stats.dag) {
    line("DAG requests",
         fmt::format("{} in {} DAGs", stats.dag->num_dag_requests, stats.dag->num_dags));
    line("critical path",
         fmt::format("{} requests, {} output tokens", stats.dag->critical_path_requests,
                     stats.dag->critical_path_output_tokens));
  }
  return text;
}

}  // namespace tidal::traces
