#include "sim/scenario_lora.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "sim/pool_kv_budget.h"

namespace tidal::sim {

namespace {

// The ranks vLLM accepts (vllm/config/lora.py, MaxLoRARanks).
constexpr std::array<int64_t, 9> kRanks{1, 8, 16, 32, 64, 128, 256, 320, 512};

// Input plus output widths of every adapted projection of one layer: q, k, v, o and the
// dense MLP's gate, up and down (an MoE model's experts are not adapted).
double adapted_widths_per_layer(const perf::ModelSpec& m) {
  const auto h = static_cast<double>(m.hidden);
  const auto q = static_cast<double>(m.num_heads * m.head_dim);
  const auto kv = static_cast<double>(m.num_kv_heads * m.head_dim);
  double widths = (h + q) + 2.0 * (h + kv) + (q + h);
  if (!m.is_moe()) {
    const auto i = static_cast<double>(m.intermediate);
    widths += (m.gated_mlp ? 2.0 : 1.0) * (h + i) + (i + h);
  }
  return widths;
}

}  // namespace

bool LoraSpec::serves(const std::string& adapter) const {
  return adapters.empty() || std::find(adapters.begin(), adapters.end(), adapter) != adapters.end();
}

void read_pool_lora(JsonObject& pool_obj, PoolSpec& pool) {
  const nlohmann::json* value = pool_obj.child("lora");
  if (value == nullptr) return;
  JsonObject obj(*value, pool_obj.path_of("lora"), pool_obj.file());
  LoraSpec lora;
  if (pool.model_spec.is_mla()) {
    obj.fail("", fmt::format("{} uses multi-head latent attention; LoRA adapters are modelled "
                             "for GQA models only",
                             pool.model_spec.name));
  }
  lora.max_loras_per_batch = static_cast<int32_t>(
      obj.at_least("max_loras_per_batch", obj.integer("max_loras_per_batch", 1), 1));
  if (lora.max_loras_per_batch > pool.scheduler.max_num_seqs) {
    obj.fail("max_loras_per_batch",
             fmt::format("{} is more than max_num_seqs {}", lora.max_loras_per_batch,
                         pool.scheduler.max_num_seqs));
  }
  lora.max_cpu_loras = static_cast<int32_t>(obj.integer("max_cpu_loras", lora.max_loras_per_batch));
  if (lora.max_cpu_loras < lora.max_loras_per_batch || lora.max_cpu_loras > 1'000'000) {
    obj.fail("max_cpu_loras", fmt::format("must be between max_loras_per_batch ({}) and "
                                          "1000000, got {}",
                                          lora.max_loras_per_batch, lora.max_cpu_loras));
  }
  const int64_t rank = obj.integer("rank", lora.rank);
  if (std::find(kRanks.begin(), kRanks.end(), rank) == kRanks.end()) {
    obj.fail("rank", fmt::format("must be one of 1, 8, 16, 32, 64, 128, 256, 320, 512 (vLLM's "
                                 "max_lora_rank choices), got {}",
                                 rank));
  }
  lora.rank = static_cast<int32_t>(rank);
  lora.load_gb_per_s =
      obj.positive("load_gb_per_s", obj.number("load_gb_per_s", lora.load_gb_per_s));
  if (lora.load_gb_per_s > 1e4) {
    obj.fail("load_gb_per_s", fmt::format("must be at most 10000, got {:g}", lora.load_gb_per_s));
  }
  if (const nlohmann::json* names = obj.child("adapters")) {
    if (!names->is_array() || names->empty()) {
      obj.fail("adapters", "must be a non-empty array of adapter names");
    }
    for (size_t i = 0; i < names->size(); ++i) {
      const nlohmann::json& name = (*names)[i];
      const std::string path = fmt::format("adapters[{}]", i);
      if (!name.is_string() || name.get<std::string>().empty()) {
        obj.fail(path, "must be a non-empty string");
      }
      if (std::find(lora.adapters.begin(), lora.adapters.end(), name.get<std::string>()) !=
          lora.adapters.end()) {
        obj.fail(path, fmt::format("\"{}\" is listed twice", name.get<std::string>()));
      }
      lora.adapters.push_back(name.get<std::string>());
    }
  }
  obj.finish({"max_loras_per_batch", "max_cpu_loras", "rank", "load_gb_per_s", "adapters"});
  const perf::ModelSpec& m = pool.model_spec;
  const double widths = adapted_widths_per_layer(m) * static_cast<double>(m.num_layers);
  constexpr double kBf16Bytes = 2.0;
  lora.adapter_bytes = static_cast<double>(lora.rank) * widths * kBf16Bytes;
  const auto tp = static_cast<double>(pool.deployment.tp);
  lora.flops_per_token_per_gpu = 2.0 * static_cast<double>(lora.rank) * widths / tp;
  lora.bytes_per_adapter_per_gpu = lora.adapter_bytes / tp;
  pool.scheduler.max_loras_per_batch = lora.max_loras_per_batch;
  pool.lora = std::move(lora);
}

void apply_lora_memory(PoolSpec& pool, const std::string& where) {
  if (!pool.lora) return;
  pool.memory.kv_cache_bytes_per_gpu -=
      static_cast<double>(pool.lora->max_loras_per_batch) * pool.lora->bytes_per_adapter_per_gpu;
  recut_kv_blocks(pool, where, "lora");
}

nlohmann::ordered_json lora_to_json(const PoolSpec& pool) {
  if (!pool.lora) return nullptr;
  const LoraSpec& l = *pool.lora;
  nlohmann::ordered_json j{{"max_loras_per_batch", l.max_loras_per_batch},
                           {"max_cpu_loras", l.max_cpu_loras},
                           {"rank", l.rank},
                           {"load_gb_per_s", l.load_gb_per_s}};
  if (!l.adapters.empty()) j["adapters"] = l.adapters;
  return j;
}

}  // namespace tidal::sim
