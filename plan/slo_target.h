// SLO targets of a plan (`--slo`, repeatable; all must hold), e.g.
//   p99_ttft<=1s    p90_e2e<=30    interactive:p99_ttft<=500ms    attainment>=99%
// Grammar: [CLASS:]METRIC(<=|>=)VALUE[UNIT]. Latency metrics are {mean,p50,p90,p99,max}_
// {ttft,tpot,e2e} (per class or overall) and {mean,...}_{itl,queue_delay} (overall only),
// bounded from above, in s or ms (seconds when no unit). `attainment` (share of requests
// meeting their class SLO, as a fraction or with %) and `goodput` (req/s) are bounded from
// below. docs/plan.md has the full list.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/metrics.h"

namespace tidal::plan {

struct SloTarget {
  std::optional<std::string> slo_class;  // empty: the whole run
  std::string metric;                    // "p99_ttft", "attainment", "goodput"
  bool upper_bound = true;               // `<=` (true) or `>=`
  double value = 0.0;                    // seconds, a share or req/s
  std::string text;                      // normalized: "interactive:p99_ttft<=0.5s"
};

// InputError "--slo "x": ..." on a malformed target.
SloTarget parse_slo_target(const std::string& text);

// The value a target bounds, from a run's metrics; empty when undefined (no finished request
// in that class, or an unknown class).
std::optional<double> slo_value(const SloTarget& target, const sim::RunMetrics& metrics);

// Whether some target bounds an inter-token-latency figure (`p99_itl`, ...): only then does a
// run need its ITL samples (sim::RunOptions::itl_samples).
bool bounds_itl(const std::vector<SloTarget>& targets);

// Empty when every target holds; else why the first failing one does not
// ("p99_ttft = 1.31 s > 1 s").
std::optional<std::string> slo_violation(const std::vector<SloTarget>& targets,
                                         const sim::RunMetrics& metrics);

}  // namespace tidal::plan
