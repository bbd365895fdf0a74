// One run folder (docs/run-output.md) read into memory: the figures of summary.json, the rows
// of requests.csv and timeline.csv. Reading is strict: a missing file, column or field is an
// InputError naming the file and the column or JSON path. Fields the simulator only writes for
// some runs (docs/report.md, "Optional inputs") are read when present.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reports/egress_figures.h"
#include "reports/energy_figures.h"
#include "reports/lora_figures.h"
#include "reports/model_figures.h"

namespace tidal::reports {

class JsonView;  // reports/json_fields.h

// A latency distribution as summary.json gives it; the optionals are empty when count == 0.
struct LatencyFigures {
  int64_t count = 0;
  std::optional<double> mean_s, p50_s, p90_s, p99_s, max_s;
};

struct ClassFigures {
  std::string name;
  std::optional<double> slo_ttft_s, slo_tpot_s, slo_e2e_s;
  int64_t num_requests = 0;
  int64_t num_finished = 0;
  int64_t num_rejected = 0;
  int64_t num_slo_met = 0;
  double slo_attainment = 0.0;
  double goodput_rps = 0.0;
  LatencyFigures ttft, tpot, e2e;
};

// A pool's load over its steps (summary.json fleet.pools[].load).
struct PoolLoad {
  int64_t max_num_seqs = 0;
  double mean_batch = 0.0;
  int64_t p99_batch = 0;
  double mean_kv_usage = 0.0;
  double peak_kv_usage = 0.0;
  std::optional<double> mfu, mbu;
};

// A pool's lossy speedups as the scenario echoes them (docs/perf.md, "Lossy speedups").
struct PoolLossy {
  double kv_kept_ratio = 1.0;
  std::optional<int64_t> kv_window_tokens;
  double layer_skip_share = 0.0;
  std::optional<double> declared_quality_loss;
};

struct PoolFigures {
  std::string name, model, gpu, weight_dtype, kv_dtype, policy;
  int64_t tp = 1;
  int64_t num_replicas = 0;
  int64_t num_gpus = 0;
  int64_t num_gpu_blocks = 0;  // KV blocks per replica
  double price_per_gpu_hour = 0.0;
  double gpu_hours = 0.0;
  double dollars = 0.0;
  double utilization = 0.0;
  int64_t num_steps = 0;
  std::optional<PoolLoad> load;      // fleet.pools[].load when the run has it
  std::string market = "on_demand";  // scenario pricing.market when given
  // pricing.on_demand_per_gpu_hour, else the scenario's price_per_gpu_hour; empty when the
  // scenario gives neither (the catalog's price, which summary.json does not echo).
  std::optional<double> on_demand_per_gpu_hour;
  // What priced the pool's steps and how far to trust it (summary.json resolved pool's
  // step_time_model and engine): e.g. "kernel_db (9 of 11 op classes from tables), engine vllm
  // 0.19, calibrated (12 rows of 3 models: TTFT 14.2%, TPOT 7.9% MAPE)".
  std::string step_time_model;
  std::optional<PoolLossy> lossy;  // the scenario pool's `lossy` when given
};

// A pool's cold start as summary.json `fleet.pools[]` gives it.
struct PoolColdStart {
  std::string pool;
  int64_t peak_replicas = 0;
  bool from_snapshot = false;
  std::vector<std::pair<std::string, double>> stages_s;  // "total_s", "provisioning_s", ...
};

// summary.json `fleet` (runs of the fleet simulation).
struct FleetFigures {
  std::vector<PoolColdStart> pools;
  int64_t num_replicas_total = 0;
  int64_t num_scale_ups = 0;
  int64_t num_scale_downs = 0;
  int64_t num_spot_interruptions = 0;
  int64_t num_requeues = 0;
};

// summary.json of an engine run (`tidal engine run`, docs/engine.md): what ran (inputs, engine)
// and the engine's own counters (run, speculative, memory).
struct EngineFigures {
  std::string model, model_source, trace;  // inputs
  double time_scale = 1.0;
  int64_t tp = 1;  // engine
  int64_t num_threads = 1;
  std::string quant, kv_dtype, policy, spec;
  int64_t block_size = 0;
  int64_t num_gpu_blocks = 0;
  int64_t num_cpu_blocks = 0;
  bool prefix_caching = false;
  int64_t max_num_seqs = 0;
  int64_t max_num_batched_tokens = 0;
  int64_t weight_bytes_per_rank = 0;  // memory
  int64_t kv_arena_bytes_per_rank = 0;
  double wall_s = 0.0;  // run
  double busy_s = 0.0;
  int64_t num_steps = 0;
  int64_t num_recompute_preemptions = 0;
  int64_t num_swap_preemptions = 0;
  int64_t num_swap_out_blocks = 0;
  int64_t num_swap_in_blocks = 0;
  int64_t num_prefix_queried_blocks = 0;
  int64_t num_prefix_hit_blocks = 0;
  int64_t num_verifications = 0;  // speculative
  int64_t num_draft_tokens = 0;
  int64_t num_accepted_tokens = 0;
  double acceptance_rate = 0.0;
  double mean_accepted_length = 0.0;
};

struct RunSummary {
  std::string scenario_name;  // engine runs: "engine: MODEL"
  // False for an engine run: it records no GPU type and no price (summary.json has no costs
  // block), so dollars, gpu_hours and the per-token costs are 0 / empty and pools is empty.
  bool priced = true;
  uint64_t seed = 0;
  double duration_s = 0.0;
  int64_t num_requests = 0;         // counted in the metrics
  int64_t num_warmup_excluded = 0;  // left out of them (metrics.warmup), still in requests.csv
  int64_t num_finished = 0;
  int64_t num_rejected = 0;
  int64_t num_input_tokens = 0;
  int64_t num_output_tokens = 0;
  int64_t num_preemptions = 0;
  int64_t num_prefix_hit_tokens = 0;
  double request_throughput_rps = 0.0;
  double input_tokens_per_s = 0.0;
  double output_tokens_per_s = 0.0;
  LatencyFigures ttft, tpot, itl, e2e, queue_delay;
  int64_t num_slo_met = 0;
  double slo_attainment = 0.0;
  std::optional<double> finished_slo_share;  // metrics.finished_slo_share when present
  double goodput_rps = 0.0;
  std::vector<ClassFigures> classes;  // summary order (sorted by name)
  double utilization = 0.0;
  double gpu_hours = 0.0;
  double dollars = 0.0;
  std::optional<double> dollars_per_1m_input_tokens;
  std::optional<double> dollars_per_1m_output_tokens;
  std::optional<double> dollars_per_1m_tokens;
  std::vector<PoolFigures> pools;
  std::vector<std::pair<std::string, int64_t>> rejections;  // reason -> count
  // Optional (runs with a billing ledger): lifecycle order, then by name.
  std::vector<std::pair<std::string, double>> dollars_by_state;       // costs.dollars_by_state
  std::optional<double> dollars_granularity;                          // rounding up of leases
  std::vector<std::pair<std::string, double>> dollars_by_rate_class;  // on_demand, spot, ...
  std::optional<double> peak_sized_dollars;  // the same fleet kept at its peak all run
  std::optional<double> peak_sized_savings;  // 1 - dollars / peak_sized_dollars
  std::optional<FleetFigures> fleet;
  std::optional<double> spot_savings_dollars;  // costs.spot_savings_dollars (billing ledger)
  std::optional<EngineFigures> engine;         // engine runs only
  std::optional<EnergyFigures> energy;         // summary.json `energy` when the run has it
  std::optional<ModelRoutingFigures> models;   // summary.json `by_model` when the run has it
  std::optional<EgressFigures> egress;         // summary.json `costs.egress` when priced
  std::optional<LoraFigures> lora;             // summary.json `lora` when a pool has lora
};

// An estimate of what spot pools saved against their on-demand price, for run folders without
// costs.spot_savings_dollars: for each pool whose market is spot, its dollars x (on-demand
// price / its price - 1). Empty when no spot pool has a known on-demand price.
std::optional<double> spot_savings_estimate(const RunSummary& s);

// Spot savings as the report shows them: the exact costs.spot_savings_dollars when the run
// has it and a pool is on spot, else the estimate; empty when no pool is on spot.
struct SpotSavings {
  double dollars = 0.0;
  bool estimated = false;
};
std::optional<SpotSavings> spot_savings(const RunSummary& s);

// requests.csv. Latencies are NaN where the file leaves them empty (rejected requests, TPOT of
// one-token outputs).
struct RequestRows {
  std::vector<std::string> tenant_names;  // sorted, distinct
  std::vector<std::string> class_names;   // sorted, distinct
  std::vector<int32_t> tenant;            // [num_requests] index into tenant_names
  std::vector<int32_t> slo_class;         // [num_requests] index into class_names
  std::vector<double> arrival_s;          // [num_requests]
  std::vector<double> prompt_tokens;      // [num_requests]
  std::vector<double> output_tokens;      // [num_requests]
  std::vector<double> ttft_s;             // [num_requests]
  std::vector<double> tpot_s;             // [num_requests]
  std::vector<double> e2e_s;              // [num_requests]
  std::vector<double> queue_delay_s;      // [num_requests]
  std::vector<uint8_t> finished;          // [num_requests] status == finished
  std::vector<uint8_t> slo_met;           // [num_requests] 1 when it met its class' SLO
  std::vector<double> hol_delay_s;        // [num_requests] when the column exists, else empty
  std::vector<double> hol_caused_s;       // [num_requests] when the column exists, else empty

  size_t size() const { return arrival_s.size(); }
};

struct NamedSeries {
  std::string name;
  std::vector<double> values;  // [num_intervals]
};

// timeline.csv, one entry per interval.
struct TimelineRows {
  std::vector<double> start_s, end_s;      // [num_intervals]
  std::vector<double> arrivals, finished;  // [num_intervals] counts in the interval
  std::vector<double> rejected, output_tokens;
  std::vector<double> queue_depth, running;  // [num_intervals] sampled at the interval's end
  std::vector<double> kv_usage, utilization;
  std::vector<double> dollars, cumulative_dollars;
  std::vector<NamedSeries> replicas_by_state;  // columns replicas_<state>, file order
  std::vector<NamedSeries> dollars_by_state;   // optional columns dollars_<state>
  std::vector<double> queued_at_router;        // optional column queued_at_router, else empty
  // Optional: the largest value within each interval (queue_depth_max, running_max,
  // kv_usage_max, queued_at_router_max), else empty.
  std::vector<double> queue_depth_max, running_max, kv_usage_max, queued_at_router_max;

  size_t size() const { return start_s.size(); }
};

// The replica-state series that do not overlap: `starting` is left out when the timeline also
// has its parts (requested, provisioning, loading).
std::vector<const NamedSeries*> distinct_replica_states(const TimelineRows& t);

struct RunData {
  std::string dir;
  std::string label;  // the scenario name, or "name (folder)" when names repeat
  RunSummary summary;
  RequestRows requests;   // empty when the run wrote no requests.csv (has_requests false)
  TimelineRows timeline;  // empty when the run wrote no timeline.csv (has_timeline false)
  bool has_requests = true;
  bool has_timeline = true;
  // A run stopped early (summary.json `partial`): "stopped by SIGINT: 3 of 10 requests done".
  std::optional<std::string> partial;
};

// A simulator run's summary.json (with `scenario`) or an engine run's (with `engine`).
RunSummary read_summary(const std::string& path);
// A latency block of summary.json ({"count", "mean_s", "p50_s", ...}) under `parent.key`.
LatencyFigures read_latency_figures(const JsonView& parent, std::string_view key);
RequestRows read_requests(const std::string& path);
TimelineRows read_timeline(const std::string& path);
// Reads dir/summary.json, then dir/requests.csv and dir/timeline.csv when the run wrote them
// (reports/run_files.h: a file listed in summary.json must be the one the run wrote).
RunData load_run(const std::string& dir);

// True when `dir` holds a summary.json (a run folder).
bool is_run_folder(const std::string& dir);

}  // namespace tidal::reports
