#include "sim/scenario_pool_keys.h"

#include <algorithm>
#include <limits>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "sim/spec_class_acceptance.h"

namespace tidal::sim {
namespace {

// Per-method defaults of speculative decoding (docs/scenario.md gives the sources):
// acceptance rate alpha chosen so that the expected accepted tokens per step at k = 4,
// (1 - alpha^(k+1)) / (1 - alpha), is near FACTS.md's Spec-Bench figures.
struct SpecDefaults {
  std::string_view method;
  double acceptance_rate;
  double draft_cost_ratio;
};
constexpr std::array<SpecDefaults, 4> kSpecDefaults{{
    {"ngram", 0.5, 0.0},   // prompt lookup: no draft model; alpha an example value
    {"draft", 0.6, 0.1},   // SpS on Vicuna-7B: 2.28 tokens/step -> alpha ~0.6 at k = 4
    {"eagle", 0.8, 0.05},  // EAGLE on Vicuna-7B: 3.61 tokens/step -> alpha ~0.8 at k = 4-5
    // EAGLE-3 (Li et al. 2025, arXiv 2503.01840): average acceptance length tau 6.13 on
    // MT-bench, LLaMA-Instruct 3.1 8B, temperature 0 (the figure SGLang's EAGLE-3 integration,
    // sgl-project/sglang#4247, compared its runs of 8 draft steps against). Taken as a chain of 8,
    // (1 - alpha^9) / (1 - alpha) = 6.13 gives alpha 0.900, 4.10 tokens/step at k = 4. The
    // paper drafts a tree, which accepts more than one chain does: vLLM's chain of k = 7 measured
    // tau 3.53 on the same model and benchmark (vllm-project/vllm#26191), alpha 0.74. Draft
    // cost: an example value, EAGLE's (EAGLE-3's head is one decoder layer too).
    {"eagle3", 0.9, 0.05},
}};

// A draft position costing more target steps than this, or host drafting longer than this per
// sequence or context token, is no speculative decoding anyone runs; larger values would
// overflow a step's duration.
constexpr double kMaxDraftCostRatio = 10.0;
constexpr double kMaxDraftSeconds = 1.0;

// GPUs of one replica (tp x attention_dp) and its ep: far above any deployment (an NVL72 rack
// holds 72 GPUs), and keeps the products within int32.
constexpr int64_t kMaxParallelDegree = 4096;

// A rate in [0, 1] under `key` of `obj`, which must have it.
double required_rate(JsonObject& obj, std::string_view key) {
  if (!obj.has(key)) obj.fail(key, "missing (required)");
  const double value = obj.number(key, 0.0);
  if (!(value >= 0.0 && value <= 1.0)) {
    obj.fail(key, fmt::format("must be in [0, 1], got {}", value));
  }
  return value;
}

// `by_decode_step`: a non-empty array of {first_step, proposal_rate, acceptance_rate}, the first
// at step 1, first_step strictly increasing, both rates in [0, 1]; proposal_rate optional.
std::vector<SpecStepRates> read_step_rates(const nlohmann::json& value, const std::string& path,
                                           const std::string& file) {
  if (!value.is_array() || value.empty()) {
    throw_at(file, path,
             "must be a non-empty array of {first_step, proposal_rate, acceptance_rate}");
  }
  std::vector<SpecStepRates> buckets;
  for (size_t i = 0; i < value.size(); ++i) {
    JsonObject obj(value[i], fmt::format("{}[{}]", path, i), file);
    if (!obj.has("first_step")) obj.fail("first_step", "missing (required)");
    const int64_t first_step = obj.at_least("first_step", obj.integer("first_step", 1), 1);
    if (i == 0 && first_step != 1) obj.fail("first_step", "the first bucket must start at step 1");
    if (i > 0 && first_step <= buckets.back().first_step) {
      obj.fail("first_step", fmt::format("must be greater than the previous bucket's {}",
                                         buckets.back().first_step));
    }
    if (first_step > std::numeric_limits<int32_t>::max()) {
      obj.fail("first_step",
               fmt::format("must be at most {}", std::numeric_limits<int32_t>::max()));
    }
    SpecStepRates bucket;
    bucket.first_step = static_cast<int32_t>(first_step);
    if (obj.has("proposal_rate")) bucket.proposal_rate = required_rate(obj, "proposal_rate");
    bucket.acceptance_rate = required_rate(obj, "acceptance_rate");
    obj.finish({"first_step", "proposal_rate", "acceptance_rate"});
    buckets.push_back(bucket);
  }
  return buckets;
}

// `proposal_by_context`: a non-empty array of {first_context_tokens, proposal_rate}, the first at
// 0, first_context_tokens strictly increasing, the rate in [0, 1].
std::vector<SpecContextRate> read_context_rates(const nlohmann::json& value,
                                                const std::string& path, const std::string& file) {
  if (!value.is_array() || value.empty()) {
    throw_at(file, path, "must be a non-empty array of {first_context_tokens, proposal_rate}");
  }
  std::vector<SpecContextRate> buckets;
  for (size_t i = 0; i < value.size(); ++i) {
    JsonObject obj(value[i], fmt::format("{}[{}]", path, i), file);
    if (!obj.has("first_context_tokens")) obj.fail("first_context_tokens", "missing (required)");
    SpecContextRate bucket;
    bucket.first_context_tokens =
        obj.at_least("first_context_tokens", obj.integer("first_context_tokens", 0), 0);
    if (i == 0 && bucket.first_context_tokens != 0) {
      obj.fail("first_context_tokens", "the first bucket must start at 0");
    }
    if (i > 0 && bucket.first_context_tokens <= buckets.back().first_context_tokens) {
      obj.fail("first_context_tokens", fmt::format("must be greater than the previous bucket's {}",
                                                   buckets.back().first_context_tokens));
    }
    bucket.proposal_rate = required_rate(obj, "proposal_rate");
    obj.finish({"first_context_tokens", "proposal_rate"});
    buckets.push_back(bucket);
  }
  return buckets;
}

SpeculativeSpec read_speculative(JsonObject& pool_obj) {
  SpeculativeSpec spec;
  const nlohmann::json* value = pool_obj.child("speculative");
  if (value == nullptr || value->is_null()) return spec;
  JsonObject obj(*value, pool_obj.path_of("speculative"), pool_obj.file());
  spec.method = obj.required_string("method");
  const SpecDefaults* defaults = nullptr;
  for (const SpecDefaults& d : kSpecDefaults) {
    if (d.method == spec.method) defaults = &d;
  }
  if (defaults == nullptr) {
    obj.fail("method", fmt::format("unknown method \"{}\" (known: ngram, draft, eagle, eagle3)",
                                   spec.method));
  }
  const int64_t k =
      obj.at_least("num_speculative_tokens", obj.integer("num_speculative_tokens", 4), 1);
  if (k > 16) obj.fail("num_speculative_tokens", fmt::format("must be <= 16, got {}", k));
  spec.num_speculative_tokens = static_cast<int32_t>(k);
  spec.acceptance_rate = obj.number("acceptance_rate", defaults->acceptance_rate);
  if (!(spec.acceptance_rate >= 0.0 && spec.acceptance_rate <= 1.0)) {
    obj.fail("acceptance_rate", fmt::format("must be in [0, 1], got {}", spec.acceptance_rate));
  }
  spec.draft_cost_ratio = obj.non_negative(
      "draft_cost_ratio", obj.number("draft_cost_ratio", defaults->draft_cost_ratio));
  if (spec.draft_cost_ratio > kMaxDraftCostRatio) {
    obj.fail("draft_cost_ratio", fmt::format("must be at most {:g} target steps, got {:g}",
                                             kMaxDraftCostRatio, spec.draft_cost_ratio));
  }
  spec.proposal_rate = obj.number("proposal_rate", 1.0);
  if (!(spec.proposal_rate >= 0.0 && spec.proposal_rate <= 1.0)) {
    obj.fail("proposal_rate", fmt::format("must be in [0, 1], got {}", spec.proposal_rate));
  }
  spec.draft_seconds_per_seq =
      obj.non_negative("draft_seconds_per_seq", obj.number("draft_seconds_per_seq", 0.0));
  spec.draft_seconds_per_context_token = obj.non_negative(
      "draft_seconds_per_context_token", obj.number("draft_seconds_per_context_token", 0.0));
  for (std::string_view key : {"draft_seconds_per_seq", "draft_seconds_per_context_token"}) {
    const double seconds = key == "draft_seconds_per_seq" ? spec.draft_seconds_per_seq
                                                          : spec.draft_seconds_per_context_token;
    if (seconds > kMaxDraftSeconds) {
      obj.fail(key, fmt::format("must be at most {:g} s, got {:g}", kMaxDraftSeconds, seconds));
    }
  }
  spec.accepting_share = obj.number("accepting_share", 1.0);
  if (!(spec.accepting_share > 0.0 && spec.accepting_share <= 1.0)) {
    obj.fail("accepting_share", fmt::format("must be in (0, 1], got {}", spec.accepting_share));
  }
  spec.acceptance_by_class = read_acceptance_by_class(obj);
  if (const nlohmann::json* v = obj.child("by_decode_step"); v != nullptr && !v->is_null()) {
    spec.by_decode_step = read_step_rates(*v, obj.path_of("by_decode_step"), obj.file());
  }
  if (const nlohmann::json* v = obj.child("proposal_by_context"); v != nullptr && !v->is_null()) {
    spec.proposal_by_context =
        read_context_rates(*v, obj.path_of("proposal_by_context"), obj.file());
    // One source of proposal rates: the others would be silently ignored.
    if (obj.has("proposal_rate")) {
      obj.fail("proposal_rate", "not with proposal_by_context (the proposal rates are by context)");
    }
    for (size_t i = 0; i < spec.by_decode_step.size(); ++i) {
      if (spec.by_decode_step[i].proposal_rate) {
        throw_at(obj.file(), fmt::format("{}[{}].proposal_rate", obj.path_of("by_decode_step"), i),
                 "not with proposal_by_context (the proposal rates are by context)");
      }
    }
  }
  obj.finish({"method", "num_speculative_tokens", "acceptance_rate", "draft_cost_ratio",
              "proposal_rate", "draft_seconds_per_seq", "draft_seconds_per_context_token",
              "by_decode_step", "proposal_by_context", "accepting_share", "acceptance_by_class"});
  return spec;
}

// GPUs of one node (an HGX/DGX board of 8): a replica within it pipelines over NVLink.
constexpr int64_t kGpusPerNode = 8;

// `pp_link`: a link kind's name or {kind, gb_per_s_per_gpu, latency_ms}, the kind's defaults for
// what is not given (sim/fleet/kv_links.h); default by the replica's size.
void read_pp_link(JsonObject& obj, PoolSpec& pool, int64_t replica_gpus) {
  fleet::LinkKind kind =
      replica_gpus <= kGpusPerNode ? fleet::LinkKind::nvlink : fleet::LinkKind::infiniband;
  const nlohmann::json* value = obj.child("pp_link");
  std::optional<JsonObject> link;
  if (value != nullptr) {
    const std::string path = obj.path_of("pp_link");
    const auto find_kind = [&](const std::string& name, const std::string& at) {
      const std::optional<fleet::LinkKind> found = fleet::find_link_kind(name);
      if (!found) {
        throw_at(
            obj.file(), at,
            fmt::format("unknown link kind \"{}\" (nvlink, infiniband, roce, ethernet)", name));
      }
      return *found;
    };
    if (value->is_string()) {
      kind = find_kind(value->get<std::string>(), path);
    } else if (value->is_object()) {
      link.emplace(*value, path, obj.file());
      if (link->has("kind")) kind = find_kind(link->required_string("kind"), path + ".kind");
    } else {
      throw_at(obj.file(), path,
               "must be a link kind name or {kind, gb_per_s_per_gpu, latency_ms}");
    }
  }
  const fleet::LinkKindDefaults defaults = fleet::link_kind_defaults(kind);
  pool.pp_link_kind = kind;
  pool.deployment.pp_link_gb_per_s = defaults.gb_per_s_per_gpu;
  pool.deployment.pp_link_latency_s = defaults.latency_ms / 1e3;
  if (link) {
    pool.deployment.pp_link_gb_per_s = link->positive(
        "gb_per_s_per_gpu", link->number("gb_per_s_per_gpu", defaults.gb_per_s_per_gpu));
    pool.deployment.pp_link_latency_s =
        link->non_negative("latency_ms", link->number("latency_ms", defaults.latency_ms)) / 1e3;
    link->finish({"kind", "gb_per_s_per_gpu", "latency_ms"});
  }
}

}  // namespace

void read_pool_layout_keys(JsonObject& obj, PoolSpec& pool) {
  // Checked against the model (ep divides its experts, a dense model takes neither, at most one
  // stage per layer) with the memory plan (perf::check_deployment).
  for (const auto& [key, into] : {std::pair<std::string_view, int32_t*>{"ep", &pool.deployment.ep},
                                  {"attention_dp", &pool.deployment.attention_dp},
                                  {"pp", &pool.deployment.pp}}) {
    const int64_t value = obj.at_least(key, obj.integer(key, 1), 1);
    if (value > kMaxParallelDegree) {
      obj.fail(key, fmt::format("must be <= {}, got {}", kMaxParallelDegree, value));
    }
    *into = static_cast<int32_t>(value);
  }
  const int64_t num_gpus = static_cast<int64_t>(pool.deployment.tp) * pool.deployment.attention_dp;
  if (pool.deployment.attention_dp > 1 && num_gpus > kMaxParallelDegree) {
    obj.fail("attention_dp", fmt::format("tp {} x attention_dp {} = {} GPUs per replica: must be "
                                         "<= {}",
                                         pool.deployment.tp, pool.deployment.attention_dp, num_gpus,
                                         kMaxParallelDegree));
  }
  const int64_t replica_gpus = num_gpus * pool.deployment.pp;
  if (replica_gpus > kMaxParallelDegree) {
    obj.fail("pp", fmt::format("{} GPUs per stage x pp {} = {} GPUs per replica: must be <= {}",
                               num_gpus, pool.deployment.pp, replica_gpus, kMaxParallelDegree));
  }
  read_pp_link(obj, pool, replica_gpus);
}

void read_pool_fleet_keys(JsonObject& obj, PoolSpec& pool) {
  const std::string& file = obj.file();
  pool.fleet_keys = nlohmann::json::object();
  if (const nlohmann::json* v = obj.child("autoscaler"); v != nullptr && !v->is_null()) {
    pool.autoscaler = fleet::parse_autoscaler_spec(*v, file, obj.path_of("autoscaler"));
    pool.fleet_keys["autoscaler"] = *v;
  }
  if (const nlohmann::json* v = obj.child("cold_start"); v != nullptr && !v->is_null()) {
    pool.cold_start = fleet::parse_cold_start_spec(*v, file, obj.path_of("cold_start"));
    pool.fleet_keys["cold_start"] = *v;
  }
  if (const nlohmann::json* v = obj.child("pricing"); v != nullptr && !v->is_null()) {
    pool.pricing = fleet::parse_pricing_spec(*v, file, obj.path_of("pricing"));
    pool.fleet_keys["pricing"] = *v;
  }
  if (const nlohmann::json* v = obj.child("spot"); v != nullptr && !v->is_null()) {
    pool.spot = fleet::parse_spot_spec(*v, file, obj.path_of("spot"));
    pool.fleet_keys["spot"] = *v;
    if (pool.pricing.market != fleet::Market::spot) {
      obj.fail("spot", "needs \"pricing\": {\"market\": \"spot\"} (interruptions hit spot leases)");
    }
  }
  if (const nlohmann::json* v = obj.child("energy"); v != nullptr && !v->is_null()) {
    pool.energy = fleet::parse_pool_energy_spec(*v, file, obj.path_of("energy"));
    pool.fleet_keys["energy"] = *v;
  }
  if (const nlohmann::json* v = obj.child("owned"); v != nullptr && !v->is_null()) {
    JsonObject owned(*v, obj.path_of("owned"), file);
    OwnedSpec spec;
    spec.capex_dollars = owned.positive("capex_dollars", owned.number("capex_dollars", 0.0));
    spec.lifetime_years = owned.positive("lifetime_years", owned.number("lifetime_years", 0.0));
    owned.finish({"capex_dollars", "lifetime_years"});
    for (const char* rented : {"pricing", "spot", "price_per_gpu_hour"}) {
      if (const nlohmann::json* r = obj.child(rented); r != nullptr && !r->is_null()) {
        obj.fail(rented, "an owned pool pays no rental: give either owned or a rental price");
      }
    }
    pool.owned = spec;
    pool.fleet_keys["owned"] = *v;
  }
  pool.speculative = read_speculative(obj);
  pool.region = obj.string("region", "");
  const std::string role = obj.string("role", "both");
  if (const std::optional<fleet::PoolRole> found = fleet::find_pool_role(role)) {
    pool.role = *found;
  } else {
    obj.fail("role", fmt::format("unknown role \"{}\"; expected both, prefill or decode", role));
  }
  const fleet::AutoscalerSpec& a = pool.autoscaler;
  if (a.policy == "fixed" && pool.num_replicas < 1) {
    obj.fail("num_replicas", "must be at least 1 with a fixed-size pool (no autoscaler)");
  }
  if (a.policy != "fixed" && a.policy != "scheduled" && a.max_replicas < 1) {
    obj.fail("autoscaler", "max_replicas must be at least 1");
  }
  if (a.policy == "scheduled") {
    bool any = false;
    for (const fleet::SchedulePoint& p : a.schedule) any = any || p.num_replicas > 0;
    if (!any) obj.fail("autoscaler", "schedule must ask for at least one replica at some hour");
  }
}

namespace {

// The most replicas the pool may run at once: as many devices as an owned pool has bought.
int32_t max_pool_replicas(const PoolSpec& pool) {
  const fleet::AutoscalerSpec& a = pool.autoscaler;
  if (a.policy == "fixed") return pool.num_replicas;
  if (a.policy == "scheduled") {
    int32_t most = 0;
    for (const fleet::SchedulePoint& p : a.schedule) most = std::max(most, p.num_replicas);
    return most;
  }
  return a.max_replicas;
}

}  // namespace

void resolve_pool_fleet(const JsonObject& obj, const perf::ModelSpec& model,
                        const perf::GpuSpec& gpu, PoolSpec& pool) {
  if (pool.price_per_gpu_hour) {
    if (pool.pricing.on_demand_per_gpu_hour) {
      obj.fail("price_per_gpu_hour",
               "give either price_per_gpu_hour or pricing.on_demand_per_gpu_hour");
    }
    pool.pricing.on_demand_per_gpu_hour = pool.price_per_gpu_hour;
  }
  if (pool.owned) {
    // Every replica the pool may run is a device it owns, paid for the whole run: the
    // ledger's reserved slots at the amortization price.
    pool.pricing.reserved_replicas = max_pool_replicas(pool);
    pool.pricing.reserved_per_gpu_hour = pool.owned->dollars_per_gpu_hour();
    pool.pricing.on_demand_per_gpu_hour = pool.owned->dollars_per_gpu_hour();
  }
  pool.pool_pricing =
      fleet::resolve_pricing(pool.pricing, gpu, pool.deployment.num_gpus(), pool.name);
  pool.resolved_price_per_gpu_hour = fleet::to_dollars(pool.pool_pricing.market_per_gpu_hour());
  pool.cold_start_times =
      fleet::cold_start(pool.cold_start, model, gpu, pool.deployment, pool.memory);
  // Leases shorter than a cold start on average: replacements would seldom become warm, and a
  // run whose replicas are all lost would never end.
  const double cold_start_s =
      pool.cold_start_times.provisioning_s + pool.cold_start_times.loading_s();
  if (pool.is_spot() &&
      pool.spot.mean_time_between_interruptions_s < pool.spot.notice_s + cold_start_s) {
    throw_at(
        obj.file(), obj.path_of("spot") + ".mean_time_between_interruptions_s",
        fmt::format("{:g} s is shorter than notice_s plus the pool's cold start ({:g} s + "
                    "{:g} s): a replacement replica would seldom become warm",
                    pool.spot.mean_time_between_interruptions_s, pool.spot.notice_s, cold_start_s));
  }
  if (pool.speculative.enabled()) {
    const int32_t k = pool.speculative.num_speculative_tokens;
    if (pool.scheduler.num_speculative_tokens != 0 && pool.scheduler.num_speculative_tokens != k) {
      obj.fail("speculative", fmt::format("num_speculative_tokens {} differs from "
                                          "scheduler.num_speculative_tokens {}",
                                          k, pool.scheduler.num_speculative_tokens));
    }
    pool.scheduler.num_speculative_tokens = k;
  } else if (pool.scheduler.num_speculative_tokens > 0) {
    obj.fail("scheduler",
             "num_speculative_tokens needs a \"speculative\" object (method, acceptance)");
  }
}

}  // namespace tidal::sim
