#include "sim/scenario_engine.h"

#include <optional>
#include <string_view>

#include "perf/engine_preset.h"
#include "perf/memory_plan.h"
#include "sim/scenario_lora.h"
#include "sim/scenario_lossy.h"

namespace tidal::sim {
namespace {

// The engine object's numbers: optional, >= 0.
std::optional<double> optional_non_negative(JsonObject& obj, std::string_view key) {
  const std::optional<double> value = obj.optional_number(key);
  if (value) obj.non_negative(key, *value);
  return value;
}

struct EngineChoice {
  std::string name;
  std::optional<std::string> version;
  std::string name_path;     // where the name was given
  std::string version_path;  // where a version is (or would be) given
  perf::EngineGiven given;
};

EngineChoice read_engine_choice(JsonObject& pool_obj, const nlohmann::json& value) {
  EngineChoice choice;
  const std::string path = pool_obj.path_of("engine");
  choice.name_path = path;
  choice.version_path = path + ".version";
  if (value.is_string()) {
    choice.name = value.get<std::string>();
    return choice;
  }
  if (!value.is_object()) {
    pool_obj.fail("engine",
                  "expected an engine name or an object {\"name\", \"version\", ...}, got " +
                      describe_json(value));
  }
  JsonObject obj(value, path, pool_obj.file());
  choice.name = obj.required_string("name");
  choice.name_path = obj.path_of("name");
  choice.version = obj.optional_string("version");
  if (obj.has("async_scheduling")) {
    choice.given.async_scheduling = obj.boolean("async_scheduling", true);
  }
  choice.given.step_overhead_base_s = optional_non_negative(obj, "step_overhead_base_s");
  choice.given.step_overhead_per_seq_s = optional_non_negative(obj, "step_overhead_per_seq_s");
  choice.given.frontend_per_request_s = optional_non_negative(obj, "frontend_per_request_s");
  choice.given.detokenize_per_token_s = optional_non_negative(obj, "detokenize_per_token_s");
  choice.given.state_memory_ratio = optional_non_negative(obj, "state_memory_ratio");
  obj.finish({"name", "version", "async_scheduling", "step_overhead_base_s",
              "step_overhead_per_seq_s", "frontend_per_request_s", "detokenize_per_token_s",
              "state_memory_ratio"});
  return choice;
}

}  // namespace

void apply_engine_preset(JsonObject& pool_obj, const nlohmann::json* sched_json, PoolSpec& pool) {
  const nlohmann::json* value = pool_obj.child("engine");
  if (value == nullptr || value->is_null()) return;
  EngineChoice choice = read_engine_choice(pool_obj, *value);
  const std::string& file = pool_obj.file();
  const perf::EnginePreset& preset =
      perf::find_engine_preset(choice.name, choice.version, file + ": " + choice.name_path,
                               file + ": " + choice.version_path);

  auto in_scheduler = [sched_json](const char* key) {
    return sched_json != nullptr && sched_json->is_object() && sched_json->contains(key);
  };
  sched::SchedulerConfig& s = pool.scheduler;
  if (in_scheduler("max_num_batched_tokens")) {
    choice.given.max_num_batched_tokens = s.max_num_batched_tokens;
  }
  if (in_scheduler("max_num_seqs")) choice.given.max_num_seqs = s.max_num_seqs;
  perf::EngineTarget target;
  target.gpu_name = pool.gpu_spec.name;
  target.gpu_memory_bytes = pool.gpu_spec.memory_bytes;
  target.tp = pool.deployment.stage_gpus();  // the engines' tp_size: every GPU of a stage
  target.attention_dp = pool.deployment.attention_dp;
  target.model_max_len = pool.model_spec.max_position;
  target.has_linear_layers = pool.model_spec.num_linear_layers() > 0;
  target.num_speculative_tokens = pool.speculative.enabled()
                                      ? pool.speculative.num_speculative_tokens
                                      : s.num_speculative_tokens;
  perf::EngineDefaults d = perf::resolve_engine_defaults(preset, target, choice.given);

  // Each default applies unless the pool gives the key; the defaults then show the pool's value.
  auto scheduler_key = [&](const char* key, auto& pool_value, auto& preset_value) {
    if (in_scheduler(key)) {
      preset_value = pool_value;
      d.sources[key] = "given";
    } else {
      pool_value = preset_value;
    }
  };
  scheduler_key("policy", s.policy, d.policy);
  scheduler_key("admission", s.admission, d.admission);
  scheduler_key("preemption", s.preemption, d.preemption);
  scheduler_key("watermark", s.watermark, d.watermark);
  scheduler_key("max_num_batched_tokens", s.max_num_batched_tokens, d.max_num_batched_tokens);
  scheduler_key("max_num_seqs", s.max_num_seqs, d.max_num_seqs);
  scheduler_key("max_model_len", s.max_model_len, d.max_model_len);
  // An engine that schedules asynchronously forms each step while the one before it runs.
  if (!in_scheduler("schedule_ahead")) s.schedule_ahead = d.async_scheduling;
  pool.deployment.max_num_batched_tokens = s.max_num_batched_tokens;
  pool.deployment.max_num_seqs = s.max_num_seqs;

  auto pool_key = [&](const char* key, auto& pool_value, auto& preset_value) {
    if (pool_obj.has(key)) {
      preset_value = pool_value;
      d.sources[key] = "given";
    } else {
      pool_value = preset_value;
    }
  };
  pool_key("gpu_memory_utilization", pool.deployment.gpu_memory_utilization,
           d.gpu_memory_utilization);
  pool_key("prefix_caching", pool.prefix_caching, d.prefix_caching);
  if (d.block_size) pool_key("block_size", pool.deployment.block_size, *d.block_size);
  pool.deployment.memory_fraction = d.memory_fraction;
  pool.deployment.state_memory_ratio = d.state_memory_ratio.value_or(0.0);
  pool.engine = EngineSpec{preset.name, preset.version, std::move(d)};
}

void finish_engine_preset(PoolSpec& pool, const std::string& where) {
  if (!pool.engine || !pool.engine->defaults.max_num_seqs_from_kv) return;
  const perf::EnginePreset& preset =
      perf::find_engine_preset(pool.engine->name, pool.engine->version, where, where);
  perf::EngineDefaults& d = pool.engine->defaults;
  // Per attention rank, as SGLang sizes each DP rank's max_running_requests from its own KV pool
  // (scheduler.py: a --max-running-requests given is divided by dp_size instead).
  const int64_t kv_tokens = pool.memory.num_kv_blocks_per_rank * pool.deployment.block_size;
  const int32_t seqs =
      pool.deployment.attention_dp *
      perf::seqs_from_kv(preset.seqs_from_kv, kv_tokens, pool.scheduler.max_model_len);
  d.max_num_seqs = seqs;
  d.max_num_seqs_from_kv = false;
  pool.scheduler.max_num_seqs = seqs;
  if (pool.deployment.max_num_seqs == seqs) return;
  pool.deployment.max_num_seqs = seqs;
  if (pool.model_spec.num_sliding_layers() > 0 || pool.model_spec.num_linear_layers() > 0) {
    pool.memory = perf::plan_memory(pool.model_spec, pool.gpu_spec, pool.deployment, where);
    apply_lossy_memory(pool, where);
    apply_lora_memory(pool, where);
  }
}

void cap_seqs_to_state_slots(PoolSpec& pool) {
  const int64_t slots = pool.memory.num_state_slots;
  if (slots <= 0 || slots >= pool.scheduler.max_num_seqs) return;
  pool.scheduler.max_num_seqs = static_cast<int32_t>(slots);
  if (!pool.engine) return;
  perf::EngineDefaults& d = pool.engine->defaults;
  d.max_num_seqs = static_cast<int32_t>(slots);
  d.sources["max_num_seqs"] += "; capped at the recurrent states the memory holds";
}

perf::RooflineOptions step_model_options(const PoolSpec& pool) {
  perf::RooflineOptions options;
  if (pool.engine) {
    options.cpu_overhead_base_s = pool.engine->defaults.step_overhead.base_s;
    options.cpu_overhead_per_seq_s = pool.engine->defaults.step_overhead.per_seq_s;
  }
  return options;
}

}  // namespace tidal::sim
