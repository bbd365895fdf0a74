// The what-if loop's delta table: the headline figures of a pinned run against the current
// one (json_changes in ui/json_path.h lists the scenario keys that differ).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/run_data.h"
#include "ui/plot/units.h"

namespace tidal::ui {

struct DeltaRow {
  std::string metric;  // "TTFT p99"
  plot::Unit unit = plot::Unit::count;
  bool lower_is_better = true;
  std::optional<double> pinned;  // empty when the run has no such figure
  std::optional<double> current;
  // (current - pinned) / pinned; empty when either is missing or pinned is 0.
  std::optional<double> relative_change() const;
  // current better than pinned (by lower_is_better), worse, or the same / unknown.
  int verdict() const;  // +1 better, -1 worse, 0 same or unknown
};

std::vector<DeltaRow> delta_rows(const reports::RunSummary& pinned,
                                 const reports::RunSummary& current);

}  // namespace tidal::ui
