// summary.json and the run folder.
#include "sim/run_output.h"

#include <filesystem>

#include <fmt/format.h>

#include "perf/dtype.h"
#include "sim/egress_summary.h"
#include "sim/energy_summary.h"
#include "sim/kv_tiers_summary.h"
#include "sim/kv_transfer_summary.h"
#include "sim/lora_summary.h"
#include "sim/model_summary.h"
#include "sim/run_output_stream.h"
#include "traces/run_figures.h"

namespace tidal::sim {
namespace {

using ojson = nlohmann::ordered_json;

ojson optional_json(const std::optional<double>& v) {
  return v ? ojson(*v) : ojson(nullptr);
}

// What the metrics above left out (docs/run-output.md, "Warm-up").
ojson warmup_json(const WarmupExclusion& w) {
  return ojson{{"warmup_s", w.warmup_s},
               {"exclude_first_per_client", w.exclude_first_per_client},
               {"num_excluded", w.num_excluded},
               {"num_before_warmup", w.num_before_warmup},
               {"num_first_per_client", w.num_first_per_client},
               {"window_start_s", w.window_start_s}};
}

ojson metrics_json(const RunMetrics& m) {
  ojson classes = ojson::array();
  for (const ClassMetrics& c : m.classes) {
    classes.push_back(ojson{{"slo_class", c.name},
                            {"slo", ojson{{"ttft_s", optional_json(c.slo.ttft_s)},
                                          {"tpot_s", optional_json(c.slo.tpot_s)},
                                          {"e2e_s", optional_json(c.slo.e2e_s)}}},
                            {"num_requests", c.num_requests},
                            {"num_finished", c.num_finished},
                            {"num_rejected", c.num_rejected},
                            {"num_slo_met", c.num_slo_met},
                            {"slo_attainment", c.slo_attainment},
                            {"finished_slo_share", optional_json(c.finished_slo_share)},
                            {"goodput_rps", c.goodput_rps},
                            {"ttft", traces::latency_summary_json(c.ttft)},
                            {"tpot", traces::latency_summary_json(c.tpot)},
                            {"e2e", traces::latency_summary_json(c.e2e)}});
  }
  ojson metrics = traces::request_figures_json(m);
  metrics["num_slo_met"] = m.num_slo_met;
  metrics["slo_attainment"] = m.slo_attainment;
  metrics["finished_slo_share"] = optional_json(m.finished_slo_share);
  metrics["goodput_rps"] = m.goodput_rps;
  metrics["slo_classes"] = classes;
  metrics["utilization"] = m.utilization;
  metrics["mfu"] = optional_json(m.mfu);
  metrics["mbu"] = optional_json(m.mbu);
  metrics["warmup"] = warmup_json(m.warmup);
  return metrics;
}

ojson costs_json(const RunMetrics& m) {
  ojson pools = ojson::array();
  for (const PoolMetrics& p : m.pools) {
    pools.push_back(ojson{{"pool", p.name},
                          {"num_gpus", p.num_gpus},
                          {"price_per_gpu_hour", p.price_per_gpu_hour},
                          {"gpu_hours", p.gpu_hours},
                          {"dollars", p.dollars},
                          {"utilization", p.utilization},
                          {"num_steps", p.num_steps}});
    if (p.egress_dollars) pools.back()["egress_dollars"] = *p.egress_dollars;
    if (p.owned_amortization_dollars) {
      pools.back()["owned"] = ojson{{"amortization_dollars", *p.owned_amortization_dollars},
                                    {"electricity_dollars", *p.owned_electricity_dollars}};
    }
  }
  const FleetMetrics& f = m.fleet;
  ojson by_state = ojson::object();
  for (const auto& [state, dollars] : f.dollars_by_state) by_state[state] = dollars;
  ojson gpu_hours_by_state = ojson::object();
  for (const auto& [state, hours] : f.gpu_hours_by_state) gpu_hours_by_state[state] = hours;
  ojson by_rate = ojson::object();
  for (const auto& [rate, dollars] : f.dollars_by_rate_class) by_rate[rate] = dollars;
  return ojson{{"gpu_hours", m.gpu_hours},
               {"dollars", m.dollars},
               {"dollars_by_state", by_state},
               {"dollars_granularity", f.dollars_granularity},
               {"dollars_reserved_unused", f.dollars_reserved_unused},
               {"dollars_by_rate_class", by_rate},
               {"gpu_hours_by_state", gpu_hours_by_state},
               {"tokens_per_dollar", optional_json(f.tokens_per_dollar)},
               {"mean_utilization", m.utilization},
               {"peak_sized_dollars", f.peak_sized_dollars},
               {"peak_sized_savings", optional_json(f.peak_sized_savings)},
               {"spot_savings_dollars", f.spot_savings_dollars},
               {"dollars_per_1m_input_tokens", optional_json(m.dollars_per_1m_input_tokens)},
               {"dollars_per_1m_output_tokens", optional_json(m.dollars_per_1m_output_tokens)},
               {"dollars_per_1m_tokens", optional_json(m.dollars_per_1m_tokens)},
               {"pools", pools}};
}

ojson demand_json(const fleet::PeakToMean& d) {
  return ojson{{"peak_per_s", d.peak_per_s}, {"mean_per_s", d.mean_per_s}, {"ratio", d.ratio}};
}

// A pool's load over its steps (docs/run-output.md, "Load").
ojson load_json(const PoolMetrics& p) {
  return ojson{{"max_num_seqs", p.max_num_seqs},   {"mean_batch", p.mean_batch},
               {"p99_batch", p.p99_batch},         {"max_batch", p.max_batch},
               {"mean_kv_usage", p.mean_kv_usage}, {"peak_kv_usage", p.peak_kv_usage},
               {"mfu", optional_json(p.mfu)},      {"mbu", optional_json(p.mbu)}};
}

ojson fleet_json(const Scenario& s, const RunMetrics& m) {
  const FleetMetrics& f = m.fleet;
  ojson tenants = ojson::array();
  for (const TenantMetrics& t : f.tenants) {
    tenants.push_back(ojson{{"tenant", t.tenant},
                            {"num_requests", t.num_requests},
                            {"num_finished", t.num_finished},
                            {"num_slo_met", t.num_slo_met},
                            {"slo_attainment", t.slo_attainment},
                            {"num_input_tokens", t.num_input_tokens},
                            {"num_output_tokens", t.num_output_tokens},
                            {"ttft", traces::latency_summary_json(t.ttft)},
                            {"e2e", traces::latency_summary_json(t.e2e)},
                            {"hol_delay_s", t.hol_delay_s},
                            {"hol_caused_s", t.hol_caused_s},
                            {"hol_delay", traces::latency_summary_json(t.hol_delay)},
                            {"demand", demand_json(t.demand)}});
  }
  ojson pools = ojson::array();
  for (size_t p = 0; p < s.pools.size(); ++p) {
    const fleet::ColdStartBreakdown& c = s.pools[p].cold_start_times;
    pools.push_back(ojson{{"pool", s.pools[p].name},
                          {"peak_replicas", f.peak_replicas[p]},
                          {"cold_start", ojson{{"total_s", c.total_s()},
                                               {"provisioning_s", c.provisioning_s},
                                               {"image_pull_s", c.image_pull_s},
                                               {"weight_load_s", c.weight_load_s},
                                               {"engine_init_s", c.engine_init_s},
                                               {"snapshot_restore_s", c.snapshot_restore_s},
                                               {"kv_alloc_s", c.kv_alloc_s},
                                               {"from_snapshot", c.from_snapshot}}},
                          {"load", load_json(m.pools[p])}});
  }
  return ojson{{"pools", pools},
               {"num_replicas_total", f.num_replicas_total},
               {"num_replicas_served", f.num_replicas_served},
               {"num_scale_ups", f.num_scale_ups},
               {"num_scale_downs", f.num_scale_downs},
               {"num_spot_interruptions", f.num_spot_interruptions},
               {"num_requeues", f.num_requeues},
               {"load_imbalance", ojson{{"routed_tokens_max_over_mean", f.routed_tokens_imbalance},
                                        {"busy_time_max_over_mean", f.busy_time_imbalance}}},
               {"speculative", ojson{{"num_spec_tokens", f.num_spec_tokens},
                                     {"num_accepted_spec_tokens", f.num_accepted_spec_tokens},
                                     {"acceptance_rate", optional_json(f.spec_acceptance_rate)}}},
               {"hol_delay_s", f.hol_delay_s},
               {"aggregate_demand", demand_json(f.aggregate_demand)},
               {"tenants", tenants}};
}

// Figures the loader derived from the scenario and the catalogs.
// What priced the pool's steps and how far to trust it: the model kind, the kernel tables'
// coverage, the calibration and its errors on the rows it was fitted to and, where `tidal
// calibrate --held-out` measured them, on the architectures it was not fitted on.
ojson step_model_json(const PoolSpec& p) {
  ojson j{{"kind", p.perf.kind}};
  if (p.kernel_db_coverage)
    j["kernel_db"] = ojson::parse(perf::coverage_json(*p.kernel_db_coverage).dump());
  if (p.calibration) {
    const perf::Calibration& c = *p.calibration;
    j["calibration"] = {{"file", p.perf.resolved_calibration},
                        {"engine", c.engine},
                        {"gpu", c.gpu},
                        {"step_overhead_base_s", c.step_overhead_base_s.value},
                        {"step_overhead_per_seq_s", c.step_overhead_per_seq_s.value},
                        {"frontend_per_request_s", c.frontend_per_request_s.value},
                        {"prefill_host_per_layer_s", c.prefill_host_per_layer_s.value},
                        {"fitted_on_rows", c.num_rows},
                        {"fitted_on_models", c.models},
                        {"ttft_mape_pct", c.ttft_mape_pct},
                        {"tpot_mape_pct", c.tpot_mape_pct}};
    if (c.held_out) j["calibration"]["held_out"] = perf::held_out_json(*c.held_out);
  }
  return j;
}

ojson resolved_json(const Scenario& s, const RunResult& result) {
  ojson workloads = ojson::array();
  std::vector<int64_t> num_kept(s.workloads.size(), 0);
  for (int32_t w : result.table.workload) ++num_kept[static_cast<size_t>(w)];
  for (size_t w = 0; w < s.workloads.size(); ++w) {
    ojson j{{"name", s.workloads[w].name},
            {"num_source_requests", result.table.num_source_requests[w]},
            {"num_requests", num_kept[w]}};
    j["generator_seed"] = s.workloads[w].generator ? ojson(s.workloads[w].seed) : ojson(nullptr);
    workloads.push_back(j);
  }
  ojson pools = ojson::array();
  for (const PoolSpec& p : s.pools) {
    ojson pool{{"name", p.name},
               {"model", p.model},
               {"model_source", p.model_spec.source},
               {"gpu", p.gpu},
               {"num_gpus", p.num_gpus()},
               {"weight_bytes_per_gpu", p.memory.weight_bytes_per_gpu},
               {"kv_bytes_per_token_per_gpu", p.memory.kv_bytes_per_token_per_gpu},
               {"activation_reserve_bytes", p.memory.activation_reserve_bytes},
               {"sliding_kv_reserve_bytes", p.memory.sliding_kv_reserve_bytes},
               {"num_gpu_blocks", p.kv.num_gpu_blocks},
               {"num_cpu_blocks", p.kv.num_cpu_blocks},
               {"price_per_gpu_hour", p.resolved_price_per_gpu_hour}};
    if (p.memory.num_state_slots > 0) {  // linear-attention models only
      pool["recurrent_state_reserve_bytes"] = p.memory.state_reserve_bytes;
      pool["num_recurrent_state_slots"] = p.memory.num_state_slots;
    }
    if (p.engine) pool["engine"] = engine_defaults_to_json(*p.engine);
    pool["step_time_model"] = step_model_json(p);
    pools.push_back(std::move(pool));
  }
  return ojson{{"workloads", workloads}, {"pools", pools}};
}

}  // namespace

nlohmann::ordered_json summary_json(const Scenario& scenario, const RunResult& result,
                                    const RunMetrics& metrics) {
  ojson summary{{"scenario", scenario_to_json(scenario)},
                {"resolved", resolved_json(scenario, result)},
                {"metrics", metrics_json(metrics)},
                {"costs", costs_json(metrics)},
                {"fleet", fleet_json(scenario, metrics)},
                {"kv_transfer", kv_transfer_summary_json(scenario, result)},
                {"run", ojson{{"end_s", static_cast<double>(result.end_ns) / 1e9},
                              {"num_events", result.num_events},
                              {"num_steps", result.num_steps},
                              {"num_trace_slices", result.slices.size()},
                              {"num_trace_slices_dropped", result.num_slices_dropped}}}};
  // Only with kv_tiers, so scenarios without them keep their summary byte for byte.
  ojson kv_tiers = kv_tiers_summary_json(scenario, result);
  if (!kv_tiers.is_null()) summary["kv_tiers"] = std::move(kv_tiers);
  // Only with model routing, likewise.
  ojson by_model = model_summary_json(scenario, result, metrics);
  if (!by_model.is_null()) summary["by_model"] = std::move(by_model);
  // Only when the scenario asks for energy (Scenario::report_energy), likewise.
  if (metrics.energy) summary["energy"] = energy_summary_json(scenario, *metrics.energy);
  // Only with LoRA pools, likewise.
  ojson lora = lora_summary_json(scenario, result);
  if (!lora.is_null()) summary["lora"] = std::move(lora);
  // Only when the scenario prices egress, likewise.
  if (metrics.egress) summary["costs"]["egress"] = egress_summary_json(scenario, *metrics.egress);
  return summary;
}

void write_run_output(const std::string& dir, const Scenario& scenario, const RunResult& result,
                      const RunMetrics& metrics) {
  // Written as a whole (base/run_folder.h): a failed write leaves the previous run as it was,
  // and a reused folder keeps no file of an earlier run (a file the knobs turn off is gone).
  RunOutputStream(dir, scenario).finish(result, metrics);
}

}  // namespace tidal::sim
