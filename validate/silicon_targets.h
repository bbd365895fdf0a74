// The fidelity targets bench/silicon is held to, checked against its figures: issue 18's on the
// aggregated rows (mean TTFT within 15%, mean TPOT within 8%, and no group above twice the overall
// figure) and issue 20's on the disaggregated rows (both within 20%). The check only reads the
// figures; nothing is fitted to it.
#pragma once

#include <string>
#include <vector>

#include "validate/calibrate.h"

namespace tidal::validate {

struct SiliconTargets {
  double ttft_mape_pct = 0.0;
  double tpot_mape_pct = 0.0;
  // A group misses when its MAPE is above this many times the overall one (0: no group bound).
  double max_group_over_overall = 0.0;
};

// Issue 18 (aggregated rows) and issue 20 (disaggregated rows).
SiliconTargets aggregated_targets();
SiliconTargets disaggregated_targets();

struct GroupErrors {
  std::string group;  // model | GPU | engine | precision [| disagg]
  size_t num_rows = 0;
  ErrorFigures figures;
};

// A group whose TTFT or TPOT MAPE is above the bound, with both its figures.
struct GroupMiss {
  std::string group;
  size_t num_rows = 0;
  double ttft_mape_pct = 0.0;
  double tpot_mape_pct = 0.0;
  bool ttft_over = false;  // its TTFT MAPE is above the bound
  bool tpot_over = false;
};

struct TargetCheck {
  bool ttft_met = false;
  bool tpot_met = false;
  bool groups_met = true;             // no group above the bound (always true without one)
  double group_ttft_bound_pct = 0.0;  // max_group_over_overall x the overall TTFT MAPE
  double group_tpot_bound_pct = 0.0;
  std::vector<GroupMiss> groups_over;  // in `groups` order
  bool met() const { return ttft_met && tpot_met && groups_met; }
};

// Checks `overall` (the figures over all rows of the slice) and `groups` (each group's figures
// over the same rows) against `targets`.
TargetCheck check_targets(const SiliconTargets& targets, const ErrorFigures& overall,
                          const std::vector<GroupErrors>& groups);

}  // namespace tidal::validate
