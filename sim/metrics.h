// Run metrics (DESIGN.md, "Metrics"): latency distributions, SLO attainment and goodput per
// class, throughput, utilization and cost. Definitions are in docs/run-output.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/energy_summary.h"
#include "sim/fleet_metrics.h"
#include "sim/request_record.h"
#include "sim/sample_set.h"
#include "sim/scenario.h"
#include "sim/simulator.h"
#include "traces/run_figures.h"

namespace tidal::sim {

// One request's latencies in seconds; empty where undefined (rejected, or TPOT of a request
// with a single output token).
struct RequestLatency {
  std::optional<double> ttft_s;         // first token - arrival
  std::optional<double> tpot_s;         // (finish - first token) / (output tokens - 1)
  std::optional<double> e2e_s;          // finish - arrival
  std::optional<double> queue_delay_s;  // first scheduled - arrival
};
RequestLatency request_latency(const RequestRecord& record);
// Finished, and every bound the class gives holds (an undefined TPOT meets any TPOT bound).
bool meets_slo(const RequestRecord& record, const RequestLatency& latency, const SloBounds& slo);

struct ClassMetrics {
  std::string name;
  SloBounds slo;
  int64_t num_requests = 0;
  int64_t num_finished = 0;
  int64_t num_rejected = 0;
  int64_t num_slo_met = 0;
  double slo_attainment = 0.0;               // num_slo_met / num_requests
  std::optional<double> finished_slo_share;  // num_slo_met / num_finished; empty when none
  double goodput_rps = 0.0;                  // num_slo_met / duration
  LatencySummary ttft, tpot, e2e;
};

struct PoolMetrics {
  std::string name, model, gpu;
  int32_t tp = 1;
  int32_t num_replicas = 0;
  int32_t num_gpus = 0;
  int64_t num_kv_blocks = 0;  // per replica
  double price_per_gpu_hour = 0.0;
  double gpu_hours = 0.0;
  double dollars = 0.0;  // owned pools: amortization + electricity
  // Owned pools only (PoolSpec::owned): the amortization of its devices over the run (the
  // billing ledger's), and the electricity they drew (the energy model's, at the site's price).
  std::optional<double> owned_amortization_dollars;
  std::optional<double> owned_electricity_dollars;
  // With egress priced (Scenario::prices_egress): what its traffic crossing priced links cost
  // (sim/egress_meter.h), included in `dollars`.
  std::optional<double> egress_dollars;
  double utilization = 0.0;  // busy share of its replicas' warm (and draining) time
  int64_t num_steps = 0;
  // Load (docs/run-output.md, "Load"), over its replicas' steps, weighted by step time.
  int32_t max_num_seqs = 0;  // the limit of a step's batch
  double mean_batch = 0.0;   // sequences a step computes
  int64_t p99_batch = 0;     // nearest rank over step time
  int64_t max_batch = 0;
  double mean_kv_usage = 0.0;  // the stepping replica's used / all GPU KV blocks
  double peak_kv_usage = 0.0;  // the largest share one replica reached
  std::optional<double> mfu;   // roofline FLOPs / (peak FLOP/s x step seconds)
  std::optional<double> mbu;   // roofline HBM bytes / (bandwidth x step seconds)
};

// What the metrics left out as warm-up (scenario `metrics.warmup_s`,
// `metrics.exclude_first_per_client`). A request may be counted under both reasons.
struct WarmupExclusion {
  double warmup_s = 0.0;
  bool exclude_first_per_client = false;
  int64_t num_excluded = 0;          // requests left out, for either reason
  int64_t num_before_warmup = 0;     // arrived before warmup_s
  int64_t num_first_per_client = 0;  // turn 0 with exclude_first_per_client
  double window_start_s = 0.0;       // the first kept request's arrival (0 when none is left out)
};

// The request figures (duration: from 0, or from the first kept request's arrival when a
// warm-up is left out, to the run's last event) and the simulator's own. Request counts, token
// totals, latencies, throughput and SLO figures cover the kept requests; costs, $ per token and
// the fleet section cover every request.
struct RunMetrics : traces::RequestFigures {
  int64_t num_slo_met = 0;
  double slo_attainment = 0.0;               // over all requests: rejected ones count as missed
  std::optional<double> finished_slo_share;  // over finished requests; empty when none
  double goodput_rps = 0.0;
  std::vector<ClassMetrics> classes;  // in Scenario::slo_classes order
  double utilization = 0.0;           // busy share of all replicas' warm (and draining) time
  std::optional<double> mfu, mbu;     // over every pool's steps and GPUs (PoolMetrics)
  double gpu_hours = 0.0;             // billed (the ledger)
  // Billed total: the ledger's, plus owned pools' electricity and egress where there are any.
  double dollars = 0.0;
  // Whole-run dollars over a million tokens of each kind; empty when no such tokens.
  std::optional<double> dollars_per_1m_input_tokens;
  std::optional<double> dollars_per_1m_output_tokens;
  std::optional<double> dollars_per_1m_tokens;  // input + output
  std::vector<PoolMetrics> pools;
  FleetMetrics fleet;
  WarmupExclusion warmup;
  std::optional<EnergyReport> energy;  // when the scenario asks for energy (report_energy)
  std::optional<EgressReport> egress;  // when the scenario prices egress
};

// Sorts the run's ITL samples lazily, hence the non-const result.
RunMetrics compute_metrics(const Scenario& scenario, RunResult& result);

}  // namespace tidal::sim
