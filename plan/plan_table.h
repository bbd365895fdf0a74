// The plan's answer on the terminal (docs/plan.md, "Console output"): how many GPUs of which kind,
// at what $ per hour and per day, meeting which SLO. One row per simulated candidate in rank
// order (plan_outcome.h), named by its settings ("4xH100-SXM tp2 fp8"); dollars with `$` and
// thousands separators, latencies in ms.
#pragma once

#include <cstddef>
#include <string>

#include "plan/plan_outcome.h"

namespace tidal::plan {

// The ranked table: rank, candidate, GPU, GPUs, TP, replicas, dtype, $/h, $/day, $ trace (mode
// cost) or $/1M tok and rate scale (mode capacity), SLO attainment, p99 TTFT ms, p99 TPOT ms,
// SLO (met, or the first failing target). At most `max_rows` rows, up to 5 of them kept for the
// cheapest candidates missing the SLO, then a line saying how many more plan.csv holds. Invalid
// candidates are not rows (plan_invalid_text lists them).
std::string plan_table_text(const PlanOutcome& outcome, size_t max_rows = 20);

// "winner: <name> — ..." with GPUs, $/h, $/day and the SLO figures; or that none meets the SLO.
std::string plan_winner_text(const PlanHeader& header, const PlanOutcome& outcome);

// "invalid (N):" and up to `max_rows` "  <name>: <reason>" lines; "" when there are none.
std::string plan_invalid_text(const PlanOutcome& outcome, size_t max_rows = 5);

// "4xH100-SXM tp2 fp8" style names, in ascending cost: the Pareto frontier.
std::string plan_frontier_text(const PlanOutcome& outcome);

// "fp8", or "int4 (kv bf16)" when the KV cache's dtype differs.
std::string dtype_text(const PoolSetup& setup);

}  // namespace tidal::plan
