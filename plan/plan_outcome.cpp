#include "plan/plan_outcome.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "base/csv_text.h"
#include "base/number_format.h"
#include "base/output_files.h"
#include "plan/results_file.h"

namespace tidal::plan {
namespace {

using ojson = nlohmann::ordered_json;

std::string csv_number(const std::optional<double>& v) {
  return v ? fmt::format("{}", *v) : "";
}

}  // namespace

std::optional<double> objective_value(const PlanOutcome& outcome, const CandidateResult& r) {
  return outcome.objective == "dollars" ? r.dollars : r.dollars_per_1m_tokens;
}

std::optional<double> latency_value(const PlanOutcome& outcome, const CandidateResult& r) {
  if (outcome.latency_metric == "p99_tpot_s") return r.p99_tpot_s;
  if (outcome.latency_metric == "p99_e2e_s") return r.p99_e2e_s;
  return r.p99_ttft_s;
}

namespace {

// Names that repeat (values that print alike) get their index appended, so every name is unique.
void make_names_unique(std::vector<CandidateResult>& results) {
  std::map<std::string, int> count;
  for (const CandidateResult& r : results) ++count[r.name];
  for (CandidateResult& r : results) {
    if (count[r.name] > 1) r.name += fmt::format(" #{}", r.index);
  }
}

std::string latency_words(const std::string& metric) {
  if (metric == "p99_tpot_s") return "p99 TPOT";
  if (metric == "p99_e2e_s") return "p99 E2E";
  return "p99 TTFT";
}

int status_order(const std::string& status) {
  return status == "feasible" ? 0 : status == "slo_missed" ? 1 : 2;
}

// The ranking's order (plan_outcome.h): status, cost as printed, GPUs, latency, index. A missing
// figure sorts after every present one.
void rank_candidates(PlanOutcome& outcome) {
  const std::vector<CandidateResult>& results = outcome.results;
  std::vector<int> status(results.size());
  std::vector<std::optional<std::string>> printed(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    const std::optional<double> cost = objective_value(outcome, results[i]);
    status[i] = cost ? status_order(results[i].status) : 2;
    if (cost) printed[i] = base::format_dollars(*cost);
  }
  auto less = [&](size_t a, size_t b) {
    const CandidateResult& x = results[a];
    const CandidateResult& y = results[b];
    if (status[a] != status[b]) return status[a] < status[b];
    if (printed[a] && printed[b] && *printed[a] != *printed[b]) {
      return *objective_value(outcome, x) < *objective_value(outcome, y);
    }
    if (printed[a].has_value() != printed[b].has_value()) return printed[a].has_value();
    const int64_t gx = x.num_gpus.value_or(INT64_MAX), gy = y.num_gpus.value_or(INT64_MAX);
    if (gx != gy) return gx < gy;
    const std::optional<double> lx = latency_value(outcome, x), ly = latency_value(outcome, y);
    if (lx && ly && *lx != *ly) return *lx < *ly;
    if (lx.has_value() != ly.has_value()) return lx.has_value();
    return x.index < y.index;
  };
  outcome.ranking.resize(results.size());
  for (size_t i = 0; i < results.size(); ++i) outcome.ranking[i] = i;
  std::sort(outcome.ranking.begin(), outcome.ranking.end(), less);
  outcome.rank.assign(results.size(), std::nullopt);
  int64_t next = 1;
  for (size_t i : outcome.ranking) {
    if (status[i] == 0) outcome.rank[i] = next++;
  }
  if (!outcome.ranking.empty() && status[outcome.ranking.front()] == 0) {
    outcome.cheapest = outcome.ranking.front();
  }
  outcome.ranking_rule = fmt::format(
      "ranked by {}; costs that print the same (to the cent, or three significant digits below "
      "$1) go to fewer GPUs, then lower {}, then the lower candidate index",
      outcome.objective == "dollars" ? "the trace's dollars" : "$ per 1M tokens at capacity",
      latency_words(outcome.latency_metric));
}

}  // namespace

PlanOutcome conclude(std::vector<CandidateResult> results, PlanMode mode,
                     const std::string& latency) {
  PlanOutcome outcome;
  outcome.results = std::move(results);
  make_names_unique(outcome.results);
  outcome.objective = mode == PlanMode::cost ? "dollars" : "dollars_per_1m_tokens";
  outcome.latency_metric = "p99_" + latency + "_s";

  std::vector<size_t> ranked;  // simulated candidates with both figures
  for (size_t i = 0; i < outcome.results.size(); ++i) {
    const CandidateResult& r = outcome.results[i];
    if (objective_value(outcome, r) && latency_value(outcome, r)) ranked.push_back(i);
  }
  auto less = [&](size_t a, size_t b) {
    const CandidateResult& x = outcome.results[a];
    const CandidateResult& y = outcome.results[b];
    const double cx = *objective_value(outcome, x), cy = *objective_value(outcome, y);
    if (cx != cy) return cx < cy;
    const double lx = *latency_value(outcome, x), ly = *latency_value(outcome, y);
    if (lx != ly) return lx < ly;
    return x.index < y.index;
  };
  std::sort(ranked.begin(), ranked.end(), less);
  double best_latency = 0.0;
  for (size_t i : ranked) {
    const double l = *latency_value(outcome, outcome.results[i]);
    if (outcome.frontier.empty() || l < best_latency) {
      outcome.frontier.push_back(i);
      best_latency = l;
    }
  }
  rank_candidates(outcome);
  return outcome;
}

ojson plan_json(const PlanHeader& header, const PlanOutcome& outcome) {
  std::vector<bool> on_frontier(outcome.results.size(), false);
  for (size_t i : outcome.frontier) on_frontier[i] = true;
  ojson candidates = ojson::array();
  int64_t num_feasible = 0;
  for (size_t i = 0; i < outcome.results.size(); ++i) {
    ojson c = result_to_json(outcome.results[i], header.fingerprint);
    c.erase("fingerprint");
    c["rank"] = outcome.rank[i] ? ojson(*outcome.rank[i]) : ojson(nullptr);
    c["on_frontier"] = static_cast<bool>(on_frontier[i]);
    candidates.push_back(std::move(c));
    num_feasible += outcome.results[i].status == "feasible";
  }
  ojson frontier = ojson::array();
  for (size_t i : outcome.frontier) frontier.push_back(outcome.results[i].id);
  ojson ranking = ojson::array();
  for (size_t i : outcome.ranking) ranking.push_back(outcome.results[i].id);
  return ojson{{"kind", "tidal-plan"},
               {"scenario", header.scenario},
               {"pool", header.pool},
               {"mode", std::string(plan_mode_name(header.mode))},
               {"slo", header.slo},
               {"class_slos", header.class_slos},
               {"objective", outcome.objective},
               {"latency_metric", outcome.latency_metric},
               {"ranking_rule", outcome.ranking_rule},
               {"dimensions", header.dimensions},
               {"fingerprint", header.fingerprint},
               {"num_candidates", outcome.results.size()},
               {"num_feasible", num_feasible},
               {"cheapest",
                outcome.cheapest ? ojson(outcome.results[*outcome.cheapest].id) : ojson(nullptr)},
               {"cheapest_name",
                outcome.cheapest ? ojson(outcome.results[*outcome.cheapest].name) : ojson(nullptr)},
               {"frontier", frontier},
               {"ranking", ranking},
               {"candidates", candidates}};
}

std::string plan_csv(const PlanHeader& header, const PlanOutcome& outcome) {
  std::vector<bool> on_frontier(outcome.results.size(), false);
  for (size_t i : outcome.frontier) on_frontier[i] = true;
  std::string csv = "id,index,name";
  for (const std::string& d : header.dimensions) {
    csv += ',';
    base::append_csv_field(csv, d);
  }
  csv +=
      ",status,rank,pool_gpu,pool_tp,pool_num_replicas,pool_weight_dtype,pool_kv_dtype,num_gpus,"
      "dollars,dollars_per_hour,"
      "dollars_per_day,dollars_per_1m_tokens,dollars_per_1m_output_tokens,p99_ttft_s,p99_tpot_s,"
      "p99_e2e_s,slo_attainment,goodput_rps,rate_scale,num_simulations,on_frontier,cheapest,"
      "reason\n";
  for (size_t i = 0; i < outcome.results.size(); ++i) {
    const CandidateResult& r = outcome.results[i];
    csv += fmt::format("{},{},", r.id, r.index);
    base::append_csv_field(csv, r.name);
    for (const std::string& d : header.dimensions) {
      const ojson& v = r.config.at(d);
      csv += ',';
      base::append_csv_field(csv, v.is_string() ? v.get<std::string>() : v.dump());
    }
    csv += fmt::format(",{},{},", r.status,
                       outcome.rank[i] ? fmt::format("{}", *outcome.rank[i]) : "");
    base::append_csv_field(csv, r.setup.gpu);
    csv += fmt::format(",{},{},", r.setup.tp, r.setup.num_replicas);
    base::append_csv_field(csv, r.setup.weight_dtype);
    csv += ',';
    base::append_csv_field(csv, r.setup.kv_dtype);
    csv += fmt::format(
        ",{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},",
        r.num_gpus ? fmt::format("{}", *r.num_gpus) : "", csv_number(r.dollars),
        csv_number(r.dollars_per_hour), csv_number(r.dollars_per_day),
        csv_number(r.dollars_per_1m_tokens), csv_number(r.dollars_per_1m_output_tokens),
        csv_number(r.p99_ttft_s), csv_number(r.p99_tpot_s), csv_number(r.p99_e2e_s),
        csv_number(r.slo_attainment), csv_number(r.goodput_rps), csv_number(r.rate_scale),
        r.num_simulations, on_frontier[i] ? 1 : 0, outcome.cheapest == i ? 1 : 0);
    base::append_csv_field(csv, r.reason);
    csv += '\n';
  }
  return csv;
}

void write_plan_outputs(const std::string& dir, const PlanHeader& header,
                        const PlanOutcome& outcome) {
  const std::filesystem::path root(dir);
  base::write_output_text((root / "plan.json").string(), plan_json(header, outcome).dump(2) + "\n");
  base::write_output_text((root / "plan.csv").string(), plan_csv(header, outcome));
}

}  // namespace tidal::plan
