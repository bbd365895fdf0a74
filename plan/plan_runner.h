// `tidal plan`: loads the scenario, search space and SLO, evaluates every pending candidate
// on worker threads (and MPI ranks), appends each result to results.jsonl as it finishes, and
// on rank 0 writes plan.json and plan.csv from all results in candidate order — so the output
// is the same for any thread count, any rank count, and a resumed search.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plan/plan_outcome.h"

namespace tidal::plan {

struct PlanOptions {
  std::string scenario_path;
  std::string space_path;
  std::vector<std::string> slo;  // --slo texts (slo_target.h)
  std::string mode = "cost";     // cost | capacity
  std::string latency = "ttft";  // the frontier's latency axis: ttft | tpot | e2e
  std::string out_dir;           // default: out/plan-<scenario name>
  int num_threads = 0;           // 0: every hardware thread
  bool progress = true;          // a progress line on stderr when it is a terminal
};

struct PlanRun {
  bool is_root = true;  // rank 0 (the only rank that has an outcome)
  int num_ranks = 1;
  int num_threads = 1;
  std::string out_dir;
  PlanHeader header;
  PlanOutcome outcome;
  int64_t num_resumed = 0;    // results found in results.jsonl
  int64_t num_evaluated = 0;  // candidates evaluated now, over all ranks
};

PlanRun run_plan(const PlanOptions& options);

// The text for the terminal (docs/plan.md, "Console output"): counts, the SLO and the ranking
// rule, the ranked table (plan_table.h), the winner, the frontier by name, invalid candidates.
std::string plan_summary_text(const PlanRun& run);

}  // namespace tidal::plan
