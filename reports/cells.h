// Table cells in the report's formats (format.h): each carries the printed text and the raw
// value for report.json.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reports/document.h"
#include "reports/run_data.h"

namespace tidal::reports {

Cell count_cell(int64_t value);
Cell latency_cell(const std::optional<double>& seconds);  // "n/a" (null) when empty
Cell dollars_cell(const std::optional<double>& dollars);
Cell percent_cell(const std::optional<double>& share);
Cell ratio_cell(const std::optional<double>& ratio);
Cell significant_cell(const std::optional<double>& value);
Cell rate_cell(double per_second, const std::string& unit);

// "a, b, c": names joined by commas, for table cells and notes.
std::string joined_names(const std::vector<std::string>& names);

// "TTFT <= 1 s, TPOT <= 100 ms", or "none".
std::string slo_text(const ClassFigures& c);

// Dollars per day at the run's average spend rate.
double dollars_per_day(const RunSummary& s);
// The label of dollars_per_day: "cost per day (this rate)" for a run of an hour or more, else
// "cost per day (extrapolated from a 90-second run)" (minutes from 10 on): a burst says little
// of a day.
std::string cost_per_day_label(const RunSummary& s);
// Input plus output tokens per dollar; empty when the run cost nothing.
std::optional<double> tokens_per_dollar(const RunSummary& s);
std::optional<double> output_tokens_per_dollar(const RunSummary& s);
// Spend on provisioned time without a batch step: sum of dollars x (1 - utilization) over the
// timeline's intervals, over their dollars; empty when the timeline cost nothing.
std::optional<double> idle_share(const TimelineRows& t);

}  // namespace tidal::reports
