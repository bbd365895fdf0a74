// What a finished search concludes: the cheapest candidate meeting the SLO and the Pareto
// frontier of cost vs p99 latency, the ranking, and how it is written (plan.json, plan.csv;
// docs/plan.md).
//
// Cost is the plan's objective: mode cost ranks by the dollars of serving the trace, mode
// capacity by $ per 1M tokens (input + output) at each candidate's capacity. The frontier is
// taken over every simulated candidate (meeting the SLO or not) with both figures: a candidate
// is on it when no other is at most as costly and at most as slow and better in one. Ties
// (equal cost and latency) keep the lowest index.
//
// The ranking (and so the cheapest meeting the SLO, rank 1) orders candidates by cost as printed
// (reports::format_dollars: to the cent from $1, three significant digits below), and costs that
// print the same by fewer GPUs, then lower latency (the frontier's metric), then lower index.
// Candidates meeting the SLO come first, then those missing it, then those without figures
// (invalid).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/candidate_eval.h"

namespace tidal::plan {

struct PlanOutcome {
  std::vector<CandidateResult> results;      // [num_candidates], index order
  std::string objective;                     // "dollars" | "dollars_per_1m_tokens"
  std::string latency_metric;                // "p99_ttft_s" | "p99_tpot_s" | "p99_e2e_s"
  std::optional<size_t> cheapest;            // position in results
  std::vector<size_t> frontier;              // positions in results, ascending cost
  std::vector<size_t> ranking;               // every position in results, in rank order
  std::vector<std::optional<int64_t>> rank;  // [num_candidates] 1, 2, ... meeting the SLO
  std::string ranking_rule;                  // the rule above, in words
};

// `latency` is ttft, tpot or e2e. Names that repeat get " #<index>" appended.
PlanOutcome conclude(std::vector<CandidateResult> results, PlanMode mode,
                     const std::string& latency);

std::optional<double> objective_value(const PlanOutcome& outcome, const CandidateResult& r);
std::optional<double> latency_value(const PlanOutcome& outcome, const CandidateResult& r);

struct PlanHeader {
  std::string scenario;  // scenario name
  PlanMode mode = PlanMode::cost;
  std::vector<std::string> slo;  // normalized targets
  // The scenario's SLO classes, "interactive: TTFT <= 2 s, TPOT <= 100 ms" (what attainment
  // and goodput count against).
  std::vector<std::string> class_slos;
  std::vector<std::string> dimensions;  // keys in order
  std::string pool;
  std::string fingerprint;
};

nlohmann::ordered_json plan_json(const PlanHeader& header, const PlanOutcome& outcome);
std::string plan_csv(const PlanHeader& header, const PlanOutcome& outcome);
// Writes dir/plan.json and dir/plan.csv.
void write_plan_outputs(const std::string& dir, const PlanHeader& header,
                        const PlanOutcome& outcome);

}  // namespace tidal::plan
