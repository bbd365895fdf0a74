// Fleet metrics of a run (docs/run-output.md, summary.json "fleet" and the cost fields):
// dollars from the billing ledger by state, per-token costs, the cost of the same fleet sized
// for its peak, per-replica load imbalance, per-tenant results with head-of-line blocking and
// peak-to-mean demand, speculative decoding acceptance, spot re-queues.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/fleet/hol_blocking.h"
#include "sim/sample_set.h"
#include "sim/scenario.h"
#include "sim/simulator.h"

namespace tidal::sim {

struct TenantMetrics {
  std::string tenant;
  int64_t num_requests = 0;
  int64_t num_finished = 0;
  int64_t num_slo_met = 0;
  double slo_attainment = 0.0;
  int64_t num_input_tokens = 0;  // finished requests
  int64_t num_output_tokens = 0;
  LatencySummary ttft, e2e;
  double hol_delay_s = 0.0;   // sum over its requests: steps stretched by others' long prefills
  double hol_caused_s = 0.0;  // sum over its requests: stretch its long prefills caused others
  LatencySummary hol_delay;   // per finished request
  fleet::PeakToMean demand;   // its arrivals alone
};

struct FleetMetrics {
  // Billing (exact ledger figures, shown in dollars).
  std::vector<std::pair<std::string, double>> dollars_by_state;  // billed lifecycle states
  double dollars_granularity = 0.0;
  double dollars_reserved_unused = 0.0;
  std::vector<std::pair<std::string, double>> dollars_by_rate_class;  // on_demand, spot, reserved
  std::vector<std::pair<std::string, double>> gpu_hours_by_state;
  std::optional<double> tokens_per_dollar;  // input + output tokens of finished requests
  // Peak-sized fleet: every pool's most provisioned replicas kept for the whole run at its
  // market price (docs/run-output.md).
  double peak_sized_dollars = 0.0;
  std::optional<double> peak_sized_savings;  // 1 - dollars / peak_sized_dollars
  // What the spot-billed time would have cost at its pool's on-demand price, minus what it
  // cost: over pools, the ledger's spot dollars x (on-demand / spot price - 1), to the
  // micro-dollar. 0 when nothing was billed at a spot price.
  double spot_savings_dollars = 0.0;
  // Load imbalance over replicas that served (warm time > 0): max / mean.
  double routed_tokens_imbalance = 0.0;
  double busy_time_imbalance = 0.0;
  int32_t num_replicas_served = 0;  // replicas ever warm
  int32_t num_replicas_total = 0;   // replicas ever requested, including cancelled
  // Scaling.
  std::vector<int32_t> peak_replicas;  // [num_pools]
  int64_t num_scale_ups = 0;
  int64_t num_scale_downs = 0;
  int64_t num_spot_interruptions = 0;
  int64_t num_requeues = 0;  // sum over requests
  // Speculative decoding over all replicas.
  int64_t num_spec_tokens = 0;
  int64_t num_accepted_spec_tokens = 0;
  std::optional<double> spec_acceptance_rate;  // accepted / drafted
  // Tenants (sorted by name) and the aggregate demand.
  std::vector<TenantMetrics> tenants;
  fleet::PeakToMean aggregate_demand;
  double hol_delay_s = 0.0;  // sum over all requests
};

// `dollars_beyond_ledger`: what the run paid besides the billing ledger (owned pools'
// electricity, egress), counted in tokens_per_dollar.
FleetMetrics compute_fleet_metrics(const Scenario& scenario, const RunResult& result,
                                   int64_t num_input_tokens, int64_t num_output_tokens,
                                   double dollars_beyond_ledger = 0.0);

}  // namespace tidal::sim
