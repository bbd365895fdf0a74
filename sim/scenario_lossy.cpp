#include "sim/scenario_lossy.h"

#include <fmt/format.h>

#include "sim/pool_kv_budget.h"

namespace tidal::sim {

void read_pool_lossy(JsonObject& pool_obj, PoolSpec& pool) {
  const nlohmann::json* value = pool_obj.child("lossy");
  if (value == nullptr) return;
  JsonObject obj(*value, pool_obj.path_of("lossy"), pool_obj.file());
  perf::LossySpec lossy;
  lossy.kv_kept_ratio = obj.number("kv_kept_ratio", 1.0);
  if (!(lossy.kv_kept_ratio > 0.0 && lossy.kv_kept_ratio <= 1.0)) {
    obj.fail("kv_kept_ratio", fmt::format("must be in (0, 1], got {:g}", lossy.kv_kept_ratio));
  }
  const nlohmann::json* window = obj.child("kv_window_tokens");
  if (window != nullptr && !window->is_null()) {  // null: the echo's "no window"
    lossy.kv_window_tokens =
        obj.at_least("kv_window_tokens", obj.integer("kv_window_tokens", 0), 1);
  }
  lossy.layer_skip_share = obj.number("layer_skip_share", 0.0);
  const int64_t num_layers = pool.model_spec.num_layers;
  const double layers_run = (1.0 - lossy.layer_skip_share) * static_cast<double>(num_layers);
  if (!(lossy.layer_skip_share >= 0.0 && lossy.layer_skip_share < 1.0) || layers_run < 1.0) {
    obj.fail("layer_skip_share",
             fmt::format("must be in [0, 1) and leave at least one of {}'s {} layers, got {:g}",
                         pool.model_spec.name, num_layers, lossy.layer_skip_share));
  }
  if (const std::optional<double> loss = obj.optional_number("declared_quality_loss")) {
    if (!(*loss >= 0.0 && *loss <= 1.0)) {
      obj.fail("declared_quality_loss", fmt::format("must be in [0, 1], got {:g}", *loss));
    }
    lossy.declared_quality_loss = *loss;
  }
  obj.finish({"kv_kept_ratio", "kv_window_tokens", "layer_skip_share", "declared_quality_loss"});
  if (lossy.kv_bytes_share() < 1.0 && pool.deployment.pp > 1) {
    obj.fail(lossy.kv_kept_ratio < 1.0 ? "kv_kept_ratio" : "layer_skip_share",
             fmt::format("not with pipeline parallelism (pp {}): each stage's KV would shrink "
                         "by its own layers",
                         pool.deployment.pp));
  }
  pool.lossy = lossy;
}

void apply_lossy_memory(PoolSpec& pool, const std::string& where) {
  if (!pool.lossy) return;
  const double share = pool.lossy->kv_bytes_share();
  if (share == 1.0) return;
  perf::MemoryPlan& m = pool.memory;
  m.kv_bytes_per_token_per_gpu *= share;
  m.kv_bytes_per_token_all_stages *= share;
  m.sliding_kv_reserve_bytes *= share;
  m.sliding_kv_reserve_bytes_all_stages *= share;
  recut_kv_blocks(pool, where, "lossy");
}

nlohmann::ordered_json lossy_to_json(const PoolSpec& pool) {
  if (!pool.lossy) return nullptr;
  const perf::LossySpec& l = *pool.lossy;
  nlohmann::ordered_json j{{"kv_kept_ratio", l.kv_kept_ratio}};
  j["kv_window_tokens"] =
      l.kv_window_tokens > 0 ? nlohmann::ordered_json(l.kv_window_tokens) : nullptr;
  j["layer_skip_share"] = l.layer_skip_share;
  j["declared_quality_loss"] =
      l.declared_quality_loss ? nlohmann::ordered_json(*l.declared_quality_loss) : nullptr;
  return j;
}

}  // namespace tidal::sim
