// One-line verdicts comparing a run with the first run of a report, metric by metric
// ("B cuts p99 TTFT by 41% vs A (119 ms -> 70.2 ms)", "B costs 2.30x more per 1M output
// tokens vs A"). Increases of 1.5x or more and decreases to a tenth or less read as a factor
// ("raises p99 TTFT 2.30x", "cuts p99 TTFT 57,258x"), others as a percentage. docs/report.md
// gives the thresholds.
#pragma once

#include <optional>
#include <string>

namespace tidal::reports {

enum class MetricKind {
  latency,  // lower is better; "cuts" / "raises"
  cost,     // lower is better; "costs x% less" / "costs 2.3x more"
  share,    // a fraction, higher is better; compared in percentage points
  amount,   // higher is better (throughput, goodput, tokens per $)
  neutral,  // neither (request counts, GPU-hours)
};

struct MetricValue {
  std::string name;    // "p99 TTFT"
  std::string phrase;  // cost metrics: what follows "costs x more", e.g. "per 1M output tokens"
  MetricKind kind = MetricKind::neutral;
  std::string (*format)(double) = nullptr;  // how values print
};

// Ratio value / base; empty when base is 0 or either is missing.
std::optional<double> ratio_of(const std::optional<double>& base,
                               const std::optional<double>& value);

std::string verdict(const MetricValue& metric, const std::string& base_label,
                    const std::optional<double>& base, const std::string& label,
                    const std::optional<double>& value);

}  // namespace tidal::reports
