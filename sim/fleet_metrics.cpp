#include "sim/fleet_metrics.h"

#include <algorithm>
#include <array>
#include <map>

#include "sim/metrics.h"

namespace tidal::sim {
namespace {

double max_over_mean(const std::vector<double>& values) {
  if (values.empty()) return 0.0;
  double sum = 0.0;
  double max = 0.0;
  for (double v : values) {
    sum += v;
    max = std::max(max, v);
  }
  const double mean = sum / static_cast<double>(values.size());
  return mean > 0.0 ? max / mean : 0.0;
}

// The spot-billed GPU time of `spot` micro-dollars priced at the on-demand rate, rounded to
// the micro-dollar (128-bit: both prices are bounded, the amount is a run's bill).
fleet::MicroDollars at_on_demand_price(fleet::MicroDollars spot, const fleet::PoolPricing& p) {
  __extension__ using Int128 = __int128;  // GCC and Clang; keeps -Wpedantic quiet
  const Int128 scaled = static_cast<Int128>(spot) * p.on_demand_per_gpu_hour;
  return static_cast<fleet::MicroDollars>((2 * scaled + p.spot_per_gpu_hour) /
                                          (2 * static_cast<Int128>(p.spot_per_gpu_hour)));
}

struct TenantSamples {
  SampleSet ttft, e2e, hol;
  fleet::ArrivalBins arrivals;
};

}  // namespace

FleetMetrics compute_fleet_metrics(const Scenario& scenario, const RunResult& result,
                                   int64_t num_input_tokens, int64_t num_output_tokens,
                                   double dollars_beyond_ledger) {
  FleetMetrics m;
  const FleetReport& fleet = result.fleet;
  const fleet::BillingTotals& bill = fleet.billing.fleet;
  for (int s = 0; s < fleet::kNumLifecycleStates; ++s) {
    const std::string name(fleet::kLifecycleStateNames[static_cast<size_t>(s)]);
    m.dollars_by_state.emplace_back(name, fleet::to_dollars(bill.by_state[static_cast<size_t>(s)]));
    m.gpu_hours_by_state.emplace_back(name, bill.gpu_hours_by_state[static_cast<size_t>(s)]);
  }
  m.dollars_granularity = fleet::to_dollars(bill.granularity);
  m.dollars_reserved_unused = fleet::to_dollars(bill.reserved_unused);
  constexpr std::array<std::string_view, fleet::kNumRateClasses> kRateNames{"on_demand", "spot",
                                                                            "reserved"};
  for (size_t c = 0; c < kRateNames.size(); ++c) {
    m.dollars_by_rate_class.emplace_back(std::string(kRateNames[c]),
                                         fleet::to_dollars(bill.by_rate_class[c]));
  }
  const double dollars = fleet::to_dollars(bill.total);  // the ledger's: rental, amortization
  if (dollars + dollars_beyond_ledger > 0.0) {
    m.tokens_per_dollar = static_cast<double>(num_input_tokens + num_output_tokens) /
                          (dollars + dollars_beyond_ledger);
  }
  for (size_t p = 0; p < scenario.pools.size(); ++p) {
    const PoolSpec& pool = scenario.pools[p];
    const int32_t peak = p < fleet.peak_replicas.size() ? fleet.peak_replicas[p] : 0;
    // One lease per replica for the whole run, billed as the pool bills (period, minimum), so a
    // fixed pool saves exactly nothing.
    const double hours =
        static_cast<double>(fleet::billed_lease_ns(pool.pool_pricing, result.end_ns)) / 3.6e12;
    m.peak_sized_dollars +=
        peak * pool.deployment.num_gpus() * pool.resolved_price_per_gpu_hour * hours;
    m.peak_replicas.push_back(peak);
  }
  if (m.peak_sized_dollars > 0.0) m.peak_sized_savings = 1.0 - dollars / m.peak_sized_dollars;
  fleet::MicroDollars spot_savings = 0;
  for (size_t p = 0; p < scenario.pools.size() && p < fleet.billing.by_pool.size(); ++p) {
    const fleet::PoolPricing& pricing = scenario.pools[p].pool_pricing;
    const fleet::MicroDollars spot = fleet.billing.by_pool[p].by_rate_class[static_cast<size_t>(
        fleet::RateClass::spot)];  // spot leases only: reserved slots and on-demand are apart
    if (spot > 0 && pricing.spot_per_gpu_hour > 0) {
      spot_savings += at_on_demand_price(spot, pricing) - spot;
    }
  }
  m.spot_savings_dollars = fleet::to_dollars(spot_savings);
  for (size_t p = 0; p < fleet.num_scale_ups.size(); ++p) {
    m.num_scale_ups += fleet.num_scale_ups[p];
    m.num_scale_downs += fleet.num_scale_downs[p];
    m.num_spot_interruptions += fleet.num_spot_interruptions[p];
  }

  std::vector<double> routed, busy;
  m.num_replicas_total = static_cast<int32_t>(result.replicas.size());
  for (const ReplicaSummary& r : result.replicas) {
    m.num_spec_tokens += r.scheduler.num_spec_tokens;
    m.num_accepted_spec_tokens += r.scheduler.num_accepted_spec_tokens;
    if (r.warm_ns <= 0) continue;
    ++m.num_replicas_served;
    routed.push_back(static_cast<double>(r.num_routed_tokens));
    busy.push_back(static_cast<double>(r.busy_ns));
  }
  m.routed_tokens_imbalance = max_over_mean(routed);
  m.busy_time_imbalance = max_over_mean(busy);
  if (m.num_spec_tokens > 0) {
    m.spec_acceptance_rate =
        static_cast<double>(m.num_accepted_spec_tokens) / static_cast<double>(m.num_spec_tokens);
  }

  // Tenants, in name order.
  std::map<std::string, size_t> index;
  const auto& requests = result.table.requests;
  for (const Request& r : requests) index.emplace(r.tenant, 0);
  size_t next = 0;
  for (auto& [name, i] : index) {
    i = next++;
    m.tenants.emplace_back().tenant = name;
  }
  const double duration_s = std::max(static_cast<double>(result.end_ns) / 1e9, 1e-9);
  const double bin_s = scenario.metrics.peak_bin_s;
  std::vector<TenantSamples> samples;
  samples.reserve(m.tenants.size());
  for (size_t t = 0; t < m.tenants.size(); ++t) {
    samples.push_back({{}, {}, {}, fleet::ArrivalBins(bin_s, duration_s)});
  }
  fleet::ArrivalBins all_arrivals(bin_s, duration_s);
  for (size_t i = 0; i < requests.size(); ++i) {
    const RequestRecord& rec = result.records[i];
    const size_t t = index.at(requests[i].tenant);
    TenantMetrics& tm = m.tenants[t];
    const RequestLatency lat = request_latency(rec);
    const double arrival_s = static_cast<double>(rec.arrival_ns) / 1e9;
    samples[t].arrivals.add(arrival_s);
    all_arrivals.add(arrival_s);
    ++tm.num_requests;
    tm.hol_delay_s += rec.hol_delay_s;
    tm.hol_caused_s += rec.hol_caused_s;
    m.hol_delay_s += rec.hol_delay_s;
    m.num_requeues += rec.num_requeues;
    if (rec.status != RequestStatus::finished) continue;
    ++tm.num_finished;
    tm.num_input_tokens += requests[i].prompt_tokens;
    tm.num_output_tokens += rec.num_output_tokens_done;
    samples[t].ttft.add(*lat.ttft_s);
    samples[t].e2e.add(*lat.e2e_s);
    samples[t].hol.add(rec.hol_delay_s);
    const auto c = static_cast<size_t>(result.table.slo_class[i]);
    if (meets_slo(rec, lat, scenario.slo_classes[c].slo)) ++tm.num_slo_met;
  }
  for (size_t t = 0; t < m.tenants.size(); ++t) {
    TenantMetrics& tm = m.tenants[t];
    tm.slo_attainment = tm.num_requests > 0 ? static_cast<double>(tm.num_slo_met) /
                                                  static_cast<double>(tm.num_requests)
                                            : 0.0;
    tm.ttft = samples[t].ttft.summarize();
    tm.e2e = samples[t].e2e.summarize();
    tm.hol_delay = samples[t].hol.summarize();
    tm.demand = samples[t].arrivals.summarize();
  }
  m.aggregate_demand = all_arrivals.summarize();
  return m;
}

}  // namespace tidal::sim
