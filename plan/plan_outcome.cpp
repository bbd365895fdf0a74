#include "plan/plan_outcome.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "plan/results_file.h"
#include "traces/csv_text.h"
#include "traces/output_files.h"

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

PlanOutcome conclude(std::vector<CandidateResult> results, PlanMode mode,
                     const std::string& latency) {
  PlanOutcome outcome;
  outcome.results = std::move(results);
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
    if (!outcome.cheapest && outcome.results[i].status == "feasible") outcome.cheapest = i;
  }
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
    c["on_frontier"] = static_cast<bool>(on_frontier[i]);
    candidates.push_back(std::move(c));
    num_feasible += outcome.results[i].status == "feasible";
  }
  ojson frontier = ojson::array();
  for (size_t i : outcome.frontier) frontier.push_back(outcome.results[i].id);
  return ojson{{"kind", "tidal-plan"},
               {"scenario", header.scenario},
               {"pool", header.pool},
               {"mode", std::string(plan_mode_name(header.mode))},
               {"slo", header.slo},
               {"objective", outcome.objective},
               {"latency_metric", outcome.latency_metric},
               {"dimensions", header.dimensions},
               {"fingerprint", header.fingerprint},
               {"num_candidates", outcome.results.size()},
               {"num_feasible", num_feasible},
               {"cheapest",
                outcome.cheapest ? ojson(outcome.results[*outcome.cheapest].id) : ojson(nullptr)},
               {"frontier", frontier},
               {"candidates", candidates}};
}

std::string plan_csv(const PlanHeader& header, const PlanOutcome& outcome) {
  std::vector<bool> on_frontier(outcome.results.size(), false);
  for (size_t i : outcome.frontier) on_frontier[i] = true;
  std::string csv = "id,index";
  for (const std::string& d : header.dimensions) {
    csv += ',';
    traces::append_csv_field(csv, d);
  }
  csv +=
      ",status,num_gpus,dollars,dollars_per_hour,dollars_per_1m_tokens,"
      "dollars_per_1m_output_tokens,p99_ttft_s,p99_tpot_s,p99_e2e_s,slo_attainment,goodput_rps,"
      "rate_scale,num_simulations,on_frontier,cheapest,reason\n";
  for (size_t i = 0; i < outcome.results.size(); ++i) {
    const CandidateResult& r = outcome.results[i];
    csv += fmt::format("{},{}", r.id, r.index);
    for (const std::string& d : header.dimensions) {
      const ojson& v = r.config.at(d);
      csv += ',';
      traces::append_csv_field(csv, v.is_string() ? v.get<std::string>() : v.dump());
    }
    csv +=
        fmt::format(",{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},", r.status,
                    r.num_gpus ? fmt::format("{}", *r.num_gpus) : "", csv_number(r.dollars),
                    csv_number(r.dollars_per_hour), csv_number(r.dollars_per_1m_tokens),
                    csv_number(r.dollars_per_1m_output_tokens), csv_number(r.p99_ttft_s),
                    csv_number(r.p99_tpot_s), csv_number(r.p99_e2e_s), csv_number(r.slo_attainment),
                    csv_number(r.goodput_rps), csv_number(r.rate_scale), r.num_simulations,
                    on_frontier[i] ? 1 : 0, outcome.cheapest == i ? 1 : 0);
    traces::append_csv_field(csv, r.reason);
    csv += '\n';
  }
  return csv;
}

void write_plan_outputs(const std::string& dir, const PlanHeader& header,
                        const PlanOutcome& outcome) {
  const std::filesystem::path root(dir);
  traces::write_output_text((root / "plan.json").string(),
                            plan_json(header, outcome).dump(2) + "\n");
  traces::write_output_text((root / "plan.csv").string(), plan_csv(header, outcome));
}

}  // namespace tidal::plan
