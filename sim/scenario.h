// A scenario: everything one simulation run needs (DESIGN.md, "Scenario"; every key and its
// default in docs/scenario.md). load_scenario* validate strictly — unknown keys, wrong types
// and impossible configurations are InputErrors naming the file and the JSON path — and resolve
// every default, so the Scenario below is complete and scenario_to_json echoes it in full.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/kv/block_manager.h"
#include "engine/kv/tier_store.h"
#include "engine/sched/config.h"
#include "perf/calibration.h"
#include "perf/engine_preset.h"
#include "perf/kernel_db_coverage.h"
#include "perf/lossy_step_model.h"
#include "perf/memory_plan.h"
#include "perf/step_time_model.h"
#include "sim/fleet/autoscaler.h"
#include "sim/fleet/cold_start.h"
#include "sim/fleet/energy_model.h"
#include "sim/fleet/kv_links.h"
#include "sim/fleet/network.h"
#include "sim/fleet/pricing.h"
#include "sim/fleet/spot.h"
#include "sim/router_admission_spec.h"
#include "traces/format.h"

namespace tidal::sim {

// Latency bounds of an SLO class; a request meets the SLO when every given bound holds.
struct SloBounds {
  std::optional<double> ttft_s;
  std::optional<double> tpot_s;
  std::optional<double> e2e_s;

  bool operator==(const SloBounds&) const = default;
};

struct TraceSource {
  std::string path;           // as written in the scenario
  std::string resolved_path;  // relative paths resolved against the scenario's folder
  std::optional<traces::TraceFormat> format;  // empty: detected from the file's first line
};

// A workload's `adapters`: each request without one names adapter "<prefix><i>", i in
// [0, count), drawn (seeded) with weight 1 / (i + 1)^zipf: a few popular fine-tunes, a long tail.
struct WorkloadAdapters {
  int64_t count = 1;
  double zipf = 1.0;
  std::string prefix = "adapter-";
};

struct WorkloadSpec {
  std::string name;                         // default "workload<i>"
  std::optional<TraceSource> trace;         // exactly one of trace / generator
  std::optional<nlohmann::json> generator;  // a traces::generate spec, verbatim
  std::optional<std::string> tenant;        // overrides the requests' own tenant when given
  std::string slo_class = "default";        // every request of the workload gets this class
  SloBounds slo;
  double time_scale = 1.0;    // arrival times are multiplied by this ...
  double rate_scale = 1.0;    // ... and divided by this
  double length_scale = 1.0;  // prompt and output lengths are multiplied by this
  double start_s = 0.0;       // added to every arrival time after scaling
  uint64_t seed = 0;          // generator seed, derived from the scenario seed and the index
  // Client region of its requests (with a scenario `network`): `region` for all, or a seeded
  // mix of regions by weight; neither: the region the trace gives each request.
  std::optional<std::string> region;
  std::vector<std::pair<std::string, double>> region_mix;  // (region, weight > 0), as written
  std::optional<int64_t> max_output_tokens;                // per-request output cap (a policy)
  // Model routing (docs/scenario.md, "Model routing"): the model every request of it asks for
  // (overrides the trace's), and a traces::Distribution its requests' complexity is drawn from
  // where the trace gives none (draws clamped to [0, 1]).
  std::optional<std::string> model;
  std::optional<nlohmann::json> complexity;
  // The seeded share of its requests flagged private (Request::is_private), over the trace's
  // flags; nullopt: the trace's flags as they are.
  std::optional<double> private_share;
  // LoRA adapters its requests name where the trace names none (`adapters`).
  std::optional<WorkloadAdapters> adapters;
};

// A pool's `engine` (docs/scenario.md, "Engine presets"): the preset chosen and every default it
// gave the pool, each with its source ("given" where the pool gave the key itself).
struct EngineSpec {
  std::string name;     // the preset's: vllm | sglang | trtllm
  std::string version;  // the preset's release line, e.g. "0.19"
  perf::EngineDefaults defaults;
};

struct PerfSpec {
  std::string kind = "roofline";  // roofline | profile | kernel_db
  std::string profile;            // profile JSON path as written (kind == profile)
  std::string resolved_profile;   // resolved against the scenario's folder
  std::string dir;                // kernel tables folder as written (kind == kernel_db)
  std::string resolved_dir;
  std::string gemm_dtype;   // kernel_db: the tables' GEMM dtype of the kernels that ran ("" auto)
  std::string moe_dtype;    // kernel_db: the tables' MoE dtype ("" auto)
  std::string calibration;  // calibration JSON as written (`tidal calibrate`), "" for none
  std::string resolved_calibration;
};

// The drafter's rates from a sequence's decode step `first_step` on (1 = its first step after
// the prefill) until the next bucket's first_step.
struct SpecStepRates {
  int32_t first_step = 1;
  // Absent: the proposal rate is proposal_by_context's, else the flat proposal_rate.
  std::optional<double> proposal_rate;
  double acceptance_rate = 0.0;
};

// The drafter's proposal rate for drafts verified at a context (tokens already in the sequence's
// KV cache) of first_context_tokens or more, until the next bucket's.
struct SpecContextRate {
  int64_t first_context_tokens = 0;
  double proposal_rate = 1.0;
};

// Speculative decoding in a pool's replicas (docs/scenario.md, "Speculative decoding").
struct SpeculativeSpec {
  std::string method = "none";         // none | ngram | draft | eagle | eagle3
  int32_t num_speculative_tokens = 0;  // k, drafted per decoding request and step
  double acceptance_rate = 0.0;        // alpha: per-token acceptance probability
  double draft_cost_ratio = 0.0;       // c: one draft token's cost relative to a target step
  double proposal_rate = 1.0;          // share of decoding steps at which the drafter proposes
  // Host drafting before every step (n-gram lookup), for every sequence already scheduled once
  // (context > 0), whether or not it proposes: per sequence, seconds_per_seq +
  // seconds_per_context_token x its context.
  double draft_seconds_per_seq = 0.0;
  double draft_seconds_per_context_token = 0.0;
  // Rates by decode step (first_step 1, 2, ... increasing), replacing proposal_rate and
  // acceptance_rate where present; empty: those two at every step.
  std::vector<SpecStepRates> by_decode_step;
  // Proposal rates by the context the drafts are verified at (first_context_tokens 0, ...
  // increasing), replacing proposal_rate (by_decode_step then gives acceptance rates only).
  // Prompt lookup finds an earlier occurrence of a sequence's suffix more often in a longer one.
  std::vector<SpecContextRate> proposal_by_context;
  // Share of requests whose drafts can be accepted at all (each request drawn once, seeded by
  // its id); the others' drafts are all rejected. The acceptance rates are the accepting
  // requests'. Prompt lookup accepts much on requests whose output repeats and nothing on
  // others.
  double accepting_share = 1.0;
  // Acceptance rates by slo_class (`acceptance_by_class`, each in [0, 1)): a request of a class
  // named here draws its drafts at this rate at every decode step, in place of acceptance_rate
  // and by_decode_step's; requests of other classes keep those. Constrained output (JSON under a
  // grammar) accepts less than free chat from the same drafter.
  std::map<std::string, double> acceptance_by_class;

  bool enabled() const { return method != "none" && num_speculative_tokens > 0; }
  // The proposal rate for a sequence's decode step n >= 1, verified at `context_tokens`.
  double proposal_rate_at(int32_t decode_step, int64_t context_tokens) const {
    const SpecContextRate* by_context = nullptr;
    for (const SpecContextRate& bucket : proposal_by_context) {
      if (bucket.first_context_tokens <= context_tokens) by_context = &bucket;
    }
    if (by_context != nullptr) return by_context->proposal_rate;
    const SpecStepRates* bucket = bucket_at(decode_step);
    return bucket != nullptr && bucket->proposal_rate ? *bucket->proposal_rate : proposal_rate;
  }
  // The acceptance rate at a sequence's decode step n >= 1.
  double acceptance_rate_at(int32_t decode_step) const {
    const SpecStepRates* bucket = bucket_at(decode_step);
    return bucket != nullptr ? bucket->acceptance_rate : acceptance_rate;
  }

 private:
  const SpecStepRates* bucket_at(int32_t decode_step) const {
    const SpecStepRates* found = nullptr;
    for (const SpecStepRates& bucket : by_decode_step) {
      if (bucket.first_step <= decode_step) found = &bucket;
    }
    return found;
  }
};

// One pool of identical replicas. Figures derived from the catalogs are resolved here.
// One entry of a pool's `kv_tiers` (docs/scheduler.md, "KV offload tiers"): as written, and
// resolved against the pool's KV bytes per block.
struct KvTierSpec {
  std::optional<double> capacity_gib;  // none: unbounded (remote only)
  double read_gb_per_s = 0.0;
  double write_gb_per_s = 0.0;
  double latency_ms = 0.0;
  kv::TierConfig config;  // capacity in this pool's blocks, bytes per second, ns
};

// Hardware the operator bought (a pool's `owned`, docs/fleet.md "Owned hardware"): no rental;
// its GPUs cost their purchase spread over their life, for the whole run whether used or not,
// plus the electricity they draw at the site's price.
struct OwnedSpec {
  double capex_dollars = 0.0;   // purchase price per GPU (device), host share included
  double lifetime_years = 0.0;  // years the purchase is spread over (straight line)
  // The amortization per GPU-hour: capex over the life's hours (a year of 365.25 days).
  double dollars_per_gpu_hour() const { return capex_dollars / (lifetime_years * 8766.0); }
};

// A pool serving LoRA adapters on its base model (`lora`, docs/scenario.md "LoRA adapters").
// Defaults are vLLM's (vllm/config/lora.py, LoRAConfig: max_loras 1, max_lora_rank 16,
// max_cpu_loras = max_loras).
struct LoraSpec {
  int32_t max_loras_per_batch = 1;    // distinct adapters one step may hold
  int32_t max_cpu_loras = 1;          // adapters a replica keeps loaded (LRU)
  int32_t rank = 16;                  // every adapter's rank
  double load_gb_per_s = 2.0;         // an adapter's bytes from storage into the engine
  std::vector<std::string> adapters;  // the adapters it serves; empty: any
  // Resolved from the model (every linear projection of every layer adapted, bf16 A and B):
  double adapter_bytes = 0.0;              // one adapter's weights
  double flops_per_token_per_gpu = 0.0;    // A and B products for one token, one GPU's share
  double bytes_per_adapter_per_gpu = 0.0;  // one adapter's weights one GPU reads per step
  bool serves(const std::string& adapter) const;
};

struct PoolSpec {
  std::string name;             // default "pool<i>"
  std::string model;            // the model's name: catalog name, or the config's (hf_config.h)
  std::string gpu;              // the GPU's name: catalog name, or the inline object's
  nlohmann::json model_input;   // `model` as written: a name, a config path, an inline object
  nlohmann::json gpu_input;     // `gpu` as written: a catalog name or an inline object
  perf::Deployment deployment;  // tp, ep, attention_dp, pp, dtypes, memory, block_size, budget
  fleet::LinkKind pp_link_kind = fleet::LinkKind::nvlink;  // between pipeline stages (pp > 1)
  int32_t num_replicas = 1;
  bool prefix_caching = true;
  double swap_space_gib = 4.0;       // CPU swap space per GPU for preemption by swap
  std::vector<KvTierSpec> kv_tiers;  // offload tiers below GPU memory, top first
  sched::SchedulerConfig scheduler;
  PerfSpec perf;
  std::optional<double> price_per_gpu_hour;  // overrides the catalog's on-demand price
  std::string region;  // hosting region in the scenario `network` ("" without a network)
  // Disaggregated serving (docs/fleet.md): prefill replicas compute prompts and first tokens,
  // decode replicas the rest once the KV arrived over a `kv_transfer` link.
  fleet::PoolRole role = fleet::PoolRole::both;
  fleet::AutoscalerSpec autoscaler;  // default: fixed at num_replicas
  fleet::ColdStartSpec cold_start;
  fleet::PricingSpec pricing;
  fleet::SpotSpec spot;  // interruptions of market leases when pricing.market is spot
  SpeculativeSpec speculative;
  fleet::PoolEnergySpec energy;    // the `energy` object (host power, GPU power overrides)
  std::optional<OwnedSpec> owned;  // bought, not rented: amortization + electricity
  // autoscaler / cold_start / pricing / spot / energy as written (echoed)
  nlohmann::json fleet_keys;
  nlohmann::json moe_input;          // `moe` as written (echoed); null when not given
  std::optional<EngineSpec> engine;  // the `engine` key resolved; none: tidal's own defaults
  std::optional<LoraSpec> lora;      // serves LoRA adapters; none: requests naming one never come
  // Lossy speedups (`lossy`, docs/perf.md "Lossy speedups"): none when the pool has no `lossy`.
  std::optional<perf::LossySpec> lossy;

  // Resolved at load time.
  perf::ModelSpec model_spec;  // from the catalog, a Hugging Face config or the inline object
  perf::GpuSpec gpu_spec;      // from the catalog or the inline object
  perf::MemoryPlan memory;
  kv::BlockManagerConfig kv;  // num_gpu_blocks from memory, num_cpu_blocks from swap space
  double resolved_price_per_gpu_hour = 0.0;    // the market price replicas pay
  fleet::ColdStartBreakdown cold_start_times;  // of a replica the autoscaler adds
  fleet::PoolPricing pool_pricing;             // what the billing ledger charges
  fleet::PoolPower power;  // with Scenario::report_energy: GPU, host and site figures
  std::shared_ptr<const perf::StepTimeModel> step_model;  // per `perf`, calibrated if asked
  std::optional<perf::KernelDbCoverage>
      kernel_db_coverage;                        // kind kernel_db: where each op came from
  std::optional<perf::Calibration> calibration;  // perf.calibration's group

  int32_t num_gpus() const { return num_replicas * deployment.num_gpus(); }
  bool is_spot() const { return pool_pricing.market == fleet::Market::spot; }
  // The engine's front end: API server and tokenization before a request reaches a replica's
  // scheduler, and detokenization before each output token reaches the client (0 without one).
  double frontend_per_request_s() const {
    if (calibration) return calibration->frontend_per_request_s.value;
    return engine ? engine->defaults.frontend_per_request_s : 0.0;
  }
  double detokenize_per_token_s() const {
    return engine ? engine->defaults.detokenize_per_token_s : 0.0;
  }
};

// Global routing (docs/scenario.md, "Routers"). Knobs are read only by the routers that use them.
struct RouterSpec {
  std::string policy = "least_outstanding_requests";  // see router_names()
  // session_affinity, prefix_aware, cache_aware: a replica counts as overloaded when its
  // outstanding requests exceed load_factor x (mean over usable replicas) + 1.
  double load_factor = 1.25;
  int32_t prefix_blocks = 4;   // prefix_aware: leading prompt blocks hashed onto the ring
  int32_t virtual_nodes = 64;  // prefix_aware: ring points per replica
  // cache_aware: what a block found in a replica's offload tiers (kv_tiers) scores against one in
  // its GPU cache, in [0, 1]; 0 (default): only GPU hits count.
  double tier_hit_weight = 0.0;
  bool prefer_nearest_region = true;  // with a network: nearest region with a usable replica
  // Requests held at the router leave in this class order (classes not listed come last, in
  // arrival order); empty: arrival order.
  std::vector<std::string> class_priority;
  AdmissionSpec admission;  // which requests the router takes (sim/router_admission.h)
};

// One model a `complexity` model router may pick, and the hardest request it is declared fit for.
struct ModelTierSpec {
  std::string model;  // a pool's `model` name
  double max_complexity = 1.0;
};

// Which model serves a request (`model_router`, docs/scenario.md "Model routing").
struct ModelRouterSpec {
  // fixed: the request's own model; complexity: the model of the lowest max_complexity that
  // covers the request's complexity (ties: list order; none covers: the highest); cascade: the
  // first listed model, then the second for the escalated share; sensitive_local: fixed, but a
  // private request whose model no local pool serves goes to the first local model instead.
  // Under every policy a private request is served by local pools only (ModelAssignment).
  std::string policy = "fixed";
  double misroute_rate = 0.0;  // complexity, cascade: share sent to another choice instead
  // cascade: the seeded share of requests escalated to the second model; nullopt: those whose
  // complexity is above the first model's max_complexity.
  std::optional<double> escalate;
  // complexity, cascade: the models it picks among (cascade: exactly two, small first);
  // sensitive_local: the local models private requests fall back to, preferred first (empty:
  // pool order).
  std::vector<ModelTierSpec> models;
};

// Fleet-wide measurement knobs (`metrics` object).
struct MetricsSpec {
  int64_t long_prefill_tokens = 4096;  // head-of-line: a prefill chunk this long stalls others
  double peak_bin_s = 60.0;            // peak-to-mean: width of an arrival-rate bin
  // Warm-up left out of the latency and throughput metrics (sim/warmup.h): requests arriving
  // before warmup_s, and with exclude_first_per_client the first request (turn 0) of each
  // closed-loop client, session or agent job.
  double warmup_s = 0.0;
  bool exclude_first_per_client = false;
};

struct OutputSpec {
  bool requests_csv = true;
  bool timeline_csv = true;
  bool trace_json = true;
  int64_t trace_max_slices = 20000;  // batch-step slices written to trace.json at most
};

// The SLO of one class, gathered from the workloads that name it.
struct SloClass {
  std::string name;
  SloBounds slo;
};

struct Scenario {
  std::string file;      // label that starts every message ("scenario.json", "<built-in>")
  std::string base_dir;  // relative paths resolve against this folder ("" = current folder)
  std::string name;      // default: the file name without extension
  uint64_t seed = 0;
  std::optional<double> duration_s;  // requests arriving at or after it are left out
  double timeline_interval_s = 1.0;
  std::vector<WorkloadSpec> workloads;
  std::vector<PoolSpec> pools;
  RouterSpec router;
  std::optional<ModelRouterSpec> model_router;  // absent: fixed, and no by_model figures unless
                                                // some request names a model
  OutputSpec output;
  MetricsSpec metrics;
  std::optional<fleet::NetworkSpec> network;
  // Energy and carbon (docs/fleet.md, "Energy and carbon"): on when the scenario has an `energy`
  // object, a pool's `energy` or a region's energy keys; summary.json then has `energy`.
  bool report_energy = false;
  fleet::SiteEnergy energy;  // the `energy` object's site figures, for pools a region leaves
  // `kv_transfer.links`: how KV reaches decode pools from prefill pools (empty unless some pool
  // has role prefill or decode).
  std::vector<fleet::KvLinkSpec> kv_links;
  // `kv_transfer.first_token_from`: which side streams a disaggregated request's first token to
  // the client. decode (the default): every token goes through the decode replica, as SGLang's
  // and vLLM's disaggregated serving and Dynamo stream them, so the first token is shown when
  // the decode replica's first step for the request ends; prefill: when the prefill step ends.
  fleet::FirstTokenFrom first_token_from = fleet::FirstTokenFrom::decode;
  std::vector<SloClass> slo_classes;  // sorted by name, one per slo_class in use
  // `priorities`: slo_class -> Request::priority for requests whose trace gives none.
  std::map<std::string, int32_t> priorities;
  // Not a scenario key: `tidal simulate --step-by-step` runs every decode step through the
  // scheduler's update() and schedule() instead of repeating it (sched::Scheduler::repeat_step),
  // to check that both give the same outputs.
  bool step_by_step = false;

  int32_t num_replicas() const;
  // Some network link or kv_transfer link has a non-zero egress_per_gb: the run meters
  // egress (sim/egress_meter.h) and its outputs carry egress dollars.
  bool prices_egress() const;
  // Re-derives every workload's generator seed (call after changing `seed`).
  void set_seed(uint64_t new_seed);
};

// Parses and validates. `file` labels messages; `base_dir` resolves relative paths; the
// default name comes from `file`'s stem.
Scenario parse_scenario(const nlohmann::json& root, const std::string& file,
                        const std::string& base_dir);
// Reads a scenario file (JSON syntax errors become InputErrors with line and column).
Scenario load_scenario_file(const std::string& path);
// A scenario file's text; InputError when `path` is a folder or cannot be opened.
std::string read_scenario_file_text(const std::string& path);
// Scenario JSON text as a document; a syntax error is an InputError `file: parse error at line
// L, column C: ...`.
nlohmann::json parse_scenario_json_text(const std::string& text, const std::string& file);
// Parses scenario text, e.g. the built-in default; `file` labels messages.
Scenario load_scenario_text(const std::string& text, const std::string& file,
                            const std::string& base_dir);

// The complete resolved scenario, every key present, for summary.json.
nlohmann::ordered_json scenario_to_json(const Scenario& scenario);
// A pool's `speculative` object as scenario_to_json echoes it (null when not enabled).
nlohmann::ordered_json speculative_to_json(const SpeculativeSpec& spec);
// A pool's `engine` as scenario_to_json echoes it: name, version and the engine object's keys.
nlohmann::ordered_json engine_to_json(const EngineSpec& engine);
// Every default the engine gave the pool, {"value", "source"} by key (summary.json `resolved`).
nlohmann::ordered_json engine_defaults_to_json(const EngineSpec& engine);

// The seed a workload's generator gets: mix of the scenario seed and the workload index.
uint64_t workload_seed(uint64_t scenario_seed, size_t workload_index);

}  // namespace tidal::sim
