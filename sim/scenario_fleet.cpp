#include "sim/scenario_fleet.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "base/input_error.h"
#include "engine/sched/config_json.h"
#include "perf/calibration.h"
#include "perf/kernel_db_model.h"
#include "perf/model_catalog.h"
#include "perf/model_resolve.h"
#include "perf/perf.h"
#include "perf/pipeline_step_model.h"
#include "sim/fleet/spec_reading.h"
#include "sim/json_object.h"
#include "sim/scenario_engine.h"
#include "sim/scenario_kv_tiers.h"
#include "sim/scenario_limits.h"
#include "sim/scenario_lora.h"
#include "sim/scenario_lossy.h"
#include "sim/scenario_moe_load.h"
#include "sim/scenario_pool_keys.h"

namespace tidal::sim {
namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;

int32_t int32_at_least(JsonObject& obj, std::string_view key, int64_t default_value,
                       int64_t minimum) {
  const int64_t v = obj.at_least(key, obj.integer(key, default_value), minimum);
  if (v > INT32_MAX) obj.fail(key, fmt::format("must be <= {}, got {}", INT32_MAX, v));
  return static_cast<int32_t>(v);
}

perf::DType dtype_at(JsonObject& obj, std::string_view key, perf::DType default_dtype) {
  const std::string text = obj.string(key, std::string(perf::dtype_name(default_dtype)));
  return perf::parse_dtype(text, obj.file() + ": " + obj.path_of(key));
}

const nlohmann::json& required_child(JsonObject& obj, std::string_view key) {
  const nlohmann::json* value = obj.child(key);
  if (value == nullptr) obj.fail(key, "missing (required)");
  return *value;
}

PerfSpec parse_perf(JsonObject& pool, const std::string& base_dir) {
  PerfSpec perf;
  const nlohmann::json* value = pool.child("perf");
  if (value == nullptr) return perf;
  JsonObject obj(*value, pool.path_of("perf"), pool.file());
  perf.kind = obj.string("kind", "roofline");
  if (perf.kind != "roofline" && perf.kind != "profile" && perf.kind != "kernel_db") {
    obj.fail("kind", fmt::format("unknown step-time model \"{}\" (known: roofline, profile, "
                                 "kernel_db)",
                                 perf.kind));
  }
  // Each kind's own key, refused beside the others.
  const auto path_for = [&](const char* key, const char* kind, std::string& as_written,
                            std::string& resolved) {
    if (perf.kind == kind) {
      as_written = obj.required_string(key);
      resolved = resolve_path(as_written, base_dir);
    } else if (obj.has(key)) {
      obj.child(key);
      obj.fail(key, fmt::format("only allowed with \"kind\": \"{}\"", kind));
    }
  };
  path_for("profile", "profile", perf.profile, perf.resolved_profile);
  path_for("dir", "kernel_db", perf.dir, perf.resolved_dir);
  for (const auto& [key, into] :
       {std::pair<const char*, std::string*>{"gemm_dtype", &perf.gemm_dtype},
        {"moe_dtype", &perf.moe_dtype}}) {
    if (!obj.has(key)) continue;
    if (perf.kind != "kernel_db") {
      obj.child(key);
      obj.fail(key, "only allowed with \"kind\": \"kernel_db\"");
    }
    *into = obj.required_string(key);
  }
  if (const std::optional<std::string> calibration = obj.optional_string("calibration")) {
    perf.calibration = *calibration;
    perf.resolved_calibration = resolve_path(*calibration, base_dir);
  }
  obj.finish({"kind", "profile", "dir", "gemm_dtype", "moe_dtype", "calibration"});
  return perf;
}

// Reads the file a scenario key names; its InputError gets the key's path in front.
template <typename Read>
auto read_named_by(const std::string& key_path, Read read) {
  try {
    return read();
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", key_path, e.what()));
  }
}

// The step-time model of the whole model on one pipeline stage's GPUs (the replica's without
// pipeline parallelism), built once here so a bad profile, table folder or calibration fails at
// load time.
std::shared_ptr<const perf::StepTimeModel> make_stage_step_model(PoolSpec& pool,
                                                                 const perf::Deployment& deployment,
                                                                 const std::string& where) {
  const perf::ModelSpec& model = pool.model_spec;
  const perf::GpuSpec& gpu = pool.gpu_spec;
  const perf::RooflineOptions options = step_model_options(pool);  // the engine's CPU overhead
  std::shared_ptr<const perf::StepTimeModel> base;
  if (pool.perf.kind == "roofline") {
    base = perf::make_roofline_model(model, gpu, deployment, options);
  } else if (pool.perf.kind == "kernel_db") {
    if (!pool.engine) {
      throw InputError(where +
                       ".perf: kind kernel_db prices the kernels of an engine: give the "
                       "pool's \"engine\"");
    }
    perf::KernelDbCoverage coverage;
    base = perf::make_kernel_db_model(
        {pool.perf.resolved_dir, pool.engine->name, "", pool.perf.gemm_dtype, pool.perf.moe_dtype},
        model, gpu, deployment, options, &coverage);
    pool.kernel_db_coverage = coverage;
  } else {
    const perf::Profile profile = read_named_by(
        where + ".perf.profile", [&] { return perf::load_profile(pool.perf.resolved_profile); });
    base = perf::make_profiled_model(profile, model, gpu, deployment, where + ".perf.profile",
                                     options);
  }
  if (pool.perf.calibration.empty()) return base;
  if (!pool.engine) {
    throw InputError(where +
                     ".perf.calibration: calibrations are fitted per engine and GPU: "
                     "give the pool's \"engine\"");
  }
  const perf::CalibrationFile file = read_named_by(where + ".perf.calibration", [&] {
    return perf::load_calibration(pool.perf.resolved_calibration);
  });
  pool.calibration =
      perf::find_calibration(file, pool.engine->name, gpu.name, pool.perf.resolved_calibration,
                             where + ".perf.calibration");
  // With pipeline stages each stage's host launches its own layers (the busiest stage's count).
  const int64_t pp = std::max<int64_t>(pool.deployment.pp, 1);
  return perf::make_calibrated_model(std::move(base), *pool.calibration,
                                     (model.num_layers + pp - 1) / pp);
}

// The pool's step-time model: with pipeline stages, the stage model's op classes split over the
// stages and micro-batches (perf/pipeline_step_model.h).
std::shared_ptr<const perf::StepTimeModel> make_step_model(PoolSpec& pool,
                                                           const std::string& where) {
  if (pool.deployment.pp == 1) return make_stage_step_model(pool, pool.deployment, where);
  perf::Deployment stage = pool.deployment;
  stage.pp = 1;
  return std::make_shared<perf::PipelineStepModel>(make_stage_step_model(pool, stage, where),
                                                   pool.model_spec, pool.deployment);
}

PoolSpec parse_pool(const nlohmann::json& value, size_t index, const std::string& file,
                    const std::string& base_dir) {
  JsonObject obj(value, fmt::format("fleet.pools[{}]", index), file);
  const std::string where = file + ": " + obj.path();
  PoolSpec pool;
  pool.name = obj.string("name", fmt::format("pool{}", index));
  if (pool.name.empty()) obj.fail("name", "must not be empty (it names the pool in every output)");

  const nlohmann::json& model_value = required_child(obj, "model");
  const nlohmann::json& gpu_value = required_child(obj, "gpu");
  pool.model_spec = perf::resolve_model(model_value, base_dir, file, obj.path_of("model"));
  pool.gpu_spec = perf::resolve_gpu(gpu_value, file, obj.path_of("gpu"));
  const perf::ModelSpec& model = pool.model_spec;
  const perf::GpuSpec& gpu = pool.gpu_spec;
  pool.model = model.name;
  pool.gpu = gpu.name;
  // Echoed so that it loads from anywhere: catalog spellings canonical, config paths resolved.
  pool.model_input = !model_value.is_string() ? model_value
                     : perf::lookup_model(model_value.get<std::string>())
                         ? nlohmann::json(model.name)
                         : nlohmann::json(resolve_path(model_value.get<std::string>(), base_dir));
  pool.gpu_input = gpu_value.is_string() ? nlohmann::json(gpu.name) : gpu_value;

  pool.deployment.tp = int32_at_least(obj, "tp", 1, 1);
  read_pool_layout_keys(obj, pool);
  // A quantized checkpoint is served in its own format unless the pool says otherwise.
  pool.deployment.weight_dtype = dtype_at(obj, "weight_dtype", model.quant.dtype);
  pool.deployment.kv_dtype = dtype_at(obj, "kv_dtype", perf::DType::bf16);
  pool.deployment.gpu_memory_utilization = obj.number("gpu_memory_utilization", 0.9);
  if (!(pool.deployment.gpu_memory_utilization > 0.0 &&
        pool.deployment.gpu_memory_utilization <= 1.0)) {
    obj.fail("gpu_memory_utilization",
             fmt::format("must be in (0, 1], got {}", pool.deployment.gpu_memory_utilization));
  }
  pool.deployment.block_size = int32_at_least(obj, "block_size", 16, 1);
  pool.num_replicas = int32_at_least(obj, "num_replicas", 1, 0);
  if (pool.num_replicas > fleet::kMaxReplicas) {
    obj.fail("num_replicas", fmt::format("must be at most {} replicas per pool, got {}",
                                         fleet::kMaxReplicas, pool.num_replicas));
  }
  pool.prefix_caching = obj.boolean("prefix_caching", true);
  pool.swap_space_gib = obj.non_negative("swap_space_gib", obj.number("swap_space_gib", 4.0));
  if (const std::optional<double> price = obj.optional_number("price_per_gpu_hour")) {
    pool.price_per_gpu_hour = obj.non_negative("price_per_gpu_hour", *price);
  }
  pool.resolved_price_per_gpu_hour = pool.price_per_gpu_hour.value_or(gpu.price_on_demand_per_h);

  // Scheduler: its own parser, then tidal's defaults that depend on the model.
  const std::string sched_path = file + ": " + obj.path_of("scheduler");
  const nlohmann::json* sched_json = obj.child("scheduler");
  const nlohmann::json empty_object = nlohmann::json::object();
  pool.scheduler =
      sched::parse_scheduler_config(sched_json ? *sched_json : empty_object, sched_path);
  const bool max_len_given = sched_json != nullptr && sched_json->contains("max_model_len");
  if (!max_len_given) {
    pool.scheduler.max_model_len = std::min(pool.scheduler.max_model_len, model.max_position);
  } else if (pool.scheduler.max_model_len > model.max_position) {
    throw InputError(fmt::format("{}.max_model_len: {} exceeds max_position {} of {}", sched_path,
                                 pool.scheduler.max_model_len, model.max_position, model.name));
  }
  // The budget left out follows the policy (chunked_prefill: vLLM's chunk budget); an engine
  // preset's own default replaces it below.
  if (sched_json == nullptr || !sched_json->contains("max_num_batched_tokens")) {
    pool.scheduler.max_num_batched_tokens =
        sched::default_max_num_batched_tokens(pool.scheduler.policy);
  }
  if (pool.scheduler.max_num_batched_tokens < 1) {  // before plan_memory reads it
    throw InputError(fmt::format("{}.max_num_batched_tokens: must be at least 1 (got {})",
                                 sched_path, pool.scheduler.max_num_batched_tokens));
  }
  pool.deployment.max_num_batched_tokens = pool.scheduler.max_num_batched_tokens;
  pool.deployment.max_num_seqs = pool.scheduler.max_num_seqs;
  pool.perf = parse_perf(obj, base_dir);
  read_pool_moe(obj, pool);
  read_pool_lossy(obj, pool);
  read_pool_lora(obj, pool);
  read_pool_fleet_keys(obj, pool);
  apply_engine_preset(obj, sched_json, pool);  // the engine's defaults for keys left out
  const nlohmann::json* kv_tiers = obj.child("kv_tiers");  // resolved after the memory plan
  std::vector<std::string_view> known{"name",
                                      "model",
                                      "gpu",
                                      "tp",
                                      "weight_dtype",
                                      "kv_dtype",
                                      "num_replicas",
                                      "gpu_memory_utilization",
                                      "block_size",
                                      "prefix_caching",
                                      "swap_space_gib",
                                      "price_per_gpu_hour",
                                      "scheduler",
                                      "perf",
                                      "engine",
                                      "kv_tiers",
                                      "moe",
                                      "lossy",
                                      "lora"};
  known.insert(known.end(), kPoolFleetKeys.begin(), kPoolFleetKeys.end());
  known.insert(known.end(), kPoolLayoutKeys.begin(), kPoolLayoutKeys.end());
  obj.finish(known);

  // Memory: TP against heads, weights + activations + KV against device memory.
  pool.memory = perf::plan_memory(model, gpu, pool.deployment, where);
  apply_lossy_memory(pool, where);
  apply_lora_memory(pool, where);
  finish_engine_preset(pool, where);  // defaults that depend on the KV pool
  cap_seqs_to_state_slots(pool);
  pool.kv.block_size = pool.deployment.block_size;
  pool.kv.num_gpu_blocks = pool.memory.num_kv_blocks;
  pool.kv.num_cpu_blocks =
      pool.deployment.attention_dp *  // each rank swaps its own KV
      static_cast<int64_t>(
          std::floor(pool.swap_space_gib * kBytesPerGib /
                     (pool.deployment.block_size * pool.memory.kv_bytes_per_token_per_gpu)));
  pool.kv.enable_prefix_caching = pool.prefix_caching;
  read_pool_kv_tiers(kv_tiers, obj, pool);
  resolve_pool_fleet(obj, model, gpu, pool);
  kv::validate(pool.kv, where);
  sched::validate(pool.scheduler, pool.kv, sched_path);
  pool.step_model = make_step_model(pool, where);
  if (pool.lossy && pool.lossy->changes_anything()) {
    pool.step_model = std::make_shared<perf::LossyStepModel>(pool.step_model, *pool.lossy);
  }
  return pool;
}

}  // namespace

std::string resolve_path(const std::string& path, const std::string& base_dir) {
  const std::filesystem::path p(path);
  if (p.is_absolute() || base_dir.empty()) return p.lexically_normal().string();
  return (std::filesystem::path(base_dir) / p).lexically_normal().string();
}

namespace {

// The most replicas `pool` can have at once: num_replicas for a fixed pool, else also the
// autoscaler's max_replicas and its schedule's counts.
int64_t most_replicas(const PoolSpec& pool) {
  int64_t most = pool.num_replicas;
  if (pool.autoscaler.policy == "fixed") return most;
  most = std::max<int64_t>(most, pool.autoscaler.max_replicas);
  for (const fleet::SchedulePoint& point : pool.autoscaler.schedule) {
    most = std::max<int64_t>(most, point.num_replicas);
  }
  return most;
}

}  // namespace

std::vector<PoolSpec> parse_fleet(const nlohmann::json* fleet, const std::string& file,
                                  const std::string& base_dir) {
  if (fleet == nullptr) throw_at(file, "fleet", "missing (required)");
  JsonObject obj(*fleet, "fleet", file);
  const nlohmann::json* pools = obj.child("pools");
  if (pools == nullptr) obj.fail("pools", "missing (required)");
  if (!pools->is_array() || pools->empty()) {
    obj.fail("pools", "must be a non-empty array of pools");
  }
  obj.finish({"pools"});
  std::vector<PoolSpec> result;
  result.reserve(pools->size());
  int64_t num_most_replicas = 0;  // over every pool
  for (size_t i = 0; i < pools->size(); ++i) {
    result.push_back(parse_pool((*pools)[i], i, file, base_dir));
    for (size_t j = 0; j < i; ++j) {
      if (result[j].name == result[i].name) {
        throw_at(file, fmt::format("fleet.pools[{}].name", i),
                 fmt::format("\"{}\" is already the name of fleet.pools[{}]", result[i].name, j));
      }
    }
    num_most_replicas += most_replicas(result[i]);
    if (num_most_replicas > kMaxFleetReplicas) {
      throw_at(file, fmt::format("fleet.pools[{}]", i),
               fmt::format("the pools up to this one can hold {} replicas at once (num_replicas, "
                           "or the autoscaler's max_replicas and schedule), above the limit of {} "
                           "per fleet",
                           num_most_replicas, kMaxFleetReplicas));
    }
  }
  check_shared_remote_tier(result, file);
  return result;
}

}  // namespace tidal::sim
