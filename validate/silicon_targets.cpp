#include "validate/silicon_targets.h"

namespace tidal::validate {

SiliconTargets aggregated_targets() {
  return {.ttft_mape_pct = 15.0, .tpot_mape_pct = 8.0, .max_group_over_overall = 2.0};
}

SiliconTargets disaggregated_targets() {
  return {.ttft_mape_pct = 20.0, .tpot_mape_pct = 20.0, .max_group_over_overall = 0.0};
}

TargetCheck check_targets(const SiliconTargets& targets, const ErrorFigures& overall,
                          const std::vector<GroupErrors>& groups) {
  TargetCheck check;
  check.ttft_met = overall.ttft_mape_pct <= targets.ttft_mape_pct;
  check.tpot_met = overall.tpot_mape_pct <= targets.tpot_mape_pct;
  if (targets.max_group_over_overall <= 0.0) return check;
  check.group_ttft_bound_pct = targets.max_group_over_overall * overall.ttft_mape_pct;
  check.group_tpot_bound_pct = targets.max_group_over_overall * overall.tpot_mape_pct;
  for (const GroupErrors& g : groups) {
    const bool ttft_over = g.figures.ttft_mape_pct > check.group_ttft_bound_pct;
    const bool tpot_over = g.figures.tpot_mape_pct > check.group_tpot_bound_pct;
    if (!ttft_over && !tpot_over) continue;
    check.groups_over.push_back({g.group, g.num_rows, g.figures.ttft_mape_pct,
                                 g.figures.tpot_mape_pct, ttft_over, tpot_over});
  }
  check.groups_met = check.groups_over.empty();
  return check;
}

}  // namespace tidal::validate
