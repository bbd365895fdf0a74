// Engine presets: finding one, and the rules that turn its figures into one pool's defaults.
// The figures themselves are in engine_presets.cpp.
#include "perf/engine_preset.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "base/input_error.h"
#include "perf/catalog_data.h"

namespace tidal::perf {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool version_matches(std::string_view given, std::string_view preset) {
  return given == preset ||
         (given.size() > preset.size() && given.starts_with(preset) && given[preset.size()] == '.');
}

const GpuTier& gpu_tier(const EnginePreset& preset, const EngineTarget& target) {
  const std::string gpu = lower(target.gpu_name);
  for (const GpuTier& tier : preset.tiers) {
    if (target.gpu_memory_bytes < tier.min_gpu_memory_gib * kGiB) continue;
    const bool excluded =
        std::any_of(tier.except_gpu_names.begin(), tier.except_gpu_names.end(),
                    [&gpu](const std::string& name) { return gpu.find(lower(name)) != gpu.npos; });
    if (!excluded) return tier;
  }
  return preset.tiers.back();
}

// SGLang's mem_fraction_static for this GPU, chunk budget and CUDA-graph batch.
double static_memory_fraction(const StaticMemoryRule& rule, const EngineTarget& target,
                              int64_t chunk_tokens, int32_t graph_batch) {
  const double gpu_mib = target.gpu_memory_bytes / kMiB;
  double reserved = rule.base_mib +
                    rule.per_chunk_token_mib *
                        static_cast<double>(std::max(chunk_tokens, rule.min_chunk_tokens)) +
                    rule.per_graph_batch_mib * graph_batch + rule.per_tp_mib * target.tp;
  if (gpu_mib > rule.large_gpu_mib) reserved = std::max(reserved, rule.large_gpu_min_reserve_mib);
  const double fraction = std::round((gpu_mib - reserved) / gpu_mib * 1000.0) / 1000.0;
  return std::clamp(fraction, 0.001, 1.0);
}

std::string source_of(const EnginePreset& preset, const std::string& key) {
  const auto it = preset.sources.find(key);
  return it == preset.sources.end() ? preset.label : it->second;
}

}  // namespace

const EnginePreset& find_engine_preset(std::string_view name,
                                       std::optional<std::string_view> version,
                                       const std::string& json_path,
                                       const std::string& version_path) {
  const std::span<const EnginePreset> presets = engine_presets();
  std::vector<const EnginePreset*> of_engine;
  std::vector<std::string> names;
  for (const EnginePreset& p : presets) {
    if (std::find(names.begin(), names.end(), p.name) == names.end()) names.push_back(p.name);
    if (iequals(p.name, name)) of_engine.push_back(&p);
  }
  auto joined = [](const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
  };
  if (of_engine.empty()) {
    throw InputError(json_path + ": unknown engine \"" + std::string(name) +
                     "\" (known: " + joined(names) + ")");
  }
  if (!version) return *of_engine.front();
  std::vector<std::string> versions;
  for (const EnginePreset* p : of_engine) {
    if (version_matches(*version, p->version)) return *p;
    versions.push_back(p->version);
  }
  throw InputError(version_path + ": unknown " + of_engine.front()->name + " version \"" +
                   std::string(*version) + "\" (known: " + joined(versions) + ")");
}

int32_t seqs_from_kv(const SeqsFromKv& rule, int64_t kv_tokens, int64_t max_model_len) {
  const double scaled = static_cast<double>(kv_tokens) /
                        static_cast<double>(std::max<int64_t>(1, max_model_len)) *
                        rule.per_context_len;
  const int64_t clamped =
      std::clamp<int64_t>(static_cast<int64_t>(scaled), rule.min_seqs, rule.max_seqs);
  return static_cast<int32_t>(std::max<int64_t>(1, std::min(clamped, kv_tokens / 2)));
}

int32_t cuda_graph_max_batch(const EnginePreset& preset, const EngineTarget& target,
                             int32_t max_num_seqs, int64_t max_num_batched_tokens) {
  const GpuTier& tier = gpu_tier(preset, target);
  if (preset.cuda_graph.seqs_factor == 0) {
    return target.tp >= 4 && tier.cuda_graph_max_batch_tp4 > 0 ? tier.cuda_graph_max_batch_tp4
                                                               : tier.cuda_graph_max_batch;
  }
  const int64_t by_seqs = static_cast<int64_t>(preset.cuda_graph.seqs_factor) * max_num_seqs *
                          (1 + target.num_speculative_tokens);
  return static_cast<int32_t>(
      std::min({by_seqs, static_cast<int64_t>(preset.cuda_graph.cap), max_num_batched_tokens}));
}

EngineDefaults resolve_engine_defaults(const EnginePreset& preset, const EngineTarget& target,
                                       const EngineGiven& given) {
  EngineDefaults d;
  auto set_source = [&](const std::string& key, bool was_given) {
    d.sources[key] = was_given ? "given" : source_of(preset, key);
  };
  const GpuTier& tier = gpu_tier(preset, target);
  d.policy = preset.policy;
  d.admission = preset.admission;
  d.preemption = preset.preemption;
  d.watermark = preset.watermark;
  for (const char* key : {"policy", "admission", "preemption", "watermark"}) set_source(key, false);

  d.max_num_batched_tokens = given.max_num_batched_tokens.value_or(tier.max_num_batched_tokens);
  set_source("max_num_batched_tokens", given.max_num_batched_tokens.has_value());
  if (given.max_num_seqs) {
    d.max_num_seqs = *given.max_num_seqs;
  } else if (tier.max_num_seqs > 0) {
    d.max_num_seqs = tier.max_num_seqs;
    if (preset.seqs_capped_by_batched_tokens) {
      d.max_num_seqs = static_cast<int32_t>(
          std::min<int64_t>(d.max_num_seqs, std::max<int64_t>(1, d.max_num_batched_tokens)));
    }
  } else {
    d.max_num_seqs = preset.seqs_from_kv.min_seqs;  // until the KV pool is known
    d.max_num_seqs_from_kv = true;
  }
  set_source("max_num_seqs", given.max_num_seqs.has_value());

  d.max_model_len = target.model_max_len;
  if (preset.max_model_len_capped_by_batched_tokens) {
    d.max_model_len = std::min(d.max_model_len, d.max_num_batched_tokens);
  }
  set_source("max_model_len", false);
  d.prefix_caching = preset.prefix_caching;
  set_source("prefix_caching", false);
  if (preset.block_size > 0) {
    d.block_size = preset.block_size;
    set_source("block_size", false);
  }

  d.cuda_graph_max_batch =
      cuda_graph_max_batch(preset, target, d.max_num_seqs, d.max_num_batched_tokens);
  set_source("cuda_graph_max_batch", false);
  d.memory_fraction = preset.memory_fraction;
  set_source("memory_fraction", false);
  d.gpu_memory_utilization =
      preset.static_memory.enabled
          ? static_memory_fraction(preset.static_memory, target, d.max_num_batched_tokens,
                                   d.cuda_graph_max_batch)
          : preset.gpu_memory_utilization;
  set_source("gpu_memory_utilization", false);
  // The figures above are one rank's (CUDA graphs and static memory are per GPU); a replica of
  // attention_dp ranks schedules that many times as much.
  if (preset.limits_per_attention_rank && target.attention_dp > 1) {
    const std::string per_rank = fmt::format("; x attention_dp {}: {}", target.attention_dp,
                                             source_of(preset, "limits_per_attention_rank"));
    if (!given.max_num_batched_tokens) {
      d.max_num_batched_tokens *= target.attention_dp;
      d.sources["max_num_batched_tokens"] += per_rank;
    }
    if (!given.max_num_seqs && !d.max_num_seqs_from_kv) {
      d.max_num_seqs *= target.attention_dp;
      d.sources["max_num_seqs"] += per_rank;
    }
  }

  d.async_scheduling = given.async_scheduling.value_or(preset.async_scheduling);
  set_source("async_scheduling", given.async_scheduling.has_value());
  const StepOverhead& overhead =
      d.async_scheduling ? preset.step_overhead_async : preset.step_overhead_sync;
  const std::string overhead_source =
      source_of(preset, d.async_scheduling ? "step_overhead_async" : "step_overhead_sync");
  d.step_overhead.base_s = given.step_overhead_base_s.value_or(overhead.base_s);
  d.sources["step_overhead_base_s"] = given.step_overhead_base_s ? "given" : overhead_source;
  d.step_overhead.per_seq_s = given.step_overhead_per_seq_s.value_or(overhead.per_seq_s);
  d.sources["step_overhead_per_seq_s"] = given.step_overhead_per_seq_s ? "given" : overhead_source;
  d.frontend_per_request_s = given.frontend_per_request_s.value_or(preset.frontend_per_request_s);
  set_source("frontend_per_request_s", given.frontend_per_request_s.has_value());
  d.detokenize_per_token_s = given.detokenize_per_token_s.value_or(preset.detokenize_per_token_s);
  set_source("detokenize_per_token_s", given.detokenize_per_token_s.has_value());
  if (target.has_linear_layers) {
    d.state_memory_ratio = given.state_memory_ratio.value_or(preset.state_memory_ratio);
    set_source("state_memory_ratio", given.state_memory_ratio.has_value());
  }
  return d;
}

}  // namespace tidal::perf
